"""What every `trusis` subcommand shares: one-line errors and reading a record."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import typer

from trusis.rules.errors import RecordError
from trusis.table.record import Record, load_record


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
