"""`trusis stats RECORD... [--json] [--lang en|fr|it]`: end-of-game and career statistics.

Importing this module loads and validates the shipped declaration (R61), so the
`trusis` program refuses to start with a broken `stats.json` — the error names the
statistic and the rule — instead of failing later in the middle of a game.
One record prints the end-of-game table as a player sees it (limited statistics
hidden); several print the aggregate by statistic id (R63).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from trusis.cli.common import echo, fail, json_text, read_record
from trusis.rules.errors import RecordError
from trusis.rules.i18n import LANGUAGES
from trusis.stats.aggregate import Aggregate, aggregate
from trusis.stats.declaration import PLAYER, Declaration, StatsDeclarationError
from trusis.stats.declaration import shipped_declaration as _shipped
from trusis.stats.display import word
from trusis.stats.scoring import score
from trusis.stats.sheet import GameStats
from trusis.table.record import Record


def _declaration_at_start() -> Declaration:
    """R61: a bad declaration stops the program with a one-line error, exit 2."""
    try:
        return _shipped()
    except StatsDeclarationError as err:
        sys.stderr.write(f"error: {err}\n")
        raise SystemExit(2) from None


DECLARATION = _declaration_at_start()


def _fail(message: str) -> NoReturn:

    fail(message)


def score_path(path: str, decl: Declaration) -> tuple[Record, GameStats]:
    """Read, check and score one record; a malformed one exits 2 naming the field,
    exactly as `trusis replay` does (it is the same reader)."""

    record = read_record(path)
    try:
        return record, score(record, None, decl)
    except RecordError as err:
        _fail(str(err))


def _console(columns: int) -> Console:
    """A console wide enough for every column when the output is not a terminal."""
    console = Console()
    if console.is_terminal:
        return console
    return Console(width=max(100, 28 + 18 * columns))


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


def _aggregate_tables(history: Aggregate, lang: str) -> list[Table]:
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


def stats_command(
    records: Annotated[
        list[str], typer.Argument(help="Record files (or - for standard input).")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
    lang: Annotated[str, typer.Option("--lang", help="Language: en, fr or it.")] = "en",
) -> None:
    """Score game records: one record's end-of-game statistics, or several aggregated."""
    if lang not in LANGUAGES:
        _fail(f"--lang: must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    scored = [score_path(path, DECLARATION) for path in records]
    if len(scored) == 1:
        record, stats = scored[0]
        if as_json:
            echo(json_text(stats.as_json(lang)))  # strict JSON: a clock overflow is null
            return
        console = _console(len(record.players))
        for table in game_tables(stats, lang):
            console.print(table)
        if not stats.table.is_set("winning_team"):
            console.print(word("running", lang))
        return
    history = aggregate((stats.stored() for _record, stats in scored), DECLARATION, records)
    if as_json:
        echo(json_text(history.as_json(lang)))
        return
    console = _console(len(history.players))
    for table in _aggregate_tables(history, lang):
        console.print(table)
    if history.unfinished:  # named, and left out of the wins
        console.print(Text(f"{word('unfinished', lang)} {', '.join(history.unfinished)}"))
