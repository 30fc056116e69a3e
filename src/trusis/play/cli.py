"""`trusis play`: one person plays a whole game of Trusis in the terminal against bots."""

from __future__ import annotations

import getpass
import os
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console

from trusis.bots.registry import UnknownBot, available_kinds, bot_factory
from trusis.lab.cli import parse_set
from trusis.play.options import (
    OptionError,
    PlayOptions,
    check_players,
    check_set,
    draw_seat,
    new_seed,
)
from trusis.play.session import Session
from trusis.play.terminal import KeyboardTerminal
from trusis.rules.i18n import LANGUAGES, render

INTERACTIVE_DELAY = 1.5
"""Seconds between watched phases when a person is at the keyboard (0 otherwise)."""


def _fail(message: str) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def default_name(lang: str) -> str:
    """The login name when it looks like a first name, else "Player" in the player's language."""
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        login = ""
    if login.isalpha() and 2 <= len(login) <= 16 and login.lower() not in ("root", "user"):
        return login.capitalize()
    return render("play.default_name", {}, lang)


def build_options(players: int, seat: int | None, seed: int | None, table_set: str,
                  bots: str, lang: str, name: str | None, record: Path | None,
                  delay: float | None, color: bool, interactive: bool) -> PlayOptions:
    """Check the options and fill in what the seed decides; raises `OptionError`."""
    check_players(players)
    if lang not in LANGUAGES:
        raise OptionError("--lang", f"must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    if seed is None:
        seed = new_seed()
    if seat is None:
        seat = draw_seat(players, seed)
    if not 1 <= seat <= players:
        raise OptionError("--seat", f"there is no seat {seat} at a table of {players}")
    custom = parse_set(table_set)  # the parser of `trusis simulate`, exits 2 when malformed
    check_set(players, seed, custom, lang)
    try:
        bot_factory(bots)
    except UnknownBot:
        raise OptionError("--bots", f"unknown kind {bots!r}; available: "
                          f"{', '.join(available_kinds())}") from None
    name = (name or "").strip() or default_name(lang)
    if delay is None:
        delay = INTERACTIVE_DELAY if interactive else 0.0
    if delay < 0:
        raise OptionError("--delay", "must be 0 or more seconds")
    return PlayOptions(players, seat, seed, custom, bots, lang, name[:40], record, delay, color)


def play_command(
    players: Annotated[int, typer.Option("--players", help="Seats at the table, 5 to 30.")] = 8,
    seat: Annotated[
        int | None, typer.Option("--seat", help="Your seat (default: drawn from the seed).")
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed of the deal (default: a fresh one).")
    ] = None,
    table_set: Annotated[
        str, typer.Option("--set", help="standard, or custom:ROLE=COUNT,... (e.g. "
                          "custom:TRUSIS=2,SWEEPER=1,PRIEST=1).")
    ] = "standard",
    bots: Annotated[
        str, typer.Option("--bots", help="Bot kind: heuristic, random, or a plug-in.")
    ] = "heuristic",
    lang: Annotated[str, typer.Option("--lang", help="Language: en, fr or it.")] = "en",
    name: Annotated[str | None, typer.Option("--name", help="Your name at the table.")] = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Save the game's record to this file "
                                  "(at the end, and on quit or Ctrl-C).")
    ] = None,
    delay: Annotated[
        float | None, typer.Option("--delay", help="Seconds between phases while you watch "
                                   "(default 1.5 at a terminal, 0 otherwise).")
    ] = None,
    no_color: Annotated[bool, typer.Option("--no-color", help="No colours.")] = False,
) -> None:
    """Play a game of Trusis in the terminal against bots."""
    interactive = sys.stdin.isatty()
    try:
        options = build_options(players, seat, seed, table_set, bots, lang, name, record,
                                delay, not no_color, interactive)
    except OptionError as err:
        _fail(str(err))
    if record is not None and not os.access(record.parent, os.W_OK):
        _fail(f"--record: cannot write in {record.parent}")
    console = Console(no_color=no_color, highlight=False)
    session = Session(options, console, KeyboardTerminal(console))
    raise typer.Exit(session.run())
