"""The `trusis` command: play, replay records, score games, simulate tables."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Annotated

import typer

from trusis.cli.admin import admin
from trusis.cli.common import echo, json_text, read_record, seat_option
from trusis.cli.stats import stats_command
from trusis.lab.cli import simulate_command
from trusis.play.cli import play_command
from trusis.server.cli import serve_command
from trusis.table.game import replay
from trusis.table.result import result_document, result_text

DESCRIPTION = ("Trusis, the social-deduction game: play a game in the terminal against bots, "
               "replay records, score games, simulate tables.")

app = typer.Typer(
    help=DESCRIPTION,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def package_version() -> str:
    """The installed version of Trusis."""
    try:
        return version("trusis")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"trusis {package_version()}")
        raise typer.Exit()


@app.callback()
def _root(
    _version: Annotated[
        bool, typer.Option("--version", callback=_show_version, is_eager=True,
                           help="Print the version and exit.")
    ] = False,
) -> None:
    """Trusis, the social-deduction game: play a game in the terminal against bots, replay
    records, score games, simulate tables."""


app.command("play")(play_command)  # first: what a newcomer is looking for
app.command("serve")(serve_command)
app.add_typer(admin, name="admin")


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
app.command("simulate")(simulate_command)


def main() -> None:
    """Entry point of the `trusis` console script."""
    app()
