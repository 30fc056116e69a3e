"""Actions: what a seat, the timer or the server's staff ask the engine to do, as JSON.

`Action.from_dict` is the single parser of actions for records, the CLI and
(later) the server: a malformed action raises `RecordError` naming the field;
whether a well-formed action is *allowed* is the engine's business, not this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from trusis.rules.errors import RecordError, quoted
from trusis.rules.roles import ALL_POWERS

PASS: Final = "pass"
SAY: Final = "say"
LEAVE: Final = "leave"
REPLACE: Final = "replace"
BY_SERVER: Final = "server"
"""A `pass` with `by: "server"`: the server passed for a seat whose grace period ran out
(D50), so that its choices stand; the rules play it as any pass, the statistics do not
count it as the seat's own (docs/statistics.md)."""
TIMEOUT: Final = "timeout"
STAFF_DRAW: Final = "draw"  # D38: the server's staff end a stuck game as a draw
SEATLESS: Final = frozenset({TIMEOUT, STAFF_DRAW})
"""The actions no seat sends: the timer's (R12) and the server staff's (D38)."""

DOS: Final = frozenset(ALL_POWERS | {PASS, SAY, LEAVE, REPLACE, TIMEOUT, STAFF_DRAW})
TARGETED: Final = frozenset(ALL_POWERS)

_CHUNK: Final = 4096  # characters cleaned at a time when a long text has a limit


def _clean_part(part: str) -> str:
    """Every character that is not printable as a space (C-speed ops only)."""
    if part.isprintable():
        return part
    return part.translate({ord(c): " " for c in set(part) if not c.isprintable()})


def clean_line(raw: str, limit: int | None = None) -> str | None:
    """D9: line breaks, tabs and every other character that is not printable
    become spaces, runs of spaces one space, and the ends are trimmed — for chat
    messages and player names alike, so neither can pass for a line of its own.

    With `limit`, None when the cleaned text would be longer than `limit`
    characters: the text is cleaned a chunk at a time and given up as soon as it
    is too long, so a huge text costs neither its size in memory nor its time.
    """
    if limit is None or len(raw) <= _CHUNK:
        text = " ".join(_clean_part(raw).split())
        return None if limit is not None and len(text) > limit else text
    done = ""  # cleaned so far, with one trailing space if the raw text had one
    for start in range(0, len(raw), _CHUNK):
        part = done + _clean_part(raw[start:start + _CHUNK])
        done = " ".join(part.split())
        if limit is not None and len(done) > limit:
            return None
        if done and part[-1] == " ":
            done += " "
    return done.rstrip()


def clean_name(raw: object) -> str | None:
    """A player's name cleaned as D9 says, or None if it is not text or is empty once cleaned."""
    if type(raw) is not str:
        return None
    if raw.isprintable() and raw[:1] != " " != raw[-1:] and "  " not in raw:
        return raw or None  # already clean: the common case, without copying
    return clean_line(raw) or None


@dataclass(slots=True, unsafe_hash=True)
class Action:
    """One action. `target=None` on a choice power withdraws it (R13).

    A value: treat it as immutable (it hashes by its fields). It is not frozen
    because frozen dataclasses cost four times as much to create, and
    simulations create one per move.
    """

    do: str
    seat: int | None = None
    target: int | None = None
    shown: int | None = None
    text: str | None = None
    to: int | None = None
    by: str | None = None

    # Written out, not generated: mypyc compiles this one (see events.Event).
    def __init__(self, do: str, seat: int | None = None, target: int | None = None,
                 shown: int | None = None, text: str | None = None, to: int | None = None,
                 by: str | None = None) -> None:
        self.do = do
        self.seat = seat
        self.target = target
        self.shown = shown
        self.text = text
        self.to = to
        self.by = by

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Copies and pickles go through `__init__`: a compiled class (mypyc) cannot be
        made without its arguments, as `copy`'s default way would (`state.copy()`)."""
        return (Action, (self.do, self.seat, self.target, self.shown, self.text, self.to,
                         self.by))

    def to_dict(self) -> dict[str, Any]:
        """The record form: only the fields this `do` uses."""
        data: dict[str, Any] = {}
        if self.seat is not None:
            data["seat"] = self.seat
        data["do"] = self.do
        if self.do in TARGETED:
            data["target"] = self.target
        if self.do == "illusion" and self.shown is not None and self.target is not None:
            data["shown"] = self.shown
        if self.do == SAY:
            data["text"] = self.text
            if self.to is not None:
                data["to"] = self.to
        if self.do == REPLACE and self.by is not None:
            data["by"] = self.by
        if self.do == PASS and self.by == BY_SERVER:
            data["by"] = BY_SERVER  # D50: the server's pass for the seat, not its own
        return data

    @classmethod
    def from_dict(cls, data: Any, players: int, where: str = "action") -> Action:
        """Parse one record action for a table of `players` seats, or raise RecordError."""
        if not isinstance(data, dict):
            raise RecordError(where, "must be an object")
        do = data.get("do")
        if do is None:
            raise RecordError(f"{where}.do", "is missing")
        if not isinstance(do, str) or do not in DOS:
            raise RecordError(f"{where}.do", f"unknown action {quoted(do)}")

        def seat_field(name: str, required: bool, nullable: bool) -> int | None:
            if name not in data:
                if required:
                    raise RecordError(f"{where}.{name}", "is missing")
                return None
            value = data[name]
            if value is None and nullable:
                return None
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= players:
                allowed = " or null" if nullable else ""
                raise RecordError(
                    f"{where}.{name}", f"must be a seat number from 1 to {players}{allowed}"
                )
            return value

        seat = None if do in SEATLESS else seat_field("seat", True, False)
        target = shown = to = None
        text = by = None
        if do in TARGETED:
            target = seat_field("target", True, True)
            if do == "illusion":
                shown = seat_field("shown", target is not None, target is None)
        elif do == SAY:
            text = data.get("text")
            if not isinstance(text, str):
                raise RecordError(f"{where}.text", "must be a string")
            to = seat_field("to", False, True)
        elif do == PASS:
            by = BY_SERVER if data.get("by") == BY_SERVER else None
        elif do == REPLACE:
            # Read into an `object` first: `by` is `str | None`, and the compiled engine
            # checks that type when a record's `by` is a number (a TypeError, not this error).
            given: object = data.get("by")
            if given is not None:
                by = clean_name(given)  # D9, as the engine cleans it
                if by is None:
                    raise RecordError(f"{where}.by", 'must be "bot" or a non-empty name')
        # docs/record.md: any seat field present must name a seat, even one this `do` ignores.
        used = {"seat"} if do not in SEATLESS else set()
        used |= {"target"} if do in TARGETED else {"to"} if do == SAY else set()
        if do == "illusion":
            used.add("shown")
        for name in ("seat", "target", "shown", "to"):
            if name not in used:
                seat_field(name, False, True)
        return cls(do, seat, target, shown, text, to, by)
