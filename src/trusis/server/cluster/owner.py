"""The owner interface for several processes: each game is written where its lease is.

The hub hands every command and lobby request to its owner (`owner.py`). Here
that means: run it at once when this process holds the game's lease, or carry it
as a typed message (messages.py) to the process that does, and bring its answer
back (forward.py); read the lobby's list from the store, since other processes'
tables are not in memory here; take a lease for a table created here; give it
back when this process stops holding one.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from trusis.server.cluster.forward import OwnerUnavailable, Request, Unsettled
from trusis.server.cluster.messages import Act, Failure, Lobby, Reply
from trusis.server.cluster.node import Node, instance
from trusis.server.cluster.replica import apply_facts
from trusis.server.cluster.writer import facts
from trusis.server.data.heartbeat import unreachable
from trusis.server.data.hidden import HiddenFacts
from trusis.server.data.rows import TableRow
from trusis.server.data.store import Player
from trusis.server.errors import LobbyError
from trusis.server.moderation.sanctions import WarningFacts
from trusis.server.players.revoked import Revocation
from trusis.server.tables.answers import CommandAnswer
from trusis.server.tables.closing import CLOSED
from trusis.server.tables.commands import command, refusal
from trusis.server.tables.lobby_state import LobbyState
from trusis.server.tables.options import TableOptions
from trusis.server.tables.owner import CommandRequest, Holding
from trusis.server.tables.peers import LocalPeers
from trusis.server.tables.requests import (
    LobbyRequest,
    LobbyResult,
    Wire,
    from_wire,
    to_wire,
)
from trusis.server.tables.room import Room
from trusis.server.tables.seats.seat import Seat
from trusis.server.tables.status import TableLife


def unavailable() -> LobbyError:
    return LobbyError(503, "owner_unavailable", "the server running this table is not "
                      "answering right now; try again in a moment")


class ClusterOwner:
    """This process's way to each game's writer when several processes share the games
    (`--redis`): `node` keeps the leases and the bus."""

    def __init__(self, holder: Holding, label: str, redis_url: str,
                 lease_seconds: float) -> None:
        self.holder = holder
        self.node = Node(instance(label), holder.store, redis_url, lease_seconds,
                         holder.rooms, holder.adopt, self._serve, holder.close_revoked,
                         holder.tell_warning, holder.tell_hidden)

    async def start(self) -> None:
        await self.node.start()  # each game goes to whichever process takes its lease

    async def close(self) -> None:
        await self.node.close()

    def health(self) -> dict[str, Any]:
        return {"cluster": True, **self.node.figures(), "ok": self.node.healthy()}

    def metric_families(self) -> Iterator[Metric]:
        node, rooms = self.node, list(self.holder.rooms.values())
        yield GaugeMetricFamily("trusis_leases_owned", "Games whose lease this process holds.",
                                sum(1 for r in rooms if r.owned))
        yield GaugeMetricFamily("trusis_games_followed", "Games another process owns that "
                                "clients here are at.", sum(1 for r in rooms if not r.owned))
        yield CounterMetricFamily("trusis_leases_taken_over", "Games taken over from a process "
                                  "that let its lease expire.", node.taken)
        yield CounterMetricFamily("trusis_forwarded", "Requests forwarded to another process.",
                                  node.forward.count)
        yield CounterMetricFamily("trusis_redis_dropped", "Messages that could not be "
                                  "published (followers caught up from the database).",
                                  node.bus.dropped)
        yield GaugeMetricFamily("trusis_redis_up", "1 while Redis answers this process's "
                                "pings (on its subscription's connection and a publisher's).",
                                1 if node.bus.up else 0)
        yield CounterMetricFamily("trusis_cut_off", "Times this process stepped aside, cut off "
                                  "from PostgreSQL or Redis: its games went to the others.",
                                  node.aside.cuts)
        yield GaugeMetricFamily("trusis_serving", "1 while this process serves games (it "
                                "reaches PostgreSQL and Redis), 0 while cut off.",
                                0 if node.aside.cut else 1)

    async def listed(self) -> list[Room]:
        """Every process's public tables, from the store, with this process's own copies
        where it has them."""
        store, rooms = self.holder.store, self.holder.rooms
        rows = [r for r in await store.table_rows(("open", "running")) if not r["private"]]
        seats = await store.seat_rows_of([r["id"] for r in rows if r["id"] not in rooms])
        found = []
        for row in rows:
            room = rooms.get(row["id"])
            if room is None:  # only its lobby facts: nobody here plays at it
                lobby = LobbyState(row["host_id"], await store.host_name(row["host_id"]),
                                   TableOptions.from_json(json.loads(row["options"])),
                                   row["invite"],
                                   {h["seat"]: Seat(h["kind"], h["name"], h["player_id"],
                                                    h["bot_kind"]) for h in seats[row["id"]]})
                room = Room(row["id"], row["name"], lobby, store, self.holder.pace,
                            TableLife.stored(row["status"]), row["created_at"],
                            peers=LocalPeers(writes=False))
            found.append(room)
        return found

    async def open(self, row: TableRow) -> Room | None:
        """Followed from now on, or owned when nobody owns it (a finished game opened
        again: its chat after the end needs a writer)."""
        return await self.node.open(str(row["id"]))

    async def created(self, room: Room) -> None:
        self.node.own(room, await self.node.leases.create(room.id))

    def released(self, room: Room) -> None:
        if room.owned:  # another process may claim it now
            self.node.spawn(self.node.leases.release(room.id))

    async def command(self, room: Room, request: CommandRequest) -> CommandAnswer:
        async def here() -> Reply:
            return Reply(req="", answer=await request.run(room))

        message = Act(player=request.player, seat=request.seat, client=request.client,
                      action=request.action, lang=request.lang)
        try:
            reply = await self.node.forward.on_owner(room, here, message, again=True)
        except OwnerUnavailable:  # not applied, nor will it be: it may be sent again
            return refusal(room, request.client, "unavailable", {}, request.lang)
        except Unsettled:
            return await self._settled(room, request)
        assert reply.answer is not None, "a command's reply carries its answer"
        return reply.answer

    async def _settled(self, room: Room, request: CommandRequest) -> CommandAnswer:
        """A forwarded command whose answer never came, once no commit can store it any more
        (forward.py): stored, it was acknowledged; otherwise it was not applied. While the
        database does not answer, this waits (this process then serves nobody, and the
        command's connection is closed: its client sends it again elsewhere, aside.py)."""
        while True:
            try:
                index = await self.holder.store.stored_command(room.id, request.player,
                                                               request.client)
            except Exception as err:
                if not unreachable(err):
                    raise
                await asyncio.sleep(1.0)
                continue
            if index is None:
                return refusal(room, request.client, "unavailable", {}, request.lang)
            return CommandAnswer.ack(request.client, count=index + 1)

    async def lobby(self, room: Room, request: LobbyRequest) -> LobbyResult:
        async def here() -> Reply:
            return Reply(req="", result=await self.holder.run_lobby(room, request))

        player = request.player
        wire = to_wire(request)
        message = Lobby(method=wire.method, player=(player.id, player.name, player.kind),
                        seat=wire.seat, kind=wire.kind, by=wire.by, name=wire.name,
                        code=wire.code)
        try:
            reply = await self.node.forward.on_owner(room, here, message, again=False)
        except OwnerUnavailable:
            raise unavailable() from None
        if reply.error is not None:
            error = reply.error
            raise LobbyError(error.status, error.code, error.message, **error.params)
        if reply.table is not None and not room.owned:
            if reply.table.status == CLOSED:  # D51: its host closed it; the copy goes
                self.node.closed(room)
            elif apply_facts(room, reply.table):
                await self.node.catch_up(room)
        return reply.result

    async def reached(self, room: Room, count: int) -> None:
        if not room.owned:
            await self.node.reached(room, count)

    async def tell_revoked(self, revoked: Revocation) -> None:
        await self.node.news.tell_revoked(revoked)

    async def tell_warned(self, player_id: str, warning: WarningFacts) -> None:
        await self.node.news.tell_warned(player_id, warning)

    async def tell_hidden(self, facts: HiddenFacts) -> None:
        await self.node.news.tell_hidden(facts)

    async def _serve(self, room: Room, message: Request) -> Reply:
        """A request another process forwarded to this one, the game's writer."""
        if isinstance(message, Act):
            answer = await command(room, message.player, message.seat, message.client,
                                   message.action, message.lang)
            return Reply(req=message.req, answer=answer)
        request = from_wire(Player(*message.player), Wire(
            message.method, message.seat, message.kind, message.by, message.name,
            message.code))
        try:
            result = await self.holder.run_lobby(room, request)
        except LobbyError as err:
            return Reply(req=message.req, error=Failure(status=err.status, code=err.code,
                                                        params=err.params,
                                                        message=err.message))
        return Reply(req=message.req, result=result, table=facts(room))
