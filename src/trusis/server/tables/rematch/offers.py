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

`Rematches` runs each request on the process that owns the table it changes,
forwarded there like the lobby's other requests (hub.py `run_lobby`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Literal

from trusis.server.data.store import Player, Store, new_id
from trusis.server.errors import LobbyError
from trusis.server.players.names import refuse_lookalike
from trusis.server.tables.lobby_state import LobbyState
from trusis.server.tables.options import TableOptions
from trusis.server.tables.rematch.news import tell_rematch
from trusis.server.tables.rematch.seats import add_game, link_of, reserve
from trusis.server.tables.room import Room
from trusis.server.tables.seats import seat_changes
from trusis.server.tables.seats.seat import Reservation, Seat
from trusis.server.tables.seats.seating import free_number

RESERVE_SECONDS = 120.0
"""How long a rematch keeps each seat for the player who held it (D19)."""
HOST_FIRST_SECONDS = 60.0
"""After the end, how long only the host may propose the rematch (D19)."""
SLOW_RESERVE_SECONDS = 86400.0
"""At a slow table (D67) a kept seat waits a day: its players learn of the end by mail."""
SLOW_HOST_FIRST_SECONDS = 3600.0
"""... and its host has an hour to propose the rematch first (D67)."""


def reserve_seconds(options: TableOptions) -> float:
    return SLOW_RESERVE_SECONDS if options.slow else RESERVE_SECONDS


def host_first_seconds(options: TableOptions) -> float:
    return SLOW_HOST_FIRST_SECONDS if options.slow else HOST_FIRST_SECONDS

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
    wait = ended_at(room) + host_first_seconds(room.lobby.options) - now
    if wait > 0:
        raise LobbyError(403, "host_first", "the host may propose the rematch first",
                         seconds=int(wait) + 1)


class Rematches:
    """The rematch's requests on the tables this process writes. Given the store, the
    bots' pace, how a new table is opened here (`opened`: held and written by this
    process, hub.py) and what a finished game's room does (`on_finished`)."""

    def __init__(self, store: Store, pace: float, opened: Callable[[Room], Awaitable[None]],
                 on_finished: Callable[[Room], Awaitable[None]]) -> None:
        self.store = store
        self.pace = pace
        self.opened = opened
        self.on_finished = on_finished

    # -- run by the owner -------------------------------------------------------

    async def propose(self, room: Room, player: Player) -> str:
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
        asyncio.get_running_loop().call_later(reserve_seconds(room.lobby.options) + 0.5,
                                              new.broadcast_table)
        return new.id

    async def _new_table(self, old: Room, host: Player, now: float) -> Room:
        """The new table: same name, options and invite; bots seated, the rest kept."""
        table_id = new_id(10)
        lobby = LobbyState(host.id, host.name, old.lobby.options, old.lobby.invite)
        room = Room(table_id, old.name, lobby, self.store, self.pace,
                    on_finished=self.on_finished)
        room.lobby.previous = old.id
        await self.store.new_table(table_id, old.name, host.id, old.lobby.options.public(),
                                   old.lobby.invite, old.lobby.options.private)
        await self.opened(room)  # written where the game before was
        kept: dict[int, Reservation] = {}
        for number, held in sorted(old.lobby.seats.items()):
            if held.kind == "bot":
                await seat_changes.sit(room, number, Seat("bot", held.name, None, held.bot_kind))
            elif held.player_id == host.id:  # who proposes plays again, at once
                await seat_changes.sit(room, number, Seat(held.kind, host.name, host.id))
            elif held.player_id is not None:
                kept[number] = Reservation(held.player_id, held.kind, held.name,
                                           now + reserve_seconds(old.lobby.options))
        await reserve(self.store, table_id, kept)
        room.lobby.keep(kept)
        return room

    async def accept(self, room: Room, player: Player) -> int:
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
                number = free_number(room, None, player.id)
            # D40: while kept, the seat's name was taken; once it fell free, a look-alike
            # may have sat down first, and the late one is refused as anyone would be (D20).
            refuse_lookalike(player.name, room.lobby.names_beside(number, player.id))
            await seat_changes.let_go(room, mine)
            await seat_changes.sit(room, number, Seat(kind, player.name, player.id))
        room.broadcast_table()
        return number

    async def decline(self, room: Room, player: Player) -> None:
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


def kept_for(room: Room, player_id: str) -> bool:
    """Whether `room` keeps a seat for `player_id`: they may see the table, private or not,
    without its invite (they were at the game before)."""
    return room.lobby.kept_for(player_id)
