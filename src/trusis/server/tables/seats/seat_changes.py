"""The one path by which a seat changes hands: its stored row, the lobby, the bot driver.

`LobbyState` (lobby_state.py) is the one place that says who holds each seat; what
follows from it — the seat's row in the store, which seats the bot driver (botplay.py)
plays, and which seat each connection plays — follows here, in this order: the row first,
under the room's lock and its lease's fence, so that a write that fails changes nothing in
memory; then the lobby; then the bot driver, or before the start the connections (a page
changes seats on the socket it has: it does not reconnect). Lobby requests (seating.py,
tables/rematch/offers.py), banning (banning.py) and the hand-overs of R53 (handover.py)
change seats only through these functions; a restore (restore.py) and a follower
(cluster/replica.py) read every seat back at once with `LobbyState.replace_all`, and the
engine's names come from `LobbyState.names` at the start and change by its `replace` action
afterwards.
"""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING

from trusis.bots.registry import create_bot
from trusis.server.tables.rematch.seats import release
from trusis.server.tables.seats.seat import Seat, SeatKind

if TYPE_CHECKING:
    from trusis.server.tables.room import Room


async def sit(room: Room, number: int, held: Seat) -> None:
    """Before the start: `held` (a person, a program, a bot) takes seat `number`; a
    connection of its player's plays it from now on (`Room.reseat`)."""
    await room.store.set_seat(room.id, number, held.kind, held.name, held.player_id,
                              held.bot_kind, room.fence)
    room.lobby.sit(number, held)
    room.reseat()


async def free(room: Room, number: int) -> None:
    """Before the start: seat `number` is empty again; its player's connections watch."""
    await room.store.free_seat(room.id, number, room.fence)
    room.lobby.free(number)
    room.reseat()


async def let_go(room: Room, numbers: list[int]) -> None:
    """Seats a rematch kept (D19) are free for anyone now: their rows, then the lobby."""
    for number in numbers:
        await release(room.store, room.id, number, room.fence)
        room.lobby.unkeep(number)


async def to_bot(room: Room, seat: int, name: str, kind: str) -> None:
    """R53 (under the room's lock, its `replace` stored): a bot plays the seat from now on;
    it stays its player's (D29), who watches now."""
    await room.store.set_bot_seat(room.id, seat, kind, name, room.fence)
    room.lobby.to_bot(seat, name, kind)
    if room.host is not None and room.host.bots is not None:
        room.host.bots.seat(seat, create_bot(kind, seat, secrets.randbits(31),
                                             room.lobby.options.lang), time.time())


async def to_person(room: Room, seat: int, kind: SeatKind, name: str, player_id: str) -> None:
    """R53, D29 (under the room's lock, its `replace` stored): a person or a program takes
    a departed seat; the bot that played it stops."""
    await room.store.set_person_seat(room.id, seat, player_id, name, room.fence, kind)
    room.lobby.to_person(seat, kind, name, player_id)
    if room.host is not None and room.host.bots is not None:
        room.host.bots.unseat(seat)
