"""`trusis stats RECORD... [--json] [--lang en|fr|it]`: end-of-game and career statistics.

Importing this module loads and validates the shipped declaration (R61), so the
`trusis` program refuses to start with a broken `stats.json` — the error names the
statistic and the rule — instead of failing later in the middle of a game.
One record prints the end-of-game table as a player sees it (limited statistics
hidden); several print the aggregate by statistic id (R63).
"""

from __future__ import annotations

import sys
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.text import Text

from trusis.cli.common import echo, fail, json_text, read_record
from trusis.rules.errors import RecordError
from trusis.rules.i18n import LANGUAGES
from trusis.stats.aggregate import aggregate
from trusis.stats.declaration import Declaration, StatsDeclarationError
from trusis.stats.declaration import shipped_declaration as _shipped
from trusis.stats.display import word
from trusis.stats.scoring import score
from trusis.stats.sheet import GameStats
from trusis.stats.tables import aggregate_tables, game_tables
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
    for table in aggregate_tables(history, lang):
        console.print(table)
    if history.unfinished:  # named, and left out of the wins
        console.print(Text(f"{word('unfinished', lang)} {', '.join(history.unfinished)}"))
