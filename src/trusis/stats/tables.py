"""The statistics as rich tables: a game's end screen (R62) and several games' aggregate (R63).

Shared by `trusis stats` (cli/stats.py) and the end of `trusis play`.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.table import Table
from rich.text import Text

from trusis.stats.aggregate import Aggregate
from trusis.stats.declaration import PLAYER
from trusis.stats.display import word
from trusis.stats.sheet import GameStats


def game_tables(stats: GameStats, lang: str, titles: tuple[str, str] | None = None,
                seat_header: Callable[[int], str] | None = None,
                per_table: int | None = None) -> list[Table]:
    """The end screen: table statistics, then statistics × players (R62 order).

    Shared by `trusis stats` and the end of `trusis play`, which gives its own
    titles and seat headers, and `per_table` players side by side to fit its terminal.
    """
    game_title, players_title = titles or (word("game", lang), word("players", lang))
    header = seat_header or (lambda seat: f"{stats.names[seat - 1]} ({seat})")
    table = Table(title=game_title, header_style="bold")
    table.add_column(word("statistic", lang))
    table.add_column(word("value", lang), justify="right")
    for row in stats.table.rows(lang, limited=False):
        table.add_row(row.label, row.text)
    tables = [table]
    seats = list(stats.players)
    step = per_table or max(1, len(seats))
    for start in range(0, len(seats), step):
        chunk = seats[start:start + step]
        players = Table(title=players_title, header_style="bold")
        players.add_column(word("statistic", lang))
        for seat in chunk:
            players.add_column(Text(header(seat)), justify="right")
        columns = [stats.players[s].rows(lang, limited=False) for s in chunk]
        for i, row in enumerate(columns[0] if columns else []):
            players.add_row(row.label, *(col[i].text for col in columns))
        tables.append(players)
    return tables


def _win_table(title: str, first: str, history: Aggregate, lang: str,
               split: str | None) -> Table:
    table = Table(title=title)
    table.add_column(word("player", lang))
    if split is not None:
        table.add_column(first)
    for key in ("finished_games", "wins", "win_rate"):
        table.add_column(word(key, lang), justify="right")
    for name, h in history.players.items():
        if split is None:
            counts = [("", h.overall)]
        else:
            parts = h.by_team if split == "team" else h.by_role
            counts = [(history.label(split, k, lang), c) for k, c in sorted(parts.items())]
        for label, c in counts:
            cells = [Text(name)] + ([Text(label)] if split is not None else [])
            table.add_row(*cells, Text(str(c.decided)), Text(str(c.wins)), Text(c.rate_text()))
    return table


def aggregate_tables(history: Aggregate, lang: str) -> list[Table]:
    """Several games: wins, wins by team and role, averages per player and per game."""
    tables = [
        _win_table(word("players", lang), "", history, lang, None),
        _win_table(word("by_team", lang), word("team", lang), history, lang, "team"),
        _win_table(word("by_role", lang), word("role", lang), history, lang, "role"),
    ]
    means = Table(title=word("averages", lang))
    means.add_column(word("statistic", lang))
    names = list(history.players)
    for name in names:
        means.add_column(Text(name), justify="right")
    columns = [history.mean_rows(PLAYER, history.players[n].means, lang, limited=False)
               for n in names]
    for i, row in enumerate(columns[0] if columns else []):
        means.add_row(row.label, *(col[i].text for col in columns))
    tables.append(means)
    per_game = Table(title=f"{word('table_averages', lang)} ({history.games})")
    per_game.add_column(word("statistic", lang))
    per_game.add_column(word("value", lang), justify="right")
    for row in history.mean_rows("table", history.table, lang, limited=False):
        per_game.add_row(row.label, row.text)
    tables.append(per_game)
    return tables
