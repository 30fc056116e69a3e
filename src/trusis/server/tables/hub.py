"""The server's tables: creating them, seating people and bots, starting games.

The hub owns the rooms of one process. Open and running tables live in memory
(and in the store, which is the truth after a restart); a finished table is
read back from the store when someone opens its end screen.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import assert_never

from trusis.bots.registry import available_kinds
from trusis.rules.errors import SetupError
from trusis.server.connections.protocol import ActionIn
from trusis.server.data.hidden import HiddenFacts, HiddenLine
from trusis.server.data.hidden import facts as hidden_facts
from trusis.server.data.history import record_finished
from trusis.server.data.store import Player, Store, new_id
from trusis.server.errors import LobbyError
from trusis.server.limits.settings import Limits
from trusis.server.moderation.sanctions import WarningFacts
from trusis.server.players.revoked import Revocation
from trusis.server.tables import room_chat
from trusis.server.tables.answers import CommandAnswer
from trusis.server.tables.closing import close_on_owner, gone, hidden_from
from trusis.server.tables.lobby_state import LobbyState
from trusis.server.tables.options import TableOptions
from trusis.server.tables.owner import CommandRequest, Holding, LocalOwner, Owner
from trusis.server.tables.player_connections import PlayerConnections
from trusis.server.tables.rematch.offers import Answer, Rematches, kept_for
from trusis.server.tables.requests import (
    AddBot,
    Claim,
    Close,
    Draw,
    Free,
    LobbyRequest,
    LobbyResult,
    ProgramSeat,
    Rematch,
    RematchAccept,
    RematchDecline,
    Remove,
    Rename,
    RenameCheck,
    Replace,
    Return,
    Sit,
    Stand,
    Start,
    seat_number,
    text,
)
from trusis.server.tables.restore import load_room
from trusis.server.tables.room import Room
from trusis.server.tables.seats.barred import removed_error
from trusis.server.tables.seats.renaming import rename_at
from trusis.server.tables.seats.seating import Seating, setup_refusal
from trusis.server.tables.seats.unbanning import give_back
from trusis.server.tables.stuck import end_on_owner
from trusis.table.hiding import Hide

FINISHED_KEPT_SECONDS = 600.0
"""How long a finished room stays in memory after its end, while it may still be watched."""
FINISHED_CACHED = 200
"""Finished tables read back from the store and kept for their end screens."""


class Hub:
    """This process's tables and the way to each one's writer: a registry of rooms (`rooms`,
    `finished`) and the owner's routing. What runs on the writer is given at construction:
    `seating` (the lobby's requests), `rematches` (the rematch's) and `owner` (made from
    the hub's `Holding`: LocalOwner for one process, cluster/owner.py's with `--redis`)."""

    def __init__(self, store: Store, pace: float = 1.0, limits: Limits | None = None,
                 owner: Callable[[Holding], Owner] = LocalOwner) -> None:
        self.store = store
        self.pace = pace
        self.limits = limits or Limits()
        self.rooms: dict[str, Room] = {}
        self.finished: dict[str, Room] = {}
        self.seating = Seating(store, self.limits)
        self.connections = PlayerConnections(self.rooms, self.finished, store)
        """Each player's connections here: what a revocation closes, a warning reaches."""
        self.rematches = Rematches(store, pace, self._opened, self.finished_game)
        self.owner: Owner = owner(Holding(store, pace, self.rooms, self.adopt, self.run_lobby,
                                          self.connections.close_revoked,
                                          self.connections.tell_warning, self.tell_hidden))
        """Where each game's writer is (owner.py): here, or with `--redis` wherever its
        lease is (cluster/owner.py)."""

    async def revoked(self, revoked: Revocation) -> None:
        """Tokens were revoked here: close their connections here and on every process."""
        self.connections.close_revoked(revoked)
        await self.owner.tell_revoked(revoked)

    async def warned(self, player_id: str, warning: WarningFacts) -> None:
        """A moderator warned `player_id`: their connections here and on every process are
        told at once (a `warning` frame), as the page shows one it loads (D53)."""
        self.connections.tell_warning(player_id, warning)
        await self.owner.tell_warned(player_id, warning)

    async def line_hidden(self, line: HiddenLine, hidden: bool) -> None:
        """A moderator hid a chat line (`hidden`) or showed it again (D71): the connections
        of its table here and on every process are told, and read the chat again."""
        told = hidden_facts(line, hidden)
        self.tell_hidden(told)
        await self.owner.tell_hidden(told)

    def tell_hidden(self, told: HiddenFacts) -> None:
        """This process's copies of the table follow the change, and tell their clients."""
        hide = Hide(told["reason"], told["writer"]) if told["hidden"] else None
        for room in {id(r): r for r in (self.rooms.get(told["table"]),
                                        self.finished.get(told["table"])) if r}.values():
            room_chat.line_hidden(room, told["place"], told["number"], hide)

    async def ban_lifted(self, player_id: str) -> None:
        """A ban of `player_id` was lifted: the waiting-room seats it freed on the tables
        this process writes come back to them where still free (D72, unbanning.py)."""
        await give_back(list(self.rooms.values()), player_id)

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
                raise hidden_from(row, player_id, invite) or refusal
            try:
                room = await self.owner.open(row)  # held here from now on (several processes)
            except LobbyError as err:  # closed or expired since the row above was read
                raise (hidden_from(row, player_id, invite) if err.status == 410 else None) \
                    or err from None
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
        await self._opened(room)
        return room

    async def _opened(self, room: Room) -> None:
        """A table just created here (a new one, or a rematch's): this process writes it."""
        await self.owner.created(room)
        self.rooms[room.id] = room

    async def open_to(self, table_id: str, player_id: str | None,
                      invite: str | None = None) -> Room:
        """The table as `room` gives it, but `403 removed` to a person its host removed
        from it while it waits for its start (D55, barred.py) — with its invite or without
        one (a private table's 404 would hide from them what they know). Once the game has
        started they open it as anyone would: a spectator (D55)."""
        try:
            room = await self.room(table_id, player_id, invite)
        except LobbyError as err:
            if err.code != "no_such_table" or player_id is None \
                    or not await self.store.blocks.was_removed(table_id, player_id):
                raise
            row = await self.store.table_row(table_id)
            if row is None or row["status"] != "open":
                raise
            raise removed_error() from None
        if room.status == "open" and player_id is not None and player_id != room.lobby.host_id \
                and await self.store.blocks.was_removed(room.id, player_id):
            raise removed_error()
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
        seating, rematches = self.seating, self.rematches
        match request:
            case Sit(player, seat):
                return await seating.sit(room, player, seat)
            case Stand(player):
                await seating.stand(room, player)
                return None
            case AddBot(player, kind, seat):
                return await seating.add_bot(room, player, kind, seat)
            case Free(player, seat):
                await seating.free(room, player, seat)
                return None
            case Remove(player, seat):
                await seating.remove(room, player, seat)
                return None
            case ProgramSeat(player, seat, name):
                return await seating.program_seat(room, player, seat, name)
            case Start(player):
                await seating.start(room, player)
                return None
            case Replace(player, seat, by, kind):
                return await seating.replace(room, player, seat, by, kind)
            case Claim(player, code):
                return await seating.claim(room, player, code)
            case Return(player):
                return await seating.return_seat(room, player)
            case Draw(player):  # stuck.py checks the admin role again there (D38)
                return await end_on_owner(room, player.id)
            case Close(player):
                await self._close(room, player)
                return None
            case RenameCheck(player, name):  # D46: checked everywhere, then renamed
                await rename_at(seating, room, player, name, apply=False)
                return None
            case Rename(player, name):
                await rename_at(seating, room, player, name, apply=True)
                return None
            case Rematch(player):
                return await rematches.propose(room, player)
            case RematchAccept(player):
                return await rematches.accept(room, player)
            case RematchDecline(player):
                await rematches.decline(room, player)
                return None
            case _:
                assert_never(request)

    async def _on_owner(self, room: Room, request: LobbyRequest) -> LobbyResult:
        return await self.owner.lobby(room, request)

    # The lobby's requests, each run by the game's owner (this process, or forwarded).

    async def sit(self, room: Room, player: Player, seat: int | None) -> int:
        return seat_number(await self._on_owner(room, Sit(player, seat)))

    async def stand(self, room: Room, player: Player) -> None:
        await self._on_owner(room, Stand(player))

    async def add_bot(self, room: Room, player: Player, kind: str, seat: int | None) -> int:
        return seat_number(await self._on_owner(room, AddBot(player, kind, seat)))

    async def free(self, room: Room, player: Player, seat: int) -> None:
        await self._on_owner(room, Free(player, seat))

    async def remove(self, room: Room, player: Player, seat: int) -> None:
        """D34, D55: the host removes the person at `seat` from the waiting room."""
        await self._on_owner(room, Remove(player, seat))

    async def program_seat(self, room: Room, player: Player, seat: int | None,
                           name: str) -> tuple[int, str]:
        result = await self._on_owner(room, ProgramSeat(player, seat, name))
        assert isinstance(result, tuple)
        return result

    async def start(self, room: Room, player: Player) -> None:
        await self._on_owner(room, Start(player))

    async def replace(self, room: Room, player: Player, seat: int, by: str,
                      kind: str) -> str | None:
        code = await self._on_owner(room, Replace(player, seat, by, kind))
        return None if code is None else text(code)

    async def claim(self, room: Room, player: Player, code: str) -> int:
        return seat_number(await self._on_owner(room, Claim(player, code)))

    async def return_seat(self, room: Room, player: Player) -> int:
        return seat_number(await self._on_owner(room, Return(player)))

    async def draw(self, room: Room, player: Player) -> int:
        """An admin ends a stuck game as a draw (D38): the record's length after it."""
        return seat_number(await self._on_owner(room, Draw(player)))

    async def close_table(self, room: Room, player: Player) -> None:
        """D51: the host closes a table that has not started, for everyone at it."""
        await self._on_owner(room, Close(player))

    async def propose_rematch(self, room: Room, player: Player) -> str:
        """D19: the rematch of finished `room`: the new table's id."""
        return text(await self._on_owner(room, Rematch(player)))

    async def answer_rematch(self, room: Room, player: Player, answer: Answer) -> int | None:
        """D19: the kept seat taken (its number) or let go."""
        if answer == "accept":
            return seat_number(await self._on_owner(room, RematchAccept(player)))
        await self._on_owner(room, RematchDecline(player))
        return None

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
        # The host's own record: the same as the stored one (the end is stored before this
        # runs, and a failed store reads the game back), with no read of it (issue 39).
        record = room.host.table.record
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


def bot_kinds() -> list[str]:
    """The bot kinds a host may seat: the built-in ones and every `trusis.bots` plug-in."""
    return available_kinds()
