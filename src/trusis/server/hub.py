"""The server's tables: creating them, seating people and bots, starting games.

The hub owns the rooms of one process. Open and running tables live in memory
(and in the store, which is the truth after a restart); a finished table is
read back from the store when someone opens its end screen.
"""

from __future__ import annotations

import asyncio
import secrets

from trusis.bots.registry import available_kinds
from trusis.rules.actions import SAY
from trusis.rules.errors import SetupError
from trusis.server.answers import CommandAnswer
from trusis.server.banning import unseat_banned
from trusis.server.clients import Client
from trusis.server.closing import close_on_owner, gone
from trusis.server.errors import LobbyError
from trusis.server.history import record_finished
from trusis.server.limits import Limits
from trusis.server.lobby_state import LobbyState
from trusis.server.options import TableOptions
from trusis.server.owner import CommandRequest, LocalOwner, Owner
from trusis.server.personal import DELETED_NAME
from trusis.server.protocol import ActionIn, dumps
from trusis.server.records import record_of
from trusis.server.rematch import Rematches, kept_for
from trusis.server.renaming import rename_at
from trusis.server.requests import LobbyRequest, LobbyResult, Revoked, seat_number, text
from trusis.server.restore import load_room
from trusis.server.room import Room
from trusis.server.sanctions import WarningFacts
from trusis.server.seating import setup_refusal
from trusis.server.store import Player, Store, new_id
from trusis.server.stuck import end_on_owner
from trusis.table.record import Record

FINISHED_KEPT_SECONDS = 600.0
"""How long a finished room stays in memory after its end, while it may still be watched."""
FINISHED_CACHED = 200
"""Finished tables read back from the store and kept for their end screens."""


SIGNED_OUT = 4401
"""The close code of a connection whose session ended (docs/protocol.md)."""
BANNED = 4423
"""The close code of a banned player's connection, after a `banned` frame that says the
ban's end and reason (docs/protocol.md, D53): not a sign-out's, which asks for a name."""


def banned_frame(until: float | None, reason: str) -> bytes:
    """What a banned player's connection hears before it closes with `BANNED`."""
    return dumps({"type": "banned", "until": until, "reason": reason})


class Hub(Rematches):  # the lobby's requests (seating.py) and the rematch's (rematch.py)
    def __init__(self, store: Store, pace: float = 1.0, limits: Limits | None = None) -> None:
        self.store = store
        self.pace = pace
        self.limits = limits or Limits()
        self.rooms: dict[str, Room] = {}
        self.finished: dict[str, Room] = {}
        self.lock = asyncio.Lock()
        self.owner: Owner = LocalOwner(self)
        """Where each game's writer is (owner.py): here, or with `--redis` wherever its
        lease is (cluster/owner.py, set by app.py before `restore`)."""

    async def revoked(self, revoked: Revoked) -> None:
        """Tokens were revoked here: close their connections here and on every process."""
        self.close_revoked(revoked)
        await self.owner.tell_revoked(revoked)

    async def warned(self, player_id: str, warning: WarningFacts) -> None:
        """A moderator warned `player_id`: their connections here and on every process are
        told at once (a `warning` frame), as the page shows one it loads (D53)."""
        self.tell_warning(player_id, warning)
        await self.owner.tell_warned(player_id, warning)

    def tell_warning(self, player_id: str, warning: WarningFacts) -> None:
        """Send the `warning` frame to this process's connections of `player_id`."""
        frame = dumps({"type": "warning", **warning})
        for client in self._clients_of(player_id):
            client.send(frame)

    def close_revoked(self, revoked: Revoked) -> None:
        """Close this process's connections opened with revoked tokens: 4401, or for a ban
        `BANNED` after a `banned` frame (its end and reason, D53)."""
        ban = revoked.get("ban", False)
        told = banned_frame(revoked.get("until"), revoked.get("reason", "")) if ban else b""
        if revoked.get("deleted"):  # its seats show the name its stored rows have now
            for room in (*self.rooms.values(), *self.finished.values()):
                room.lobby.rename(revoked["player"], DELETED_NAME)
            self.finished.clear()
        for client in self._clients_of(revoked["player"]):
            if revoked["family"] is not None and client.family != revoked["family"]:
                continue
            if revoked["keep"] is not None and client.family == revoked["keep"]:
                continue
            if ban:
                client.send(told)
                client.shut(BANNED, "banned")
            else:
                client.shut(SIGNED_OUT, "signed out")
        if ban or revoked.get("deleted"):  # D36; a deleted account's seats go the same way (D53)
            unseat_banned(self.rooms.values(), revoked["player"])

    def people_here(self) -> set[str]:
        """Every player this process serves: connected here, or seated as a person (or a
        program) at an open or running table it writes (deletions.py asks which of them
        are deleted)."""
        found = {c.player_id for room in (*self.rooms.values(), *self.finished.values())
                 for c in room.clients}
        for room in self.rooms.values():
            if room.owned and room.status in ("open", "running"):
                found.update(s.player_id for s in room.lobby.seats.values()
                             if s.player_id is not None and s.kind != "bot")
        return found

    def _clients_of(self, player_id: str) -> list[Client]:
        """This process's connections of `player_id`, at every table it holds."""
        rooms = {id(r): r for r in (*self.rooms.values(), *self.finished.values())}
        return [c for room in rooms.values() for c in room.clients if c.player_id == player_id]

    def adopt(self, room: Room) -> None:
        """A room read back from the store, now held by this process."""
        room.pace = self.pace
        room.on_finished = self.finished_game

    async def restore(self) -> None:
        """Take charge of the stored open and running tables; running games carry on
        (timers included)."""
        await self.owner.start()

    async def close(self) -> None:
        for room in self.rooms.values():
            if room.host is not None:
                await room.host.stop()
        await self.owner.close()

    # -- finding tables -------------------------------------------------------

    async def public(self) -> list[Room]:
        """The public open and running tables (with several processes: every process's)."""
        return await self.owner.listed()

    async def room(self, table_id: str, player_id: str | None = None,
                   invite: str | None = None) -> Room:
        """The table, if the caller may see it: public, or private with its invite link,
        or private and the caller is its host or has a seat."""
        room = self.rooms.get(table_id) or self.finished.get(table_id)
        if room is None:
            row = await self.store.table_row(table_id)
            if row is None:
                raise LobbyError(404, "no_such_table", f"there is no table {table_id!r}")
            refusal = gone(row)  # expired (quota.py), or closed by its host (D51)
            if refusal is not None:
                raise refusal
            room = await self.owner.open(row)  # held here from now on (several processes)
            if room is not None and room.status == "finished":
                asyncio.get_running_loop().call_later(FINISHED_KEPT_SECONDS, self._evict,
                                                      table_id)
        if room is None:
            assert row is not None
            room = await load_room(self.store, row, self.pace)
            self.finished[table_id] = room
            while len(self.finished) > FINISHED_CACHED:  # the oldest read first
                self.finished.pop(next(iter(self.finished)))
        if room.lobby.options.private and not (
            (invite is not None and secrets.compare_digest(invite, room.lobby.invite))
            or player_id == room.lobby.host_id
            or (player_id is not None and any(s.player_id == player_id
                                              for s in room.lobby.seats.values()))  # D29
            or (player_id is not None and kept_for(room, player_id))  # a rematch's seat
        ):
            raise LobbyError(404, "no_such_table", f"there is no table {table_id!r}")
        return room

    # -- the lobby ------------------------------------------------------------

    async def create(self, host: Player, name: str, options: TableOptions) -> Room:
        try:
            options.check()
        except SetupError as err:
            raise setup_refusal(err) from None
        table_id = new_id(10)
        room = Room(table_id, name, LobbyState(host.id, host.name, options, new_id(16)),
                    self.store, self.pace, on_finished=self.finished_game)
        await self.store.new_table(table_id, name, host.id, options.public(), room.lobby.invite,
                                   options.private)
        await self.owner.created(room)
        self.rooms[table_id] = room
        return room

    # -- to the owner of the game ----------------------------------------------

    async def command(self, room: Room, player_id: str, seat: int | None, client_id: str,
                      given: ActionIn, lang: str) -> CommandAnswer:
        """A seat's command, run by the game's writer: in this process or another one."""
        return await self.owner.command(room, CommandRequest(player_id, seat, client_id,
                                                             given, lang))

    async def reached(self, room: Room, count: int) -> None:
        """Until this process's copy of the game holds `count` actions."""
        await self.owner.reached(room, count)

    async def run_lobby(self, room: Room, request: LobbyRequest) -> LobbyResult:
        """Run a lobby request on `room`, whose writer is in this process."""
        player, method = request.player, request.method
        if method == "sit":
            return await self._sit(room, player, request.seat)
        if method == "stand":
            await self._stand(room, player)
            return None
        if method == "add_bot":
            return await self._add_bot(room, player, request.kind, request.seat)
        if method == "free":
            await self._free(room, player, seat_number(request.seat))
            return None
        if method == "remove":
            await self._remove(room, player, seat_number(request.seat))
            return None
        if method == "program_seat":
            return await self._program_seat(room, player, request.seat, request.name)
        if method == "start":
            await self._start(room, player)
            return None
        if method == "replace":
            return await self._replace(room, player, seat_number(request.seat), request.by,
                                       request.kind)
        if method == "claim":
            return await self._claim(room, player, request.code)
        if method == "return":
            return await self._return(room, player)
        if method == "draw":
            return await self._draw(room, player)
        if method == "close":
            await self._close(room, player)
            return None
        if method in ("rename_check", "rename"):  # D46: checked everywhere, then renamed
            await rename_at(self, room, player, request.name, method == "rename")
            return None
        if method == "rematch":
            return await self._rematch(room, player)
        if method == "rematch_accept":
            return await self._rematch_accept(room, player)
        await self._rematch_decline(room, player)
        return None

    async def _on_owner(self, room: Room, request: LobbyRequest) -> LobbyResult:
        return await self.owner.lobby(room, request)

    # The lobby's requests, each run by the game's owner (this process, or forwarded).

    async def sit(self, room: Room, player: Player, seat: int | None) -> int:
        return seat_number(await self._on_owner(room, LobbyRequest("sit", player, seat)))

    async def stand(self, room: Room, player: Player) -> None:
        await self._on_owner(room, LobbyRequest("stand", player))

    async def add_bot(self, room: Room, player: Player, kind: str, seat: int | None) -> int:
        return seat_number(await self._on_owner(room, LobbyRequest("add_bot", player, seat,
                                                                   kind=kind)))

    async def free(self, room: Room, player: Player, seat: int) -> None:
        await self._on_owner(room, LobbyRequest("free", player, seat))

    async def remove(self, room: Room, player: Player, seat: int) -> None:
        """D34, D55: the host removes the person at `seat` from the waiting room."""
        await self._on_owner(room, LobbyRequest("remove", player, seat))

    async def program_seat(self, room: Room, player: Player, seat: int | None,
                           name: str) -> tuple[int, str]:
        result = await self._on_owner(room, LobbyRequest("program_seat", player, seat,
                                                         name=name))
        assert isinstance(result, tuple)
        return result

    async def start(self, room: Room, player: Player) -> None:
        await self._on_owner(room, LobbyRequest("start", player))

    async def replace(self, room: Room, player: Player, seat: int, by: str,
                      kind: str) -> str | None:
        code = await self._on_owner(room, LobbyRequest("replace", player, seat, kind=kind,
                                                       by=by))
        return None if code is None else text(code)

    async def claim(self, room: Room, player: Player, code: str) -> int:
        return seat_number(await self._on_owner(room, LobbyRequest("claim", player,
                                                                   code=code)))

    async def return_seat(self, room: Room, player: Player) -> int:
        return seat_number(await self._on_owner(room, LobbyRequest("return", player)))

    async def draw(self, room: Room, player: Player) -> int:
        """An admin ends a stuck game as a draw (D38): the record's length after it."""
        return seat_number(await self._on_owner(room, LobbyRequest("draw", player)))

    async def _draw(self, room: Room, player: Player) -> int:
        """Run by the game's writer (stuck.py checks the admin role again there)."""
        return await end_on_owner(room, player.id)

    async def close_table(self, room: Room, player: Player) -> None:
        """D51: the host closes a table that has not started, for everyone at it."""
        await self._on_owner(room, LobbyRequest("close", player))

    async def _close(self, room: Room, player: Player) -> None:
        """Run by the table's writer (closing.py): stored, told, then let go here — out of
        the lobby's list and of this process's counts of open tables (quota.py)."""
        await close_on_owner(room, player)
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
        self.owner.released(room)

    # -- after the end ----------------------------------------------------------

    async def finished_game(self, room: Room) -> None:
        """Keep the game in its players' history and rate the registered ones."""
        assert room.host is not None
        holders = {n: s.player_id for n, s in room.lobby.seats.items()
                   if s.player_id is not None}  # a bot's seat too: its player's game (D32)
        row = await self.store.table_row(room.id)
        assert row is not None
        record = record_of(row, await self.store.action_rows(room.id))
        await record_finished(self.store, room.id, record, holders)
        asyncio.get_running_loop().call_later(FINISHED_KEPT_SECONDS, self._evict, room.id)

    def _evict(self, table_id: str) -> None:
        """A finished game leaves memory once nobody is looking at it (the store keeps it;
        `room` reads it back on demand); while someone is, it is tried again later."""
        room = self.rooms.get(table_id)
        if room is None or room.status != "finished":
            return
        if room.clients:
            asyncio.get_running_loop().call_later(FINISHED_KEPT_SECONDS, self._evict, table_id)
            return
        del self.rooms[table_id]
        self.owner.released(room)

    async def record(self, room: Room) -> Record:
        """The finished game's record; a running game's record is secret (seed, deal)."""
        if room.status != "finished":
            raise LobbyError(403, "game_running",
                             "a game's record is secret until the game has ended")
        row = await self.store.table_row(room.id)
        assert row is not None
        return record_of(row, await self.store.action_rows(room.id))

    async def players_record(self, room: Room, viewer: str | None) -> Record:
        """The finished game's record as `viewer` may have it: the whole game, but a
        private message only for its sender and its recipient (R50: nothing about it
        reaches anyone else, not even that it was sent; D16). Whispers change nothing
        in the game, so this record replays to the same result; downloads and replays
        are built from it."""
        full = await self.record(room)
        seats = room.lobby.seats
        mine = {n for n, s in seats.items() if viewer is not None and s.player_id == viewer}
        kept = [(a, t) for a, t in zip(full.actions, full.times, strict=False)
                if a.do != SAY or a.to is None or a.seat in mine or a.to in mine]
        return Record(full.players, full.seed, full.custom, full.deal, [a for a, _ in kept],
                      dict(full.extra), [t for _, t in kept])


def bot_kinds() -> list[str]:
    """The bot kinds a host may seat: the built-in ones and every `trusis.bots` plug-in."""
    return available_kinds()
