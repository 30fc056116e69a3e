"""Changing one's name (D46, D47): the same player, a new name, wherever it is shown.

`PATCH /api/me` (me.py) never makes a new player: the player id, its sessions, its
seats, the tables it hosts and its account stay. The name is cleaned and checked as
every name is (D9, D20: names.py), then at each table where the player sits or which
they host, on the process that writes it (`Hub.run_lobby`, requests `RenameCheck` and
`Rename`):

- in a running game where the player holds a seat — played by them, or by a bot while
  they are away (D29) — the players know them by the name they were dealt, which the
  game's record keeps: renaming is refused (`rename_in_game`) until the game ends. A
  seat left on purpose (D31) does not count: its way back, the host's link, checks the
  name as for anyone (R53, D20).
- in a waiting room, the new name must not look like the name of another seat (or of
  a seat a rematch keeps for someone else, D40): `rename_confusable`. A bot with a
  look-alike name takes another, as when a person sits down (D20).

Every table is checked before any is changed, so a refusal changes nothing; then the
player's row (an account's login with it: D47), then each table: its seats' rows and
its host's name, and a `table` frame to everyone there. A table that refuses at that
point (someone with a look-alike name sat down in between) is put back as it was, with
the others and the player's row. Renames are bounded per player (`Renames`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from trusis.server.data.store import Player, Store
from trusis.server.errors import LobbyError
from trusis.server.limits.settings import PerAddress
from trusis.server.players.accounts import login_key
from trusis.server.players.names import look_alike
from trusis.server.tables.requests import LobbyRequest, LobbyResult, Rename, RenameCheck
from trusis.server.tables.room import Room
from trusis.server.tables.seats import seat_changes
from trusis.server.tables.seats.seat import Seat, live
from trusis.server.tables.seats.seating import Seating

Find = Callable[[str, str], Awaitable[Room]]
"""The table `table_id` as `player_id` may open it (the hub's `room`)."""
Ask = Callable[[Room, LobbyRequest], Awaitable[LobbyResult]]
"""Run a lobby request on a table's writer, here or forwarded (the owner's `lobby`)."""


log = logging.getLogger("trusis.server")

RENAME_WINDOW = 3600.0


class Renames:
    """How many times each player may change their name: a burst of `limit`, then one
    every hour / `limit` (this process's count, as every per-player limit: limits/settings.py)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.buckets = PerAddress(limit, RENAME_WINDOW)

    def take(self, player_id: str) -> None:
        wait = self.buckets.take(player_id)
        if wait:
            raise LobbyError(429, "too_many_renames", "you have changed your name many "
                             "times in the last hour: keep this one for a while",
                             limit=self.limit, retry_after=max(1, round(wait)))


def in_game(room: Room, seat: int) -> LobbyError:
    return LobbyError(409, "rename_in_game", f"you play seat {seat} at {room.name!r}, where "
                      "the players know you by your name: change it once that game has "
                      "ended", table=room.name, seat=seat)


def check(room: Room, player: Player, name: str) -> None:
    """Whether `player` may be called `name` at `room` (D46); under the room's lock."""
    lobby = room.lobby
    mine = sorted(n for n, s in lobby.seats.items() if s.player_id == player.id)
    if room.status == "running":
        playing = [n for n in mine if n not in lobby.quit]  # a bot's for them too (D29)
        if playing:
            raise in_game(room, playing[0])
    if room.status != "open" or not mine:
        return
    others = [s.name for s in lobby.seats.values()
              if s.player_id != player.id and s.kind != "bot"]  # bots give way (D20)
    others += [r.name for r in lobby.reserved.values()
               if live(r) and r.player_id != player.id]  # a kept seat's name is taken (D40)
    for other in others:
        if look_alike(name, other):  # both foldings, as for sitting down (D20)
            raise LobbyError(409, "rename_confusable", f"{name!r} looks too much like "
                             f"{other!r}, who sits at {room.name!r}: choose another name",
                             name=name, other=other, table=room.name)


async def rename_at(seating: Seating, room: Room, player: Player, name: str, apply: bool) -> None:
    """Check `name` at `room` and, if `apply`, rename the player there: their seats (a
    waiting room's), the host's name; everyone connected is told."""
    async with room.lock:
        check(room, player, name)
        if not apply:
            return
        lobby = room.lobby
        if room.status == "open":
            await seating.rename_bots_like(room, name)  # bots give way (D20)
            for number, held in sorted(lobby.seats.items()):
                if held.player_id == player.id and held.kind != "bot":
                    await seat_changes.sit(room, number, Seat(held.kind, name, player.id,
                                                              held.bot_kind))
        lobby.rename_host(player.id, name)
    room.broadcast_table()


async def tables_of(store: Store, player_id: str) -> list[str]:
    """The open and running tables where `player_id` holds a seat or which they host,
    oldest first."""
    return await store.rooms.live_tables_of(player_id)


async def _store_name(store: Store, player: Player, name: str) -> None:
    """The player's row: its name and, for an account, its login (D47)."""
    login = login_key(name) if player.kind == "account" else None
    if not await store.accounts.set_name(player.id, name, login):
        raise _taken(name)  # another account took the login meanwhile


def _taken(name: str) -> LobbyError:
    return LobbyError(409, "name_taken", f"the name {name!r} is taken", name=name)


async def _refuse_taken(store: Store, player: Player, name: str) -> None:
    """An account's name is its login (D47): no other account's, in any case."""
    if player.kind != "account":
        return
    if await store.accounts.login_taken(login_key(name), player.id):
        raise _taken(name)


async def rename(store: Store, find: Find, ask: Ask, renames: Renames, player: Player,
                 name: str) -> Player:
    """D46, D47: `player` is called `name` from now on (already cleaned as D9, D20 say)."""
    if name == player.name:
        return player
    renames.take(player.id)
    await _refuse_taken(store, player, name)
    rooms = []
    for table_id in await tables_of(store, player.id):
        try:
            rooms.append(await find(table_id, player.id))
        except LobbyError:  # closed or ended meanwhile: nothing to rename there
            continue
    for room in rooms:  # every table first: a refusal changes nothing
        await ask(room, RenameCheck(player, name))
    await _store_name(store, player, name)
    renamed = Player(player.id, name, player.kind)
    done: list[Room] = []
    try:
        for room in rooms:
            await ask(room, Rename(player, name))
            done.append(room)
    except LobbyError:  # changed in between: everything back as it was
        for room in done:
            try:
                await ask(room, Rename(renamed, player.name))
            except LobbyError:
                log.warning("table %s: %s's old name could not be put back", room.id,
                            player.id)
        await _store_name(store, renamed, player.name)
        raise
    return renamed
