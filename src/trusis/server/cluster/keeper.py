"""Keeping a process's part of the cluster up to date, every quarter of a lease.

At each beat the node (node.py) renews the leases it holds — and follows any game
whose lease it found gone — takes over the games whose owner let theirs expire
(timers included: the deadline is stored; a finished one only while clients here
are at it, for its chat after the end, R50), drops the presence of followers that
stopped reporting (their seats' grace periods start, R52), tells each owner which
seats are connected here, checks its followed games against the store's action
counts, and lets go of the followed games nobody here looks at any more.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from trusis.server.cluster.bus import Bus, channel
from trusis.server.cluster.lease import Leases
from trusis.server.cluster.writer import Writer
from trusis.server.room import Room
from trusis.server.store import Store

log = logging.getLogger("trusis.server")

FOLLOW_IDLE_SECONDS = 60.0
"""A followed game nobody here looks at is dropped after this long."""
TAKE_AT_ONCE = 50
"""Expired leases taken over at one beat, at most."""


class Keeping:
    """The node's beat (a part of `Node`)."""

    store: Store
    leases: Leases
    bus: Bus
    rooms: dict[str, Room]
    tick: float
    renewed_at: float
    idle_since: dict[str, float]
    untaken: dict[str, int]
    """Leases taken here whose game could not be read back and run: tried again."""

    async def _take(self, table_id: str, fence: int) -> None:
        raise NotImplementedError  # Node's

    async def catch_up(self, room: Room) -> None:
        raise NotImplementedError  # Node's

    def _presence(self, room: Room) -> None:
        raise NotImplementedError  # Node's

    def spawn(self, work: Any) -> None:
        raise NotImplementedError  # Node's

    async def _keep(self) -> None:
        """Every quarter of a lease: renew, take over, tell presence, catch up, tidy."""
        beat = 0
        while True:
            try:
                await self._beat(beat)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: a lease round failed; trying again")
            beat += 1
            await asyncio.sleep(self.tick)

    async def _beat(self, beat: int) -> None:
        # Judged: only the rooms owned before the renewal began (a table created while it
        # runs has a lease the renewal may not have seen).
        owned = {r.id: r.fence for r in self.rooms.values() if r.owned and r.fence is not None}
        held = await self.leases.renew()
        self.renewed_at = time.monotonic()
        for table_id, fence in owned.items():
            room = self.rooms.get(table_id)
            if room is None or not room.owned or room.fence != fence or fence is None:
                continue
            if held.get(table_id) != fence[1]:
                async with room.lock:
                    if room.owned and room.fence == fence:
                        log.warning("table %s: lease lost; following the new owner", room.id)
                        await room.lose()
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
            try:
                await self._take(table_id, number)
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
                self._presence(room)
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

    async def _reconnected(self) -> None:
        """After Redis came back: what was announced meanwhile is read from the store, and
        every owner hears again who is connected here."""
        for room in list(self.rooms.values()):
            if not room.owned:
                await self.catch_up(room)
                if room.clients:
                    self._presence(room)
