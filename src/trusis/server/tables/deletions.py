"""A player deleted by another process — `trusis admin delete` beside a running server —
loses their connections and seats here within `DELETED_CHECK_SECONDS` (D53).

A player who deletes their own account does it through a server process, which tells
every other at once (revocation.py, the cluster's bus). The command line is a process of
its own that only writes the database: its tokens and name are gone there, so every
request is refused at once (identity.py asks the database each time), but an open
WebSocket asks nothing more once it has joined. So each process asks the database, every
`DELETED_CHECK_SECONDS`, which of the players it serves — connected here, or seated at a
table it writes — are deleted, and treats each as a deletion told over the bus: their
connections close (4401) and their seats go as a banned player's do (hub.py).

Asking about every player served costs as many as there are: at 10,000 players twenty
queries of 500 ids, compiled on the event loop, every 5 s — about 7 % of the loop of a
process carrying 1,000 tables (docs/architecture.md, "Capacity"). An operator's deletion
writes its audit line in the same transaction (D37), and the log is indexed by time, so
each look asks only for the deletions logged since the last (`DeletedCheck.recent`), and
the whole question is asked at the first look and then every `FULL_CHECK_SECONDS`: a
deletion made while this process was down, or a player's own deletion whose message over
the bus was lost (they have no audit line), is still found, later.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from trusis.server.data.store import Store
from trusis.server.players.revoked import Revocation
from trusis.server.tables.hub import Hub

log = logging.getLogger("trusis.server")

DELETED_CHECK_SECONDS = 5.0
"""How long a deletion made outside the running server (`trusis admin delete`) may take to
close the deleted player's connections and take their seats (docs/deploy.md)."""

FULL_CHECK_SECONDS = 60.0
"""How often every player served is asked about, not only the deletions logged since."""

CLOCKS_APART = 60.0
"""How far before the last look the log is read again: an audit line's time is its writer's
clock (another machine's, beside a cluster) at its insert, and it may commit later."""


class DeletedCheck:
    """This process's look, every `DELETED_CHECK_SECONDS`, for deleted players it serves."""

    def __init__(self, store: Store, hub: Hub, period: float = DELETED_CHECK_SECONDS,
                 full_every: float = FULL_CHECK_SECONDS) -> None:
        self.store = store
        self.hub = hub
        self.period = period
        self.full_every = full_every
        self.task: asyncio.Task[None] | None = None
        self.since: float | None = None  # the log is read from here (None: a full look)
        self.seen: dict[str, float] = {}  # audit lines already acted on, with their times
        self.full_at = 0.0  # when the last full look was (monotonic)

    def start(self) -> None:
        self.task = asyncio.create_task(self._checking(), name="deleted players")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def check(self) -> list[str]:
        """Close the connections and take the seats of the deleted players served here:
        those logged as deleted since the last look, or at a full look every one."""
        now = time.monotonic()
        if self.since is None or now - self.full_at >= self.full_every:
            found = await self.full()
            self.full_at = now
        else:
            found = await self.recent()
        for player_id in found:
            log.info("a deleted player's connections close and seats go (D53)")
            self.hub.connections.close_revoked(Revocation(player=player_id, deleted=True))
        return found

    async def full(self) -> list[str]:
        """Every player served here, asked about (and the log's reading begins)."""
        began = time.time()
        served = self.hub.connections.people_here()
        found = await self.store.accounts.deleted_among(served) if served else []
        if self.since is None:
            self.since = began
        return found

    async def recent(self) -> list[str]:
        """The deletions logged since the last look, of players served here."""
        assert self.since is not None
        lines = await self.store.accounts.deletions_since(self.since - CLOCKS_APART)
        new = [(line, player, at) for line, player, at in lines if line not in self.seen]
        for line, _player, at in new:
            self.seen[line] = at
            self.since = max(self.since, at)
        self.seen = {line: at for line, at in self.seen.items()
                     if at >= self.since - CLOCKS_APART}
        if not new:
            return []
        served = self.hub.connections.people_here()
        return sorted({player for _line, player, _at in new if player in served})

    async def _checking(self) -> None:
        while True:
            await asyncio.sleep(self.period)
            try:
                await self.check()
            except Exception:  # the database away for a moment: the next look tries again
                log.exception("looking for deleted players")
