"""Keeping a process's part of the cluster up to date, every quarter of a lease.

At each beat the node (node.py) pings Redis, renews the leases it holds — and follows
any game whose lease it found gone — takes over the games whose owner let theirs expire
(timers included: the deadline is stored; a finished one only while clients here
are at it, for its chat after the end, R50), drops the presence of followers that
stopped reporting (their seats' grace periods start, R52), tells each owner which
seats are connected here, checks its followed games against the store's action
counts, and lets go of the followed games nobody here looks at any more. While it
cannot reach PostgreSQL or Redis it does none of that but step aside (aside.py), and
let its leases go at once when the database answers.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from trusis.server.cluster.aside import Aside
from trusis.server.cluster.bus import Bus, channel
from trusis.server.cluster.writer import Writer
from trusis.server.data.heartbeat import DatabaseUnreachable, unreachable
from trusis.server.data.leases import Leases
from trusis.server.data.store import Store
from trusis.server.tables.room import Room

log = logging.getLogger("trusis.server")

T = TypeVar("T")
Owned = dict[str, tuple[str, int]]
"""The games owned here, each under its fence (node, number)."""

FOLLOW_IDLE_SECONDS = 60.0
"""A followed game nobody here looks at is dropped after this long."""
TAKE_AT_ONCE = 50
"""Expired leases taken over at one beat, at most."""


class Keeper:
    """The node's beat (node.py): given the store, the leases and the bus, the node's rooms
    and their idle times, the beat's length, its `Aside` (what is cut off), and the node's
    own steps: `take` a game over, `catch_up` a followed one, tell its owner the
    `presence` here, `spawn` background work."""

    def __init__(self, store: Store, leases: Leases, bus: Bus, rooms: dict[str, Room],
                 idle_since: dict[str, float], tick: float, aside: Aside,
                 take: Callable[[str, int], Awaitable[None]],
                 catch_up: Callable[[Room], Awaitable[None]],
                 presence: Callable[[Room], None],
                 spawn: Callable[[Coroutine[Any, Any, Any]], None]) -> None:
        self.store = store
        self.leases = leases
        self.bus = bus
        self.rooms = rooms
        self.idle_since = idle_since
        self.tick = tick
        self.aside = aside
        self.take = take
        self.catch_up = catch_up
        self.presence = presence
        self.spawn = spawn
        self.renewed_at = 0.0
        self.untaken: dict[str, int] = {}
        """Leases taken here whose game could not be read back and run: tried again."""

    async def _keep(self) -> None:
        """Every quarter of a lease: renew (and step aside or back); then the chores —
        take over, tell presence, catch up, tidy — on a task of their own, so that chores
        slowed by a slow database never delay the next renewal (one round trip): only
        one round of chores runs at a time, and a renewal finds the last one still going
        at worst."""
        beat = 0
        chores: asyncio.Task[None] | None = None
        while True:
            renewed = await self._guarded(self._renew())
            if renewed is not None and (chores is None or chores.done()):
                chores = asyncio.create_task(self._guarded(self._chores(beat, *renewed)),
                                             name="cluster chores")
            beat += 1
            await asyncio.sleep(self.tick)

    async def _guarded(self, work: Awaitable[T]) -> T | None:
        """`work`'s result, or None when it failed (logged: a line when the database did
        not answer, a traceback for anything else)."""
        try:
            return await work
        except asyncio.CancelledError:
            raise
        except Exception as err:
            if not unreachable(err):
                log.exception("cluster: a lease round failed; trying again")
            elif self.aside.unreachable() is None:  # once down, aside.py says it once
                log.warning("cluster: the database did not answer (%s); trying again",
                            type(err).__name__)
            return None

    async def _beat(self, beat: int) -> None:
        """One whole beat: the renewal, then its chores."""
        renewed = await self._renew()
        if renewed is not None:
            await self._chores(beat, *renewed)

    async def _renew(self) -> tuple[Owned, dict[str, int]] | None:
        """Ping Redis and renew the leases (the database's heartbeat): the rooms owned
        before the renewal began and the leases held after it, or None when this beat
        judges nothing (cut off, or no answer this time)."""
        self.bus.beat()
        # Judged: only the rooms owned before the renewal began (a table created while it
        # runs has a lease the renewal may not have seen).
        owned: Owned = {r.id: r.fence for r in self.rooms.values()
                        if r.owned and r.fence is not None}
        held: dict[str, int] | None = None
        try:
            if self.bus.up:
                held = await self.leases.renew()  # the database's heartbeat too
            else:  # cut off from Redis: whoever can reach both serves its games now
                await self.leases.let_go()
        except DatabaseUnreachable as err:  # said once it is down for long (aside.py)
            log.info("cluster: the database did not answer the lease renewal (%s)", err)
        if (link := self.aside.unreachable()) is not None:
            await self.aside.step_aside(link)
            return None
        self.aside.serve_again()
        if held is None:
            return None  # judged at the next beat
        self.renewed_at = time.monotonic()
        return owned, held

    async def _chores(self, beat: int, owned: Owned, held: dict[str, int]) -> None:
        """Follow the games whose lease was found gone; take over; presence; catch up."""
        for table_id, fence in owned.items():
            room = self.rooms.get(table_id)
            if room is None or not room.owned or room.fence != fence or fence is None:
                continue
            if held.get(table_id) != fence[1]:
                async with room.lock:
                    if room.owned and room.fence == fence:
                        log.warning("table %s: lease lost; following the new owner", room.id)
                        await room.lose()
        if self.aside.cut is not None:
            return  # cut off meanwhile: nothing is taken over
        # Held here, yet not owned: own it again — a follower's copy, or a game whose taking
        # over failed (`untaken`: without a new try the renewals would keep its lease alive
        # with nobody running the game, as issue 20's restarted process did).
        retake = [(table_id, number) for table_id, number in held.items()
                  if table_id not in owned and (
                      self.untaken.get(table_id) == number
                      or ((room := self.rooms.get(table_id)) is not None and not room.owned))]
        self.untaken = {}
        chatting = [r.id for r in self.rooms.values()
                    if not r.owned and r.status == "finished" and r.clients]
        taken = [*await self.leases.take_expired(TAKE_AT_ONCE),
                 *await self.leases.take_finished(chatting)]
        for table_id, number in [*retake, *taken]:
            if self.aside.cut is not None:  # cut off meanwhile: let go of at the next beat
                self.untaken[table_id] = number
                continue
            try:
                await self.take(table_id, number)
            except Exception:  # tried again at the next beat, while the lease is held here
                self.untaken[table_id] = number
                log.exception("table %s: could not be taken over; trying again", table_id)
        now = time.time()
        for room in list(self.rooms.values()):
            if isinstance(writer := room.peers, Writer):
                stale = [n for n, (until, _, _) in writer.remote.items() if until < now]
                for node in stale:
                    _, seats, _ = writer.remote.pop(node)
                    for seat in seats:
                        room.gone(seat)
            elif room.clients:
                self.presence(room)
        if beat % 2 == 0:
            await self._check_counts()
        self._drop_idle()

    async def _check_counts(self) -> None:
        """Followed games whose stored record is longer than this copy catch up."""
        followed = [r for r in self.rooms.values() if not r.owned and r.status != "finished"]
        if not followed:
            return
        counts = await self.store.action_counts([r.id for r in followed])
        for room in followed:
            have = len(room.host.table.record.actions) if room.host is not None else -1
            if room.host is None or counts.get(room.id, 0) > have:
                await self.catch_up(room)

    def _drop_idle(self) -> None:
        now = time.monotonic()
        for table_id, since in list(self.idle_since.items()):
            room = self.rooms.get(table_id)
            if room is None or room.owned:
                self.idle_since.pop(table_id, None)
            elif not room.clients and now - since > FOLLOW_IDLE_SECONDS:
                self.idle_since.pop(table_id, None)
                del self.rooms[table_id]
                self.spawn(self.bus.unsubscribe(channel("t", table_id)))

    async def reconnected(self) -> None:
        """After Redis came back: what was announced meanwhile is read from the store, and
        every owner hears again who is connected here."""
        for room in list(self.rooms.values()):
            if not room.owned:
                await self.catch_up(room)
                if room.clients:
                    self.presence(room)
