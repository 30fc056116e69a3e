"""A player deleted by another process — `trusis admin delete` beside a running server —
loses their connections and seats here within `DELETED_CHECK_SECONDS` (D53).

A player who deletes their own account does it through a server process, which tells
every other at once (revocation.py, the cluster's bus). The command line is a process of
its own that only writes the database: its tokens and name are gone there, so every
request is refused at once (identity.py asks the database each time), but an open
WebSocket asks nothing more once it has joined. So each process asks the database, every
`DELETED_CHECK_SECONDS`, which of the players it serves — connected here, or seated at a
table it writes — are deleted, and treats each as a deletion told over the bus: their
connections close (4401) and their seats go as a banned player's do (hub.py). One indexed
query by primary key for up to `CHUNK` players: a few a minute for a busy process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from trusis.server.data.store import Store
from trusis.server.players.revoked import Revocation
from trusis.server.tables.hub import Hub

log = logging.getLogger("trusis.server")

DELETED_CHECK_SECONDS = 5.0
"""How long a deletion made outside the running server (`trusis admin delete`) may take to
close the deleted player's connections and take their seats (docs/deploy.md)."""


class DeletedCheck:
    """This process's look, every `DELETED_CHECK_SECONDS`, for deleted players it serves."""

    def __init__(self, store: Store, hub: Hub, period: float = DELETED_CHECK_SECONDS) -> None:
        self.store = store
        self.hub = hub
        self.period = period
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._checking(), name="deleted players")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def check(self) -> list[str]:
        """Close the connections and take the seats of the deleted players served here."""
        served = self.hub.connections.people_here()
        if not served:
            return []
        found = await self.store.accounts.deleted_among(served)
        for player_id in found:
            log.info("a deleted player's connections close and seats go (D53)")
            self.hub.connections.close_revoked(Revocation(player=player_id, deleted=True))
        return found

    async def _checking(self) -> None:
        while True:
            await asyncio.sleep(self.period)
            try:
                await self.check()
            except Exception:  # the database away for a moment: the next look tries again
                log.exception("looking for deleted players")
