"""The balance lab's outputs (issue 12): the plot has whole numbers of players and no line
for a team the set does not deal at that size; the terminal table fits 80 columns."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from trusis.lab import cli as lab_cli
from trusis.lab.simulate import Tally


def tally(players: int, human: int, trusis: int, castaway: int, draw: int) -> Tally:
    t = Tally(players)
    t.wins = {"HUMAN": human, "TRUSIS": trusis, "CASTAWAY": castaway, "DRAW": draw}
    t.games = human + trusis + castaway + draw
    t.days = 7 * t.games
    return t


TALLIES = [tally(5, 100, 0, 0, 0), tally(8, 0, 100, 0, 0), tally(15, 33, 33, 33, 1),
           tally(30, 1, 2, 97, 0)]


def test_teams_that_cannot_exist_are_left_out() -> None:
    teams = lab_cli.teams_at([5, 8, 15, 30], None)
    assert "CASTAWAY" not in teams[8] and "CASTAWAY" in teams[15]
    series = lab_cli.plot_series(TALLIES, teams)
    assert [p[0] for p in series["CASTAWAY"]] == [15, 30]
    assert [p[0] for p in series["HUMAN"]] == [5, 8, 15, 30]
    only_eight = lab_cli.plot_series([tally(8, 5, 5, 0, 0)], lab_cli.teams_at([8], None))
    assert set(only_eight) == {"HUMAN", "TRUSIS", "DRAW"}


@pytest.mark.parametrize("counts", [[8], [5, 8, 15, 30], [5, 6, 7]])
def test_the_players_axis_has_whole_numbers(tmp_path: Path, counts: list[int],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    plt = lab_cli._pyplot()
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)  # keep the figure to look at it
    tallies = [tally(c, 5, 4, 0, 1) for c in counts]
    lab_cli.draw_plot(tallies, tmp_path / "p.png", "t", lab_cli.teams_at(counts, None))
    assert (tmp_path / "p.png").stat().st_size > 0
    ax = figures[0].axes[0]
    low, high = ax.get_xlim()
    ticks = [x for x in ax.get_xticks() if low <= x <= high]
    assert ticks and all(float(x).is_integer() for x in ticks), ticks
    if len(counts) == 1:
        assert ticks == counts
    labels = {line.get_label() for line in ax.get_lines()}
    assert ("Castaway" in labels) == any(c >= 15 for c in counts)
    plt.close(figures[0])


def test_the_table_fits_80_columns() -> None:
    console = Console(width=80, record=True, no_color=True, force_terminal=False)
    title = "standard set, bots HUMAN=heuristic, TRUSIS=heuristic, CASTAWAY=heuristic, seed 0"
    console.print(lab_cli.render_table(TALLIES, title, lab_cli.teams_at([5, 8, 15, 30], None)))
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    rows = [line for line in lines if line.strip()[:2] in ("5 ", "8 ", "15", "30")]
    assert len(rows) == 4, lines  # one line per player count: nothing wrapped
    eight = next(line for line in rows if line.strip().startswith("8 "))
    assert eight.count("—") >= 1  # no Castaway at 8 seats
