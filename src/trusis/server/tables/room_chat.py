"""What the room's chat does outside the game's record: the waiting room's public lines
(D45: kept in memory, sent to every connection, followed by the other processes) and a
moderator's hiding or showing again a line (D71), told to every connection, which then reads
the chat again as it may (`Room.reader`, `Room.waiting_lines`)."""

from __future__ import annotations

import time
from typing import Literal

from trusis.server.connections.frames import (
    LineHiddenFrame,
    WaitingChatFrame,
    WaitingLine,
    serialise,
)
from trusis.server.tables.room import Room
from trusis.table.hiding import Hide


def waiting_say(room: Room, seat: int, text: str) -> None:
    """A seat's public line in the waiting room (D45), cleaned and checked already
    (commands.py): kept among the last WAITING_CHAT_KEPT and sent to every client."""
    held = room.lobby.seats.get(seat)
    room.waiting_said += 1
    line = WaitingLine(seat=seat, name=held.name if held is not None else None,
                       text=text, t=time.time(), n=room.waiting_said)
    room.waiting_chat.append(line)
    _send_waiting(room, [line])
    room.peers.table_changed()  # the other processes' connections read it too


def follow_waiting(room: Room, lines: list[WaitingLine], said: int) -> None:
    """The writer's last waiting-room lines (a follower's copy): the new ones go out."""
    new = min(said - room.waiting_said, len(lines))
    if new <= 0:
        return
    room.waiting_chat.extend(lines[-new:])
    room.waiting_said = said
    _send_waiting(room, lines[-new:])


def _send_waiting(room: Room, lines: list[WaitingLine]) -> None:
    plain = None
    for client in list(room.clients):
        shown = room.waiting_lines(lines, client)
        if shown is lines:  # as everyone reads them: serialised once
            plain = plain or serialise(WaitingChatFrame(type="waiting_chat", lines=lines))
            client.send(plain)
        else:
            client.send(serialise(WaitingChatFrame(type="waiting_chat", lines=shown)))


def line_hidden(room: Room, place: Literal["game", "waiting"], number: int,
                hide: Hide | None) -> None:
    """A moderator hid a line (`hide`) or showed it again (None), here or on another
    process: every connection here is told (`line_hidden`), then reads the chat again as
    it may — a snapshot of the game, or the waiting room's lines (docs/protocol.md)."""
    hides = room.waiting_hides if place == "waiting" else room.hides
    hides.set(number, hide)
    frame = serialise(LineHiddenFrame(type="line_hidden", place=place,
                                      hidden=hide is not None))
    for client in list(room.clients):
        client.send(frame)
        if place == "waiting":
            lines = room.waiting_lines(list(room.waiting_chat), client)
            client.send(serialise(WaitingChatFrame(type="waiting_chat", lines=lines)))
        else:
            room.catch_up(client, None)
