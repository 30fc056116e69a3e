"""Who holds a seat of a table: a person, a program or a bot."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Literal, get_args

from trusis.rules.actions import REPLACE
from trusis.table.table import Table

RoomStatus = Literal["open", "running", "finished", "expired", "closed"]
"""A table's status: open (its lobby), running (a game), finished, expired (an open
table nobody came back to, closed by quota.py) or closed (by its host before the start,
D51: closing.py)."""
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


@dataclass(frozen=True)
class Reservation:
    """A seat kept for the player who held it at the end of the game before."""

    player_id: str
    kind: SeatKind
    name: str
    until: float


def live(reservation: Reservation | None, now: float | None = None) -> bool:
    """Whether a reservation still keeps its seat (D19: until it is taken, declined,
    released by the host, or its time is up)."""
    return reservation is not None and reservation.until > (time.time() if now is None else now)


def held_for_another(kept: dict[int, Reservation], seat: int, player_id: str | None) -> bool:
    """A free seat that someone else may still take back: nobody else may sit there."""
    reservation = kept.get(seat)
    return live(reservation) and (reservation is None or reservation.player_id != player_id)



def reserved_entry(reservation: Reservation, player_id: str | None) -> dict[str, Any]:
    """A kept seat as the lobby shows it: whose it is, until when (nothing once expired)."""
    if not live(reservation):
        return {}
    return {"kind": "reserved", "name": reservation.name, "until": reservation.until,
            "for_you": player_id is not None and reservation.player_id == player_id}


def taken_over_from(seats: dict[int, Seat]) -> set[str]:
    """The players whose seat a bot took over (R53): handover.py leaves their id on it
    (D29), so the stored seats say who they are (`LobbyState.former`, after a restart)."""
    return {s.player_id for s in seats.values() if s.kind == "bot" and s.player_id is not None}


def departed(table: Table | None, seat: int) -> bool:
    """D18: the seat's `leave` is in the record — it passes by itself, or a bot took it
    over (R53) — so it may change hands."""
    assert table is not None
    return table.state.left[seat] or table.state.bots[seat]  # bots: only by a `replace`


def handed_over(table: Table | None) -> set[int]:
    """The seats a `replace` handed over at some point (R53): a bot seat among them was not
    a bot's from the start, and the replay shows who held it at each step."""
    if table is None:
        return set()
    return {a.seat for a in table.record.actions if a.do == REPLACE and a.seat}


def hand_facts(table: Table | None, held: Seat, seat: int, quit: set[int], mine: bool,
               taken_over: set[int]) -> dict[str, Any]:
    """What the lobby's table tells of a seat's hands: `taken_over` (a bot only since a
    `replace`: the replay marks when), `departed` (public, R52: the host may link it, R53)
    and, for its own player, `yours_away` — "grace" comes back on opening the table (D29),
    "left" only through the host's link (D31)."""
    facts: dict[str, Any] = {}
    if seat in taken_over and held.kind == "bot":
        facts["taken_over"] = True
    if table is not None and table.state.running and departed(table, seat):
        facts["departed"] = True
        if mine:
            facts["yours_away"] = "left" if seat in quit else "grace"
    return facts
