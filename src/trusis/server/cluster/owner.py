"""The owner interface for several processes: each game is written where its lease is.

The hub hands every command and lobby request to its owner (`owner.py`). Here
that means: run it at once when this process holds the game's lease, or carry it
as a typed message (messages.py) to the process that does, and bring its answer
back (forward.py); read the lobby's list from the store, since other processes'
tables are not in memory here; take a lease for a table created here; give it
back when this process stops holding one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from trusis.server.answers import CommandAnswer
from trusis.server.closing import CLOSED
from trusis.server.cluster.forward import OwnerUnavailable, Request
from trusis.server.cluster.messages import Act, Failure, Lobby, Reply
from trusis.server.cluster.node import Node, instance
from trusis.server.cluster.replica import apply_facts
from trusis.server.cluster.writer import facts
from trusis.server.commands import command, refusal
from trusis.server.errors import LobbyError
from trusis.server.lobby_state import LobbyState
from trusis.server.options import TableOptions
from trusis.server.owner import CommandRequest, Holder
from trusis.server.peers import LocalPeers
from trusis.server.requests import LobbyRequest, LobbyResult, Revoked
from trusis.server.room import Room
from trusis.server.sanctions import WarningFacts
from trusis.server.seat import Seat
from trusis.server.store import Player


def unavailable() -> LobbyError:
    return LobbyError(503, "owner_unavailable", "the server running this table is not "
                      "answering right now; try again in a moment")


class ClusterOwner:
    """This process's way to each game's writer when several processes share the games
    (`--redis`): `node` keeps the leases and the bus."""

    def __init__(self, holder: Holder, label: str, redis_url: str,
                 lease_seconds: float) -> None:
        self.holder = holder
        self.node = Node(instance(label), holder.store, redis_url, lease_seconds,
                         holder.rooms, holder.adopt, self._serve)
        self.node.on_revoked = holder.close_revoked
        self.node.on_warned = holder.tell_warning

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
        yield GaugeMetricFamily("trusis_redis_up", "1 while the Redis connection is up.",
                                1 if node.bus.up else 0)

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
                            row["status"], row["created_at"], peers=LocalPeers(writes=False))
            found.append(room)
        return found

    async def open(self, row: dict[str, Any]) -> Room | None:
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
        except OwnerUnavailable:
            reply = Reply(req="")
        if reply.answer is None:  # nobody could run it: the client may send it again
            return refusal(room, request.client, "unavailable", {}, request.lang)
        return reply.answer

    async def lobby(self, room: Room, request: LobbyRequest) -> LobbyResult:
        async def here() -> Reply:
            return Reply(req="", result=await self.holder.run_lobby(room, request))

        player = request.player
        message = Lobby(method=request.method, player=(player.id, player.name, player.kind),
                        seat=request.seat, kind=request.kind, by=request.by,
                        name=request.name, code=request.code)
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

    async def tell_revoked(self, revoked: Revoked) -> None:
        await self.node.tell_revoked(revoked)

    async def tell_warned(self, player_id: str, warning: WarningFacts) -> None:
        await self.node.tell_warned(player_id, warning)

    async def _serve(self, room: Room, message: Request) -> Reply:
        """A request another process forwarded to this one, the game's writer."""
        if isinstance(message, Act):
            answer = await command(room, message.player, message.seat, message.client,
                                   message.action, message.lang)
            return Reply(req=message.req, answer=answer)
        request = LobbyRequest(message.method, Player(*message.player), message.seat,
                               message.kind, message.by, message.name, message.code)
        try:
            result = await self.holder.run_lobby(room, request)
        except LobbyError as err:
            return Reply(req=message.req, error=Failure(status=err.status, code=err.code,
                                                        params=err.params,
                                                        message=err.message))
        return Reply(req=message.req, result=result, table=facts(room))
