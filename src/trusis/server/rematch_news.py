"""Telling a rematch: the `rematch` frame to a finished table's clients (a follower
tells its own when the owner's facts say so: cluster/replica.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trusis.server.protocol import dumps

if TYPE_CHECKING:
    from trusis.server.room import Room


def rematch_frame(room: Room) -> bytes:
    """The `rematch` frame a client of the finished table gets (docs/protocol.md)."""
    data: dict[str, Any] = {"type": "rematch", "table": room.lobby.rematch, "previous": room.id}
    if room.lobby.options.private:
        data["invite"] = room.lobby.invite  # the rematch keeps the invite of the game before
    return dumps(data)


def tell_rematch(room: Room) -> None:
    """Every client of the finished table connected to this process learns of it."""
    for client in list(room.clients):
        client.send(rematch_frame(room))
