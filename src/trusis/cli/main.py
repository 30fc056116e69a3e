"""The `trusis` command: replay records (and, as they land, stats and simulate)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from trusis.cli.common import fail, read_record
from trusis.lab.cli import simulate_command
from trusis.play.cli import play_command
from trusis.stats.cli import stats_command
from trusis.table.game import replay
from trusis.table.result import result_document, result_text

app = typer.Typer(
    help="Trusis, the social-deduction game: replay records, score games, simulate tables.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Trusis, the social-deduction game: replay records, score games, simulate tables."""


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
        # Parsed here, not by typer, so that a bad value gets the one-line error of docs/record.md.
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
