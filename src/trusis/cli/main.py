"""The `trusis` command: replay records (and, as they land, stats and simulate)."""

from __future__ import annotations

from typing import Annotated

import typer

from trusis.cli.common import echo, json_text, read_record, seat_option
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
        str | None, typer.Option(
            "--as", help="Show only what this seat's client sees: a seat number or a name.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Play a game record and print where the game stands."""
    parsed = read_record(record)
    seat = None if as_seat is None else seat_option("--as", as_seat, parsed.players)
    doc = result_document(replay(parsed), seat)
    if as_json:
        echo(json_text(doc))
    else:
        echo(result_text(doc, parsed.players))


app.command("stats")(stats_command)
app.command("play")(play_command)
app.command("simulate")(simulate_command)


def main() -> None:
    """Entry point of the `trusis` console script."""
    app()
