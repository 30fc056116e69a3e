"""A lifted ban gives the waiting-room seat back (D72, issue 38).

A ban frees its player's seat in a waiting room (D36, banning.py). The ban may be a
mistake, lifted minutes later while the table still waits: the player expects to be
where they were, as a running game's seat comes back to them (D29). So the process that
frees such a seat remembers it (`Room.ban_freed`), and the lift gives it back when the
table still waits and nobody sat there meanwhile. When someone did, the player is not
put in another seat they did not choose: their table says which seat they lost
(`seat_lost`, to them only) until they choose one or the game starts. A program's seat is
not given back: the tokens a ban ended stay ended (D41). In memory, on the process that
owns the table, as `Room.absent` is: after a restart, or where another process of a
cluster owns the table, the seat stays free.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from trusis.server.errors import LobbyError
from trusis.server.players.names import refuse_lookalike
from trusis.server.tables.room import Room
from trusis.server.tables.seats import barred, seat_changes
from trusis.server.tables.seats.seat import Seat, held_for_another

log = logging.getLogger(__name__)


def remember(room: Room, player_id: str, number: int, held: Seat) -> None:
    """A ban freed `held`, the person's seat `number` of waiting `room`."""
    if held.kind == "person":
        room.ban_freed[player_id] = (number, held)
        room.ban_lost.pop(player_id, None)


async def give_back(rooms: Iterable[Room], player_id: str) -> None:
    """The ban of `player_id` was lifted: each seat a ban freed, back where it is free."""
    for room in [r for r in rooms if player_id in r.ban_freed]:
        try:
            await _give_back(room, player_id)
        except Exception:  # one table's trouble does not keep the others' seats
            log.exception("giving a seat back at table %s", room.id)


async def _give_back(room: Room, player_id: str) -> None:
    number, held = room.ban_freed.pop(player_id)
    if not room.owned or room.status != "open":
        return
    try:
        await barred.refuse_join(room.store, room, player_id)  # removed meanwhile (D34)
    except LobbyError:
        return
    async with room.lock:
        if room.status != "open" or room.lobby.seat_of(player_id) is not None:
            return
        taken = number in room.lobby.seats or held_for_another(room.lobby.reserved, number,
                                                                player_id)
        if not taken:
            try:  # someone of a look-alike name sat down meanwhile (D20)
                refuse_lookalike(held.name, room.lobby.names_beside(None, player_id))
            except LobbyError:
                taken = True
        if taken:
            room.ban_lost[player_id] = number
            return
        await seat_changes.sit(room, number, held)
    room.broadcast_table()

