"""`trusis simulate` and its engine: determinism, valid records, output formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from trusis.cli.main import app
from trusis.lab.simulate import plan, run, tally, wilson
from trusis.table.game import replay
from trusis.table.record import load_record

BOTS = dict.fromkeys(("HUMAN", "TRUSIS", "CASTAWAY"), "heuristic")
runner = CliRunner()


def test_every_simulated_game_replays_to_the_same_result() -> None:
    jobs = plan([5, 12, 30], 6, 1, None, {**BOTS, "TRUSIS": "random"}, records=True)
    for result in run(jobs):
        assert result.record is not None
        assert result.record["format"] == "trusis-record/1"
        record = load_record(json.dumps(result.record))
        replayed = replay(record)
        assert not replayed.refused
        assert (replayed.state.winner or "DRAW") == result.winner
        assert replayed.state.number == result.days
        assert all(a.do != "timeout" for a in record.actions)


def test_results_do_not_depend_on_the_number_of_processes() -> None:
    batches = plan([6, 9], 8, 3, None, BOTS, batch=3)
    one = [t.as_dict() for t in tally(run(batches, 1))]
    two = [t.as_dict() for t in tally(run(batches, 2))]
    assert one == two
    other_seed = [t.as_dict() for t in tally(run(plan([6, 9], 8, 4, None, BOTS, batch=3)))]
    assert other_seed != one


def test_wilson_interval() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_cli_json(tmp_path: Path) -> None:
    out = runner.invoke(app, ["simulate", "--players", "5-6,8", "--games", "4", "--json",
                              "--bots", "HUMAN=heuristic,TRUSIS=random", "--seed", "9",
                              "--records", str(tmp_path)])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout.strip().splitlines()[-1])
    assert [r["players"] for r in doc["results"]] == [5, 6, 8]
    for r in doc["results"]:
        assert r["games"] == 4 and sum(r["wins"].values()) == 4
        assert set(r["wins"]) == {"HUMAN", "TRUSIS", "CASTAWAY", "DRAW"}
        assert r["avg_days"] >= 1
    assert doc["bots"] == {"HUMAN": "heuristic", "TRUSIS": "random", "CASTAWAY": "heuristic"}
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 12
    for path in files[:3]:
        record = load_record(path.read_text("utf-8"))
        assert replay(record).state.winner is not None


def test_cli_table_and_plot(tmp_path: Path) -> None:
    png = tmp_path / "rates.png"
    out = runner.invoke(app, ["simulate", "--players", "5,7", "--games", "3", "--plot", str(png),
                              "--set", "custom:TRUSIS=1,SWEEPER=1,CASTAWAY=1"])
    assert out.exit_code == 0, out.output
    assert "Trusis" in out.stdout and "95% intervals" in out.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("args", "message"), [
    (["--players", "4-6"], "--players"),
    (["--players", "x"], "--players"),
    (["--bots", "clever"], "available: easy, expert, heuristic, normal, random"),
    (["--bots", "ELVES=random"], "unknown team"),
    (["--set", "custom:ILLUSIONIST=2", "--players", "5"], "Illusionist"),
    (["--set", "custom:WIZARD=1"], "unknown special role"),
    (["--set", "weird"], "--set"),
])
def test_cli_errors(args: list[str], message: str) -> None:
    out = runner.invoke(app, ["simulate", "--games", "1", *args])
    assert out.exit_code == 2
    assert message in out.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--set", "custom:TRUSIS=1,TRUSIS=2"], "TRUSIS is given twice"),
        (["--bots", "HUMAN=random,HUMAN=heuristic"], "HUMAN is given twice"),
        (["--plot", "/nonexistent/dir/balance.png"], "does not exist"),
        (["--records", "/proc/no/such/place"], "--records"),
    ],
)
def test_bad_options_fail_before_any_game(args: list[str], message: str) -> None:
    """Output places and repeated keys are checked up front: nothing is lost after a sweep."""
    result = runner.invoke(app, ["simulate", "--players", "5", "--games", "2", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_draws_are_counted_by_how_they_came() -> None:
    result = runner.invoke(app, ["simulate", "--players", "6", "--games", "20", "--json"])
    assert result.exit_code == 0, result.output
    row = json.loads(result.stdout)["results"][0]
    assert set(row["endings"]) == {"team_win", "stalemate", "phase_limit", "no_survivors"}
    assert sum(row["endings"].values()) == row["games"]
    assert row["endings"]["team_win"] == row["games"] - row["wins"]["DRAW"]
