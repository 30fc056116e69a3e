"""`trusis play`: one person plays a whole game of Trusis in the terminal against bots."""

from __future__ import annotations

import getpass
import os
import sys
import unicodedata
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
    seed_given = seed is not None
    if seed is None:
        seed = new_seed()  # secret: it would give away the whole deal
    table_seed = new_seed()  # the seat and the bots' names: independent of the deal
    if seat is None:
        seat = draw_seat(players, table_seed)
    if not 1 <= seat <= players:
        raise OptionError("--seat", f"there is no seat {seat} at a table of {players}")
    custom = parse_set(table_set)  # the parser of `trusis simulate`, exits 2 when malformed
    check_set(players, seed, custom, lang)
    try:
        bot_factory(bots)
    except UnknownBot:
        raise OptionError("--bots", f"unknown kind {bots!r}; available: "
                          f"{', '.join(available_kinds())}") from None
    name = clean_name(name or "")[:40].strip() or default_name(lang)
    if delay is None:
        delay = INTERACTIVE_DELAY if interactive else 0.0
    if delay < 0:
        raise OptionError("--delay", "must be 0 or more seconds")
    overwrite = check_record(record)
    return PlayOptions(players, seat, seed, custom, bots, lang, name, record, delay, color,
                       table_seed=table_seed, seed_given=seed_given, overwrite=overwrite)


def clean_name(name: str) -> str:
    """D9: control characters and line breaks become spaces, then the name is trimmed."""
    return "".join(" " if unicodedata.category(c).startswith("C") else c for c in name).strip()


def check_record(record: Path | None) -> bool:
    """`--record` before the game starts, not after it: a file can be written there.
    Returns whether a file is already there (the caller asks before replacing it)."""
    if record is None:
        return False
    if record.is_dir():
        raise OptionError("--record", f"{record} is a folder; give the name of a file")
    folder = record.parent
    if not folder.is_dir():
        raise OptionError("--record", f"there is no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise OptionError("--record", f"cannot write in {folder}")
    if record.exists():
        if not record.is_file() or not os.access(record, os.W_OK):
            raise OptionError("--record", f"cannot write {record}")
        return True
    return False


def play_command(
    players: Annotated[int, typer.Option("--players", help="Seats at the table, 5 to 30.")] = 8,
    seat: Annotated[
        int | None, typer.Option("--seat", help="Your seat (default: drawn from the seed).")
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed of the deal, for a game that can be "
                                 "played again (default: a secret one, never shown).")
    ] = None,
    table_set: Annotated[
        str, typer.Option("--set", help="standard, or custom:ROLE=COUNT,... (e.g. "
                          "custom:TRUSIS=2,SWEEPER=1,PRIEST=1).")
    ] = "standard",
    bots: Annotated[
        str, typer.Option("--bots", help="Bot kind: normal, easy, heuristic, random, or a "
                          "plug-in.")
    ] = "normal",
    lang: Annotated[str, typer.Option("--lang", help="Language: en, fr or it.")] = "en",
    name: Annotated[str | None, typer.Option("--name", help="Your name at the table.")] = None,
    record: Annotated[
        Path | None, typer.Option("--record", help="Save the game's record to this file "
                                  "(at the end, and on quit or Ctrl-C); checked before the "
                                  "game, and an existing file is replaced only if you agree.")
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
    console = Console(no_color=no_color, highlight=False)
    if options.overwrite and options.record is not None:
        question = render("play.confirm.overwrite", {"path": str(options.record)}, lang)
        if not interactive:
            _fail(f"--record: {options.record} already exists; remove it or choose another file")
        if not typer.confirm(question, default=False):
            _fail(f"--record: {options.record} already exists and was kept; "
                  "choose another file")
    session = Session(options, console, KeyboardTerminal(console))
    raise typer.Exit(session.run())
