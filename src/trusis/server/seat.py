"""Who holds a seat of a table: a person, a program or a bot."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

RoomStatus = Literal["open", "running", "finished", "expired"]
"""A table's status: open (its lobby), running (a game), finished, or expired (an open
table nobody came back to, closed by quota.py)."""
ROOM_STATUSES: tuple[RoomStatus, ...] = get_args(RoomStatus)


def room_status(value: object) -> RoomStatus:
    """`value` (read from another process or the store) as a status, or ValueError."""
    for status in ROOM_STATUSES:
        if value == status:
            return status
    raise ValueError(f"not a table status: {value!r}")

SeatKind = Literal["person", "program", "bot"]
"""Who holds a seat: a person (a browser), a program (a seat token), a bot of the server."""


@dataclass
class Seat:
    """Who holds a seat (names are public; the player id never leaves the server)."""

    kind: SeatKind
    name: str
    player_id: str | None = None
    bot_kind: str | None = None
