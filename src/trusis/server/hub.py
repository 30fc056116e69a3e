"""The server's tables: creating them, seating people and bots, starting games.

The hub owns the rooms of one process. Open and running tables live in memory
(and in the store, which is the truth after a restart); a finished table is
read back from the store when someone opens its end screen.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any, NotRequired, TypedDict

from trusis.bots.registry import available_kinds
from trusis.rules.actions import SAY
from trusis.rules.errors import SetupError
from trusis.server.answers import CommandAnswer
from trusis.server.banning import unseat_banned
from trusis.server.cluster.follow import apply_facts, facts
from trusis.server.cluster.forward import OwnerUnavailable
from trusis.server.cluster.node import Node
from trusis.server.commands import command, refusal
from trusis.server.errors import LobbyError
from trusis.server.history import record_finished
from trusis.server.limits import EXPIRED, expired_table
from trusis.server.options import TableOptions
from trusis.server.protocol import ActionIn
from trusis.server.rematch import REMATCH_METHODS, Rematches, kept_for
from trusis.server.restore import load_room, record_of
from trusis.server.room import Room
from trusis.server.seat import Seat
from trusis.server.seating import setup_refusal
from trusis.server.store import Player, Store, new_id
from trusis.table.record import Record

FINISHED_KEPT_SECONDS = 600.0
"""How long a finished room stays in memory after its end, while it may still be watched."""
FINISHED_CACHED = 200
"""Finished tables read back from the store and kept for their end screens."""


class Revoked(TypedDict):
    """Tokens just revoked (sessions.py): one sign-in's (`family`), or all of a player's
    but `keep`'s, or all of them. The connections they opened are closed, everywhere."""

    player: str
    family: str | None
    keep: str | None
    ban: NotRequired[bool]  # a ban (moderation.py): the player's seats go too (banning.py)


SIGNED_OUT = 4401
"""The close code of a connection whose session ended (docs/protocol.md)."""


def unavailable() -> LobbyError:
    return LobbyError(503, "owner_unavailable", "the server running this table is not "
                      "answering right now; try again in a moment")


class Hub(Rematches):  # the lobby's requests (seating.py) and the rematch's (rematch.py)
    def __init__(self, store: Store, pace: float = 1.0) -> None:
        self.store = store
        self.pace = pace
        self.rooms: dict[str, Room] = {}
        self.finished: dict[str, Room] = {}
        self.lock = asyncio.Lock()
        self.cluster: Node | None = None
        """Several processes (`--redis`): who owns which game, and the way to its owner."""

    def join_cluster(self, name: str, redis_url: str, lease_seconds: float) -> Node:
        self.cluster = Node(name, self.store, redis_url, lease_seconds, self.rooms,
                            self.adopt, self.serve)
        self.cluster.on_revoked = self.close_revoked
        return self.cluster

    async def revoked(self, revoked: Revoked) -> None:
        """Tokens were revoked here: close their connections here and on every process."""
        self.close_revoked(dict(revoked))
        if self.cluster is not None:
            await self.cluster.tell_revoked(dict(revoked))

    def close_revoked(self, revoked: dict[str, Any]) -> None:
        """Close this process's connections opened with revoked tokens (4401)."""
        rooms = {id(r): r for r in (*self.rooms.values(), *self.finished.values())}
        for room in rooms.values():
            for client in list(room.clients):
                if client.player_id != revoked["player"]:
                    continue
                if revoked["family"] is not None and client.family != revoked["family"]:
                    continue
                if revoked["keep"] is not None and client.family == revoked["keep"]:
                    continue
                client.shut(SIGNED_OUT, "signed out")
        if revoked.get("ban"):
            unseat_banned(self.rooms.values(), revoked["player"])

    def adopt(self, room: Room) -> None:
        """A room read back from the store, now held by this process."""
        room.pace = self.pace
        room.on_finished = self.finished_game

    async def restore(self) -> None:
        """Load every open and running table; running games carry on (timers included).
        With several processes, each game goes to whichever process takes its lease."""
        if self.cluster is not None:
            await self.cluster.start()
            return
        for row in await self.store.table_rows(("open", "running")):
            room = await load_room(self.store, row, self.pace)
            room.on_finished = self.finished_game
            self.rooms[room.id] = room
            if room.status == "running":
                room.start_running()

    async def close(self) -> None:
        for room in self.rooms.values():
            await room.stop()
        if self.cluster is not None:
            await self.cluster.close()

    # -- finding tables -------------------------------------------------------

    async def public(self) -> list[Room]:
        """The public open and running tables (with several processes: every process's,
        from the store, with this process's own copies where it has them)."""
        if self.cluster is None:
            return [r for r in self.rooms.values()
                    if not r.options.private and r.status in ("open", "running")]
        rows = [r for r in await self.store.table_rows(("open", "running")) if not r["private"]]
        seats = await self.store.seat_rows_of([r["id"] for r in rows if r["id"] not in self.rooms])
        found = []
        for row in rows:
            room = self.rooms.get(row["id"])
            if room is None:  # only its lobby facts: nobody here plays at it
                room = Room(row["id"], row["name"], row["host_id"], "",
                            TableOptions.from_json(json.loads(row["options"])),
                            row["invite"], self.store, self.pace, row["status"],
                            row["created_at"], owned=False)
                room.seats = {h["seat"]: Seat(h["kind"], h["name"], h["player_id"],
                                              h["bot_kind"]) for h in seats[row["id"]]}
                room.host_name = await self.store.host_name(row["host_id"])
            found.append(room)
        return found

    async def room(self, table_id: str, player_id: str | None = None,
                   invite: str | None = None) -> Room:
        """The table, if the caller may see it: public, or private with its invite link,
        or private and the caller is its host or has a seat."""
        room = self.rooms.get(table_id) or self.finished.get(table_id)
        if room is None:
            row = await self.store.table_row(table_id)
            if row is None:
                raise LobbyError(404, "no_such_table", f"there is no table {table_id!r}")
            if row["status"] == EXPIRED:  # an open table nobody came to (quota.py)
                raise expired_table(table_id)
            if self.cluster is not None:  # owned here from now on, or followed
                room = await self.cluster.open(table_id)
                if room.owned and room.status == "finished":
                    asyncio.get_running_loop().call_later(FINISHED_KEPT_SECONDS, self._evict,
                                                          table_id)
        if room is None:
            assert row is not None
            room = await load_room(self.store, row, self.pace)
            self.finished[table_id] = room
            while len(self.finished) > FINISHED_CACHED:  # the oldest read first
                self.finished.pop(next(iter(self.finished)))
        if room.options.private and not (
            (invite is not None and secrets.compare_digest(invite, room.invite))
            or player_id == room.host_id
            or (player_id is not None and any(s.player_id == player_id
                                              for s in room.seats.values()))  # D29
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
        room = Room(table_id, name, host.id, host.name, options, new_id(16), self.store,
                    self.pace, on_finished=self.finished_game)
        await self.store.new_table(table_id, name, host.id, options.public(), room.invite,
                                   options.private)
        if self.cluster is not None:
            self.cluster.own(room, await self.cluster.leases.create(table_id))
        self.rooms[table_id] = room
        return room

    # -- to the owner of the game ----------------------------------------------

    async def command(self, room: Room, player_id: str, seat: int | None, client_id: str,
                      given: ActionIn, lang: str) -> CommandAnswer:
        """A seat's command, run by the game's owner: this process or another one."""
        if self.cluster is None:
            return await command(room, player_id, seat, client_id, given, lang)

        async def here() -> dict[str, Any]:
            return (await command(room, player_id, seat, client_id, given, lang)).to_wire()

        try:
            return CommandAnswer.from_wire(await self.cluster.on_owner(
                room, here,
                {"k": "act", "player": player_id, "seat": seat, "client": client_id,
                 "action": given.model_dump(), "lang": lang}, again=True))
        except OwnerUnavailable:
            return refusal(room, client_id, "unavailable", {}, lang)

    async def reached(self, room: Room, count: int) -> None:
        """Until this process's copy of the game holds `count` actions."""
        if self.cluster is not None and not room.owned:
            await self.cluster.reached(room, count)

    async def _on_owner(self, method: str, room: Room, player: Player, *args: Any) -> Any:
        """Run lobby request `method` where the game is owned; its refusals as raised."""
        run = getattr(self, f"_{method}")
        if self.cluster is None:
            return await run(room, player, *args)

        async def here() -> dict[str, Any]:
            return {"result": await run(room, player, *args)}

        try:
            answer = await self.cluster.on_owner(
                room, here, {"k": "lobby", "method": method,
                             "player": [player.id, player.name, player.kind],
                             "args": list(args)}, again=False)
        except OwnerUnavailable:
            raise unavailable() from None
        if "error" in answer:
            error = answer["error"]
            raise LobbyError(int(error["status"]), str(error["code"]), str(error["message"]),
                             **error["params"])
        if "table" in answer and not room.owned and apply_facts(room, answer["table"]):
            await self.cluster.catch_up(room)
        return answer["result"]

    async def serve(self, room: Room, data: dict[str, Any]) -> dict[str, Any]:
        """A request another process forwarded to this one, the game's owner."""
        if data["k"] == "act":
            answer = await command(room, str(data["player"]), data["seat"], str(data["client"]),
                                   ActionIn.model_validate(data["action"]), str(data["lang"]))
            return answer.to_wire()
        if data["k"] != "lobby" or data["method"] not in LOBBY_METHODS:
            return {"error": {"status": 400, "code": "bad_request", "params": {},
                              "message": "unknown request"}}
        run = getattr(self, f"_{data['method']}")
        try:
            result = await run(room, Player(*data["player"]), *data["args"])
        except LobbyError as err:
            return {"error": {"status": err.status, **err.body()}}
        return {"result": result, "table": facts(room)}

    # The lobby's requests, each run by the game's owner (this process, or forwarded).

    async def sit(self, room: Room, player: Player, seat: int | None) -> int:
        return int(await self._on_owner("sit", room, player, seat))

    async def stand(self, room: Room, player: Player) -> None:
        await self._on_owner("stand", room, player)

    async def add_bot(self, room: Room, player: Player, kind: str, seat: int | None) -> int:
        return int(await self._on_owner("add_bot", room, player, kind, seat))

    async def free(self, room: Room, player: Player, seat: int) -> None:
        await self._on_owner("free", room, player, seat)

    async def program_seat(self, room: Room, player: Player, seat: int | None,
                           name: str) -> tuple[int, str]:
        number, token = await self._on_owner("program_seat", room, player, seat, name)
        return int(number), str(token)

    async def start(self, room: Room, player: Player) -> None:
        await self._on_owner("start", room, player)

    async def replace(self, room: Room, player: Player, seat: int, by: str,
                      kind: str) -> str | None:
        code = await self._on_owner("replace", room, player, seat, by, kind)
        return None if code is None else str(code)

    async def claim(self, room: Room, player: Player, code: str) -> int:
        return int(await self._on_owner("claim", room, player, code))

    async def return_seat(self, room: Room, player: Player) -> int:
        return int(await self._on_owner("return", room, player))

    # -- after the end ----------------------------------------------------------

    async def finished_game(self, room: Room) -> None:
        """Keep the game in its players' history and rate the registered ones."""
        assert room.table is not None
        holders = {n: s.player_id for n, s in room.seats.items()
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
        if self.cluster is not None and room.owned:  # another process may claim it now
            self.cluster.spawn(self.cluster.leases.release(table_id))

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
        mine = {n for n, s in room.seats.items() if viewer is not None and s.player_id == viewer}
        kept = [(a, t) for a, t in zip(full.actions, full.times, strict=False)
                if a.do != SAY or a.to is None or a.seat in mine or a.to in mine]
        return Record(full.players, full.seed, full.custom, full.deal, [a for a, _ in kept],
                      dict(full.extra), [t for _, t in kept])


LOBBY_METHODS = frozenset({"sit", "stand", "add_bot", "free", "program_seat", "start",
                           "replace", "claim", "return"}) | REMATCH_METHODS


def bot_kinds() -> list[str]:
    """The bot kinds a host may seat: the built-in ones and every `trusis.bots` plug-in."""
    return available_kinds()
