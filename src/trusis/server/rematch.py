"""Play again (issue 21; docs/rules.md D19): a rematch of a finished game.

The host of a finished game (or, once the host has let `HOST_FIRST_SECONDS` go
by, anyone who held a seat at the end) proposes a rematch: a new open table
with the same name, options, set and invite, whose bots keep their seats and
whose other seats are *kept* for the person or program that held them at the end
(`RESERVE_SECONDS`), each of whom joins with one request or declines. The
finished table's clients are told in a `rematch` frame; its lobby facts name the
new table (`rematch`). A program accepts with the seat token of its old seat and
gets a new seat token for the new seat: that is the one thing an old seat token
may do besides playing its seat (docs/protocol.md).

These are `Hub` methods (a mixin): each runs on the process that owns the table
it changes, forwarded there like the lobby's other requests (hub.py).
"""

from __future__ import annotations

import asyncio
import time
from typing import Literal

from trusis.server import seat_changes
from trusis.server.errors import LobbyError
from trusis.server.lobby_state import LobbyState
from trusis.server.names import refuse_lookalike
from trusis.server.owner import Owner
from trusis.server.rematch_db import add_game, link_of, reserve
from trusis.server.rematch_news import tell_rematch
from trusis.server.requests import LobbyRequest, LobbyResult, seat_number, text
from trusis.server.room import Room
from trusis.server.seat import Reservation, Seat
from trusis.server.seating import Seating
from trusis.server.store import Player, new_id

RESERVE_SECONDS = 120.0
"""How long a rematch keeps each seat for the player who held it (D19)."""
HOST_FIRST_SECONDS = 60.0
"""After the end, how long only the host may propose the rematch (D19)."""

Answer = Literal["accept", "decline"]


def ended_at(room: Room) -> float:
    """When the game ended: the time of its last action."""
    assert room.host is not None
    times = [t for t in room.host.table.record.times if t is not None]
    return times[-1] if times else 0.0


def may_propose(room: Room, player: Player, now: float) -> None:
    """D19: the host at once; a seat's holder once the host has had its minute."""
    if room.status != "finished" or room.host is None:
        raise LobbyError(409, "not_finished", "a rematch is proposed once the game has ended")
    if player.id == room.lobby.host_id:
        return
    if room.lobby.seat_of(player.id) is None:
        raise LobbyError(403, "not_host", "only the table's host can do this")
    wait = ended_at(room) + HOST_FIRST_SECONDS - now
    if wait > 0:
        raise LobbyError(403, "host_first", "the host may propose the rematch first",
                         seconds=int(wait) + 1)


class Rematches(Seating):
    """The rematch requests (a part of `Hub`)."""

    rooms: dict[str, Room]
    pace: float
    owner: Owner

    async def finished_game(self, room: Room) -> None:
        raise NotImplementedError  # Hub's

    async def _on_owner(self, room: Room, request: LobbyRequest) -> LobbyResult:
        raise NotImplementedError  # Hub's

    # -- run by the owner -------------------------------------------------------

    async def _rematch(self, room: Room, player: Player) -> str:
        """Propose the rematch of `room` (finished): the new table's id. Proposing again
        (a second click, someone else) finds the same table."""
        now = time.time()
        async with room.lock:
            if room.lobby.rematch is not None:
                return room.lobby.rematch
            may_propose(room, player, now)
            before = await link_of(self.store, room.id)
            if before is not None and before.next_id is not None:
                room.lobby.rematch = before.next_id
                return room.lobby.rematch
            new = await self._new_table(room, player, now)
            await add_game(self.store, before, room.id, new.id)
            room.lobby.rematch = new.id
        room.broadcast_table()
        tell_rematch(room)
        # The kept seats fall free by themselves: the lobby is told when they do.
        asyncio.get_running_loop().call_later(RESERVE_SECONDS + 0.5, new.broadcast_table)
        return new.id

    async def _new_table(self, old: Room, host: Player, now: float) -> Room:
        """The new table: same name, options and invite; bots seated, the rest kept."""
        table_id = new_id(10)
        lobby = LobbyState(host.id, host.name, old.lobby.options, old.lobby.invite)
        room = Room(table_id, old.name, lobby, self.store, self.pace,
                    on_finished=self.finished_game)
        room.lobby.previous = old.id
        await self.store.new_table(table_id, old.name, host.id, old.lobby.options.public(),
                                   old.lobby.invite, old.lobby.options.private)
        await self.owner.created(room)  # written where the game before was
        kept: dict[int, Reservation] = {}
        for number, held in sorted(old.lobby.seats.items()):
            if held.kind == "bot":
                await seat_changes.sit(room, number, Seat("bot", held.name, None, held.bot_kind))
            elif held.player_id == host.id:  # who proposes plays again, at once
                await seat_changes.sit(room, number, Seat(held.kind, host.name, host.id))
            elif held.player_id is not None:
                kept[number] = Reservation(held.player_id, held.kind, held.name,
                                           now + RESERVE_SECONDS)
        await reserve(self.store, table_id, kept)
        room.lobby.keep(kept)
        self.rooms[table_id] = room
        return room

    async def _rematch_accept(self, room: Room, player: Player) -> int:
        """The kept seat's player takes it (or, once it fell free and went to someone
        else, the first free seat): the seat number."""
        async with room.lock:
            if room.status != "open":
                raise LobbyError(409, "already_started", "the game has already started")
            current = room.lobby.seat_of(player.id)
            if current is not None:
                return current  # accepted already: the same answer
            mine = room.lobby.kept_seats(player.id)
            if not mine:
                raise LobbyError(404, "no_reservation", "no seat is kept for you at this table")
            number = mine[0]
            kind = room.lobby.reserved[number].kind
            if number in room.lobby.seats:  # it fell free and someone took it
                number = self._free_number(room, None, player.id)
            # D40: while kept, the seat's name was taken; once it fell free, a look-alike
            # may have sat down first, and the late one is refused as anyone would be (D20).
            refuse_lookalike(player.name, room.lobby.names_beside(number, player.id))
            await seat_changes.let_go(room, mine)
            await seat_changes.sit(room, number, Seat(kind, player.name, player.id))
        room.broadcast_table()
        return number

    async def _rematch_decline(self, room: Room, player: Player) -> None:
        """Not this time: the kept seat is free for anyone at once (or, once seated,
        the seat is left, as "Leave seat" does)."""
        async with room.lock:
            if room.status != "open":
                raise LobbyError(409, "already_started", "the game has already started")
            mine = room.lobby.kept_seats(player.id)
            await seat_changes.let_go(room, mine)
            current = room.lobby.seat_of(player.id)
            if current is not None:
                await seat_changes.free(room, current)
            elif not mine:
                raise LobbyError(404, "no_reservation", "no seat is kept for you at this table")
        room.broadcast_table()

    # -- to the owner -----------------------------------------------------------

    async def propose_rematch(self, room: Room, player: Player) -> str:
        return text(await self._on_owner(room, LobbyRequest("rematch", player)))

    async def answer_rematch(self, room: Room, player: Player, answer: Answer) -> int | None:
        if answer == "accept":
            return seat_number(await self._on_owner(room, LobbyRequest("rematch_accept", player)))
        await self._on_owner(room, LobbyRequest("rematch_decline", player))
        return None



def kept_for(room: Room, player_id: str) -> bool:
    """Whether `room` keeps a seat for `player_id`: they may see the table, private or not,
    without its invite (they were at the game before)."""
    return room.lobby.kept_for(player_id)
