"""The `trusis` command: replay records (and, as they land, stats and simulate)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from trusis.bots.simulate_cli import simulate_command
from trusis.errors import RecordError
from trusis.game import replay
from trusis.play.cli import play_command
from trusis.record import Record, load_record
from trusis.result import result_document, result_text
from trusis.stats.cli import stats_command

app = typer.Typer(
    help="Trusis, the social-deduction game: replay records, score games, simulate tables.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Trusis, the social-deduction game: replay records, score games, simulate tables."""


def fail(message: str) -> NoReturn:
    """A one-line error on standard error, nothing on standard output, exit 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def read_record(path: str) -> Record:
    """Load a record from a path or `-` (standard input), exiting 2 if malformed."""
    try:
        if path == "-":
            text = sys.stdin.buffer.read().decode("utf-8")
        else:
            text = Path(path).read_bytes().decode("utf-8")
    except OSError as err:
        fail(f"record: cannot read {path}: {err.strerror}")
    except UnicodeDecodeError:
        fail("record: not UTF-8 text")
    try:
        return load_record(text)
    except RecordError as err:
        fail(str(err))


@app.command("replay")
def replay_command(
    record: Annotated[str, typer.Argument(help="Record file, or - for standard input.")],
    as_seat: Annotated[
        str | None, typer.Option("--as", help="Show only what this seat's client sees.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Play a game record and print where the game stands."""
    parsed = read_record(record)
    players = len(parsed.players)
    seat = None
    if as_seat is not None:
        # Parsed here, not by typer, so that a bad value gets the one-line error of RECORD.md.
        seat = int(as_seat) if as_seat.strip().isdigit() else 0
        if not 1 <= seat <= players:
            fail(f"--as: there is no seat {as_seat!r} at this table (seats 1 to {players})")
    doc = result_document(replay(parsed), seat)
    if as_json:
        typer.echo(json.dumps(doc, ensure_ascii=False))
    else:
        typer.echo(result_text(doc, parsed.players))


app.command("stats")(stats_command)
app.command("play")(play_command)
app.command("simulate")(simulate_command)


def main() -> None:
    """Entry point of the `trusis` console script."""
    app()
