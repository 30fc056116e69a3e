"""One process of several: what it owns, what it follows, what it forwards.

Every live game has one owner process, by its lease (data/leases.py). This process:

- **owns** the games it created or took over: it applies, stores (fenced),
  times and bots them exactly as a single server does (room.py), and
  announces what it stored on the game's channel;
- **follows** the games its own clients are at and another process owns: it
  replays the announced actions on its own copy (replica.py), and checks the
  database by record index, so a missed message costs a query, not an event;
- **forwards** its clients' commands and lobby requests to the owner, and
  answers with the owner's answer; a request nobody answers (the owner died,
  a takeover is under way) is tried again until an owner answers;
- **keeps** its leases every quarter of their length, takes over the games
  whose owner let theirs expire (timers included: the deadline is stored), and
  tells each owner which seats it has connected, so that nobody's grace period
  (R52) starts while they are connected somewhere;
- **steps aside** while it cannot reach PostgreSQL or Redis (aside.py): its
  games go to the other processes, its clients reconnect to them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from typing import Any

from trusis.server.cluster.aside import Aside, cut_off, notice
from trusis.server.cluster.bus import Bus, channel
from trusis.server.cluster.forward import Forwarder, Serve
from trusis.server.cluster.keeper import Keeper
from trusis.server.cluster.messages import (
    Act,
    Actions,
    Lobby,
    Message,
    Presence,
    Removed,
    Reply,
    TableFacts,
)
from trusis.server.cluster.player_news import SESSIONS, PlayerNews
from trusis.server.cluster.replica import (
    Replica,
    apply_facts,
    follow,
    follow_rows,
    follow_seats,
)
from trusis.server.cluster.writer import Writer
from trusis.server.data.heartbeat import TIMEOUT_SECONDS
from trusis.server.data.hidden import HiddenFacts
from trusis.server.data.leases import Leases
from trusis.server.data.store import Store
from trusis.server.errors import LobbyError
from trusis.server.moderation.sanctions import WarningFacts
from trusis.server.players.revoked import Revocation
from trusis.server.tables.closing import CLOSED, closed_here, gone
from trusis.server.tables.records import stored_seats
from trusis.server.tables.restore import load_room, read_tables, refill, take_charge
from trusis.server.tables.room import Room
from trusis.server.tables.seats.barred import removed_here
from trusis.server.tables.timers import start_timers

log = logging.getLogger("trusis.server")

def instance(label: str) -> str:
    """This run's identity in the cluster: the operator's `--node` label and a part new at
    every start. A process restarted under its old label is a new owner (issue 20): its
    renewals never extend the leases of games its previous run held, which expire and
    are taken over with a new fencing number; two live processes given one label by
    mistake never share a lease."""
    return f"{label}#{secrets.token_hex(4)}"


class Node:
    """This process's part in a cluster (created by app.py when `--redis` is given);
    `name` is its identity (`instance`), which its leases are held under."""

    def __init__(self, name: str, store: Store, redis_url: str, lease_seconds: float,
                 rooms: dict[str, Room], adopt: Callable[[Room], None], serve: Serve,
                 on_revoked: Callable[[Revocation], None],
                 on_warned: Callable[[str, WarningFacts], None],
                 on_hidden: Callable[[HiddenFacts], None]) -> None:
        self.name = name
        self.store = store
        store.commits.lease_seconds = lease_seconds
        self.leases = Leases(store, name, lease_seconds)
        self.tick = lease_seconds / 4
        self.rooms = rooms  # the hub's: owned and followed rooms alike
        self.adopt = adopt  # the hub's hooks for a room this process now holds
        self.serve = serve  # the hub runs a forwarded request on a room it owns
        down_after = notice(lease_seconds)
        # A heartbeat's longest wait for an answer: 2 s, or more with a longer lease (a slow
        # link to the database is given more by a longer lease), never past the notice.
        bound = min(down_after, max(TIMEOUT_SECONDS, down_after / 2))
        self.bus = Bus(redis_url, channel("r", name), self._message, self._reconnected,
                       timeout=bound, down_after=down_after)
        bus = self.bus
        store.mutes.cacheable = lambda: bus.subscribed and bus.up  # mutes.py, D69
        heartbeat = self.leases.heartbeat
        heartbeat.down_after, heartbeat.timeout = down_after, bound
        self.forward = Forwarder(self.bus, name, self.tick,
                                 lambda to, message: self.outbox.put_nowait((to, message)),
                                 heartbeat.now, store.transaction_seconds)
        self.on_owner = self.forward.on_owner
        self.loading: dict[str, asyncio.Task[Room]] = {}
        self.idle_since: dict[str, float] = {}
        self.outbox: asyncio.Queue[tuple[str, Message]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._background: set[asyncio.Task[Any]] = set()
        self.taken = 0
        self.news = PlayerNews(self.bus, name, on_revoked, on_warned, on_hidden)
        """Revocations, warnings, mutes and hidden lines, told to and by every process."""
        self.aside = Aside(self.leases, self.bus, rooms, self.idle_since, self.spawn)
        """Stepping aside while cut off from PostgreSQL or Redis, and back (aside.py)."""
        self.keeper = Keeper(store, self.leases, self.bus, rooms, self.idle_since, self.tick,
                             self.aside, self._take, self.catch_up, self._presence,
                             self.spawn)
        """The beat: leases renewed, games taken over, presence told (keeper.py)."""

    # -- life ------------------------------------------------------------------

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run `work` in the background, kept until it is done."""
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _reconnected(self) -> None:
        """Redis came back (bus.py): the beat reads what was announced meanwhile; a mute
        told meanwhile was lost, so none read before is trusted (mutes.py)."""
        self.store.mutes.forget()
        await self.keeper.reconnected()

    async def start(self) -> None:
        await self.leases.heartbeat.ping()  # the database's clock, before anything is timed
        await self.leases.adopt_orphans()
        await self.bus.subscribe(SESSIONS)  # before the reader starts: listened from the first
        await self.bus.start()
        self._tasks = [asyncio.create_task(self.keeper._keep(), name="leases"),
                       asyncio.create_task(self._send(), name="redis publisher")]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self.leases.hand_back()
        await self.bus.close()

    def healthy(self) -> bool:
        return self.aside.serving and time.monotonic() - self.keeper.renewed_at < self.tick * 3

    # -- owning ----------------------------------------------------------------

    def own(self, room: Room, fence: int) -> None:
        """This process writes `room` from now on, under fencing number `fence`."""
        room.peers = Writer(room, (self.name, fence),
                            lambda message: self.outbox.put_nowait((channel("t", room.id),
                                                                    message)),
                            self._lost)
        self._listen_as_owner(room.id)

    def _listen_as_owner(self, table_id: str) -> None:
        self.spawn(self.bus.subscribe(channel("o", table_id)))
        self.spawn(self.bus.unsubscribe(channel("t", table_id)))

    async def _send(self) -> None:
        """Publish in the order announced (one connection, pipelined): followers then see
        a game's actions in order, and a gap really means a lost message."""
        while True:
            batch = [await self.outbox.get()]
            while not self.outbox.empty() and len(batch) < 500:
                batch.append(self.outbox.get_nowait())
            await self.bus.publish_all(batch)

    async def _lost(self, room: Room) -> None:
        """The room found its lease gone when it stored (under its lock): the stored
        table is the table — what this process applied or seated without storing never
        happened — and it follows the new writer from now on."""
        self._follow_hooks(room)
        await refill(room)  # seats, status and game as stored
        self.spawn(self.bus.subscribe(channel("t", room.id)))
        self.spawn(self.bus.unsubscribe(channel("o", room.id)))

    async def _take(self, table_id: str, fence: int) -> None:
        """Own a game whose owner let its lease go: read it back, and run it."""
        room = self.rooms.get(table_id)
        fresh = room is None
        if room is None:
            row = await self.store.table_row(table_id)
            if row is None:
                return
            loaded = await load_room(self.store, row, 1.0, owner=False)  # read back just now
            room = self.rooms.get(table_id)  # a client's `open` may have read it meanwhile:
            if room is None:  # that copy, whose clients are connected, is the one to own
                room = loaded
                self.adopt(room)
                self.rooms[table_id] = room
            else:
                fresh = False
        async with room.lock:
            if not fresh:  # a follower's copy: the store may hold more than it has seen
                await refill(room)
            self.own(room, fence)
            take_charge(room)
            room.reseat()
            room.push()
        self.taken += 1
        log.warning("table %s: taken over (fencing number %d)", table_id, fence)
        room.broadcast_table()
        if room.status == "running":
            start_timers(room)

    # -- following -------------------------------------------------------------

    def _follow_hooks(self, room: Room) -> None:
        room.peers = Replica(room, self._presence)

    async def open(self, table_id: str) -> Room:
        """A table that is not in memory here: followed, or owned from now on when nobody
        owns it (a finished game opened again: its chat after the end needs an owner)."""
        if (link := self.aside.unreachable() or (self.aside.cut[0] if self.aside.cut else None)) \
                is not None:
            raise cut_off(link)
        task = self.loading.get(table_id)
        if task is None:
            task = self.loading[table_id] = asyncio.create_task(self._load(table_id))
            task.add_done_callback(lambda _t: self.loading.pop(table_id, None))
        return await asyncio.shield(task)

    async def _load(self, table_id: str) -> Room:
        await self.bus.subscribe(channel("t", table_id))  # first: nothing falls between
        row = await self.store.table_row(table_id)
        if row is None:
            raise LobbyError(404, "no_such_table", f"there is no table {table_id!r}")
        refusal = gone(row)  # closed (D51) or expired since the hub read it
        if refusal is not None:
            raise refusal
        room = await load_room(self.store, row, 1.0, owner=False)
        if (held := self.rooms.get(table_id)) is not None:
            return held  # taken over here meanwhile (`_take`): never two copies of one game
        self.adopt(room)
        fence = await self.leases.claim(table_id) if row["status"] == "finished" else None
        if fence is not None:
            self.own(room, fence)
            self.rooms[table_id] = room
            return room
        self._follow_hooks(room)
        self.rooms[table_id] = room
        self.idle_since[table_id] = time.monotonic()
        await self.catch_up(room)
        return room

    async def catch_up(self, room: Room) -> None:
        """Read from the store whatever this copy has not seen."""
        async with room.lock:
            if room.owned:
                return
            if room.host is None:
                replica = room.peers
                seen = replica.facts if isinstance(replica, Replica) else 0
                row = await self.store.table_row(room.id)
                if row is None:
                    return
                read = (await read_tables(self.store, [row]))[row["id"]]
                if isinstance(replica, Replica) and replica.facts != seen:
                    return  # the writer's facts came meanwhile: newer than this read
                await refill(room, row, read)
                if room.status == CLOSED:  # D51: the news of it was lost on the way
                    self.closed(room)
                    return
                if room.host is not None:  # the game started: every client's first view
                    room.reseat(everyone=True)
                    room.broadcast_table()
                return
            rows = await self.store.action_rows_after(room.id,
                                                      len(room.host.table.record.actions))
            # R53, D18: the seats too (read after the actions: a hand-over among them has
            # its seats), and taken before the actions reach anyone.
            follow_seats(room, await stored_seats(self.store, room.id))
            if rows:
                row = await self.store.table_row(room.id)
                follow_rows(room, rows, row["deadline"] if row else None)

    def closed(self, room: Room) -> None:
        """D51: the writer closed the table. Its connections here are told, as the writer
        tells its own (closing.py), and this copy goes: the table's address answers
        `table_closed` from the store from now on."""
        closed_here(room)
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
        self.idle_since.pop(room.id, None)
        self.spawn(self.bus.unsubscribe(channel("t", room.id)))

    async def reached(self, room: Room, count: int) -> None:
        """Until this copy holds `count` actions (the announcement is on its way; after a
        moment, the store is asked)."""
        for _ in range(3):
            while (room.host is not None and len(room.host.table.record.actions) < count
                   and isinstance(replica := room.peers, Replica)):
                try:
                    await asyncio.wait_for(replica.advanced.wait(), 0.5)
                except TimeoutError:
                    break
            if room.host is None or len(room.host.table.record.actions) >= count or room.owned:
                return
            await self.catch_up(room)

    def _presence(self, room: Room) -> None:
        """Tell the owner which seats are connected here (also when none is)."""
        seats = sorted({c.seat for c in room.clients if c.seat is not None})
        spectators = sum(1 for c in room.clients if c.seat is None)
        self.outbox.put_nowait((channel("o", room.id), Presence(
            sender=self.name, seats=tuple(seats), spectators=spectators,
            until=time.time() + self.tick * 6)))
        if room.clients:
            self.idle_since.pop(room.id, None)
        else:
            self.idle_since.setdefault(room.id, time.monotonic())

    def _message(self, name: str, message: Message) -> None:
        """One message heard on one of this process's channels (bus.py)."""
        kind, _, key = name.removeprefix("trusis:").partition(":")
        if self.news.heard(message):
            return
        if isinstance(message, Reply):
            self.forward.heard(message)
            return
        room = self.rooms.get(key)
        if room is None:
            return
        if kind == "t" and not room.owned:
            if isinstance(message, Actions):
                if not follow(room, message.first, message.entries, message.deadline):
                    self.spawn(self.catch_up(room))
            elif isinstance(message, Removed):
                removed_here(room, message.player)  # D55
            elif isinstance(message, TableFacts) and message.status == CLOSED:
                self.closed(room)  # D51
            elif isinstance(message, TableFacts) and apply_facts(room, message):
                self.spawn(self.catch_up(room))
        elif kind == "o" and room.owned:
            if isinstance(message, Presence):
                self._heard_presence(room, message)
            elif isinstance(message, Act | Lobby):
                self.spawn(self.forward.answer(room, message, self.serve))

    def _heard_presence(self, room: Room, message: Presence) -> None:
        """A follower's connected seats; the table is shown again only when they changed
        (followers repeat theirs at every beat, to keep them from expiring)."""
        writer = room.peers
        if not isinstance(writer, Writer):
            return
        node = message.sender
        seats, spectators = frozenset(message.seats), message.spectators
        known = writer.remote.get(node)
        before = {s for _, held, _ in writer.remote.values() for s in held}
        writer.remote[node] = (message.until, seats, spectators)
        if known is not None and (known[1], known[2]) == (seats, spectators):
            return
        for seat in seats:
            room.here(seat)  # R52, D52: played there
        for seat in before - seats:
            room.gone(seat)
        room.broadcast_table()

    def figures(self) -> dict[str, Any]:
        rooms = list(self.rooms.values())
        return {"node": self.name, "owned": sum(1 for r in rooms if r.owned),
                "followed": sum(1 for r in rooms if not r.owned),
                "redis": "ok" if self.bus.up else "down", "forwarded": self.forward.count,
                "cut_off": self.aside.cut[0] if self.aside.cut else None,
                "taken_over": self.taken, "redis_dropped": self.bus.dropped,
                "lease_renewed_s_ago": round(time.monotonic() - self.keeper.renewed_at, 2)}

