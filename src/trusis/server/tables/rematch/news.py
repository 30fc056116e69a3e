"""Telling a rematch: the `rematch` frame to a finished table's clients (a follower
tells its own when the owner's facts say so: cluster/replica.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from trusis.server.connections.frames import FrameBytes, RematchFrame, serialise

if TYPE_CHECKING:
    from trusis.server.tables.room import Room


def rematch_frame(room: Room) -> FrameBytes:
    """The `rematch` frame a client of the finished table gets (docs/protocol.md)."""
    assert room.lobby.rematch is not None  # told once the rematch is proposed
    frame = RematchFrame(type="rematch", table=room.lobby.rematch, previous=room.id)
    if room.lobby.options.private:
        frame["invite"] = room.lobby.invite  # the rematch keeps the invite of the game before
    return serialise(frame)


def tell_rematch(room: Room) -> None:
    """Every client of the finished table connected to this process learns of it."""
    for client in list(room.clients):
        client.send(rematch_frame(room))
