"""What every `trusis` subcommand shares: one-line errors and reading a record."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer

from trusis.rules.actions import clean_line
from trusis.rules.errors import RecordError, escaped, quoted
from trusis.table.record import Record, load_record


def fail(message: str) -> NoReturn:
    """A one-line error on standard error, nothing on standard output, exit 2."""
    typer.echo(f"error: {escaped(message)}", err=True)
    raise typer.Exit(2)


def printable(text: str) -> str:
    """`text` as standard output can encode it: a lone surrogate ("Ann\\ud800", valid
    JSON) or a character outside the terminal's encoding becomes its escape."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return text.encode(encoding, "backslashreplace").decode(encoding, "replace")
    return text


def finite(data: Any) -> Any:
    """`data` with every infinite or NaN float as None, for strict JSON."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [finite(v) for v in data]
    return data


def json_text(doc: Any) -> str:
    """`doc` as one strict JSON document (RFC 8259: no Infinity or NaN, which become
    null), UTF-8 where standard output takes it and \\u escapes where it does not."""
    try:
        text = json.dumps(doc, ensure_ascii=False, allow_nan=False)
    except ValueError:
        text = json.dumps(finite(doc), ensure_ascii=False, allow_nan=False)
    if printable(text) is not text:
        text = json.dumps(finite(doc), ensure_ascii=True, allow_nan=False)
    return text


def echo(text: str) -> None:
    """Print `text` on standard output, whatever characters it holds."""
    typer.echo(printable(text))


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


def seat_option(option: str, value: str, names: list[str]) -> int:
    """A seat given on the command line (`replay --as`): a seat number in ASCII digits,
    or a name as `trusis play` takes them — the whole name or its unique beginning,
    in any case. Checked here, not by typer, so that a bad value gets the one-line
    error of docs/record.md (exit 2)."""
    players = len(names)
    token = clean_line(value) or ""
    if token.startswith("#"):
        token = token[1:]
    # ASCII only: "²".isdigit() is true and int("３") is 3, yet neither is a seat
    # number; and short, so that int() never meets a 5,000-digit value.
    if token.isascii() and token.isdigit():
        seat = int(token) if len(token) <= 3 else 0
        if 1 <= seat <= players:
            return seat
        fail(f"{option}: there is no seat {quoted(value)} at this table (seats 1 to {players})")
    lowered = token.casefold()
    exact = [s for s, n in enumerate(names, 1) if n.casefold() == lowered]
    starts = [s for s, n in enumerate(names, 1) if n.casefold().startswith(lowered)]
    found = exact if len(exact) == 1 else starts if token else []
    if len(found) == 1:
        return found[0]
    if found:
        choices = ", ".join(f"{s} ({quoted(names[s - 1])})" for s in found[:6])
        fail(f"{option}: {quoted(value)} could be seat {choices}: give the seat number")
    fail(f"{option}: there is no seat or player {quoted(value)} at this table "
         f"(seats 1 to {players}, or a player's name)")
