"""What "Your games" says of one game to one of its players (issue 37, D64).

Its phase and deadline (public), whether the player's seat still has something to do in
it (it may pass: R11, R12), and how many chat lines reached the seat since its player's
last page of the table closed (`data/reads.py`): public lines of the others, and private
messages to the seat. All of it read from the seat's own stream and view, through the
table's per-seat reads (`Table.events_after`), so it says nothing that seat may not know —
not even whether two others whispered (R50).
"""

from __future__ import annotations

from typing import TypedDict

from trusis.server.tables.room import Room


class Phase(TypedDict):
    kind: str
    number: int


class Unread(TypedDict):
    chat: int
    private: int


class Yours(TypedDict):
    """The `yours` of each table of `GET /api/me/tables` (docs/protocol.md)."""

    seat: int | None
    phase: Phase | None
    deadline: float | None
    to_do: bool
    """The seat may still pass in this phase, and its player plays it (not a bot for them)."""
    unread: Unread
    reading: bool
    """A page of the player's is open at the table now: nothing there is unread."""


def yours(room: Room, player_id: str, read: int | None) -> Yours:
    """The player's side of `room`'s game; `read` is their read mark (None: none)."""
    lobby = room.lobby
    owned = lobby.owned_by(player_id)
    seat = owned[0] if owned else None
    host = room.host
    result = Yours(seat=seat, phase=None, deadline=None, to_do=False,
                   unread=Unread(chat=0, private=0), reading=False)
    if host is None or seat is None:
        return result
    table = host.table
    state = table.state
    if state.running:
        result["phase"] = Phase(kind=state.kind, number=state.number)
        result["deadline"] = host.deadline
        plays = lobby.seat_of(player_id) == seat  # not a bot's for them (D29)
        # R11: every living seat that has neither passed nor left may pass, and must.
        result["to_do"] = plays and state.alive[seat] and not state.passed[seat] \
            and not state.left[seat]
    result["reading"] = room.connected(seat)
    if result["reading"]:
        return result
    chat = private = 0
    for event in table.events_after(seat, read or 0):
        code, params = event["code"], event["params"]
        if code == "said" and params.get("seat") != seat:
            chat += 1
        elif code == "whispered" and params.get("to") == seat:
            private += 1
    result["unread"] = Unread(chat=chat, private=private)
    return result
