"""Telling a rematch: the `rematch` frame to a finished table's clients, and the rematch
facts the owner of a table passes to the processes that follow it (cluster/follow.py),
so that a client connected anywhere hears of the rematch and sees the kept seats."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trusis.server.protocol import dumps
from trusis.server.rematch_db import Reservation

if TYPE_CHECKING:
    from trusis.server.room import Room


def rematch_frame(room: Room) -> bytes:
    """The `rematch` frame a client of the finished table gets (docs/protocol.md)."""
    data: dict[str, Any] = {"type": "rematch", "table": room.rematch, "previous": room.id}
    if room.options.private:
        data["invite"] = room.invite  # the rematch keeps the invite of the game before
    return dumps(data)


def tell_rematch(room: Room) -> None:
    """Every client of the finished table connected to this process learns of it."""
    for client in list(room.clients):
        client.send(rematch_frame(room))


def rematch_facts(room: Room) -> dict[str, Any]:
    """The owner's rematch facts of a table, for its followers."""
    return {"rematch": room.rematch,
            "reserved": {str(n): [r.player_id, r.kind, r.name, r.until]
                         for n, r in room.reserved.items()}}


def apply_rematch_facts(room: Room, data: dict[str, Any]) -> None:
    """A follower takes the owner's rematch facts: it tells its own clients of a new
    rematch, and shows the seats the owner keeps."""
    if "reserved" not in data:  # from an owner that does not know of rematches
        return
    reserved = {int(n): Reservation(*entry) for n, entry in data["reserved"].items()}
    news = data["rematch"] is not None and data["rematch"] != room.rematch
    if reserved == room.reserved and not news:
        return
    room.reserved = reserved
    room.rematch = data["rematch"]
    room.broadcast_table()
    if news:
        tell_rematch(room)
