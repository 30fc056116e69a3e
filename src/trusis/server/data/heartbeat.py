"""Whether PostgreSQL answers, in bounded time, and what its clock says (issue 41).

A process cut off from its database by a black hole gets no error: a query on the
link waits for ever, and a TCP error comes only when the link is refused. So the
process asks the database on a connection of its own, every beat, and bounds each
question (`TIMEOUT_SECONDS`): an answer late or missing ends that connection at once
(`terminate`, which sends nothing and waits for nothing) and the next beat opens a new
one. The database is down once its questions have gone unanswered for `down_after`
seconds — counted from the first question left unanswered, so that a process too busy
to ask never takes its own slowness for the database's. With several processes the
question is the lease renewal itself (data/leases.py), and an answer also brings the
database's clock: `now()` is the database's time as this process reckons it from its
last answer, which the processes share to time a forwarded command
(cluster/forward.py) without trusting their own clocks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import Sequence
from typing import Any

import asyncpg
from sqlalchemy import exc, make_url

log = logging.getLogger("trusis.server")

TIMEOUT_SECONDS = 2.0
"""The longest a question to the database may take, opening the connection included."""
PING = "SELECT extract(epoch FROM clock_timestamp())::float8 AS now"


class DatabaseUnreachable(Exception):
    """The database did not answer in time, or refused the connection."""


UNREACHABLE = (DatabaseUnreachable, ConnectionError, TimeoutError, socket.gaierror,
               asyncpg.PostgresConnectionError, asyncpg.InterfaceError,
               asyncpg.exceptions.OperatorInterventionError, exc.TimeoutError)


def unreachable(err: BaseException) -> bool:
    """Whether `err` says the database could not be reached (refused, reset, timed out, a
    connection lost), rather than that a statement was wrong: what answers 503, not 500.
    SQLAlchemy wraps the driver's error (`orig`), which wraps the network's (its cause)."""
    seen: BaseException | None = err
    for _ in range(6):
        if seen is None:
            return False
        if isinstance(seen, UNREACHABLE):
            return True
        if isinstance(seen, exc.DBAPIError) and seen.connection_invalidated:
            return True
        seen = seen.orig if isinstance(seen, exc.DBAPIError) and seen.orig is not seen \
            else seen.__cause__
    return False


def driver_url(url: str) -> str:
    """`url` (SQLAlchemy's, `postgresql+asyncpg://`) as asyncpg reads it."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class Heartbeat:
    """One connection to PostgreSQL for the questions that say whether it answers."""

    def __init__(self, url: str, down_after: float = 3.0,
                 timeout: float = TIMEOUT_SECONDS) -> None:
        self.url = driver_url(url)
        self.down_after = down_after
        self.timeout = timeout
        self.answered_at: float | None = None
        """When the last question was answered (monotonic): None before the first."""
        self.unanswered_since: float | None = None
        """When the first question since the last answer was asked (monotonic), while
        none has been answered since: None when the last one was."""
        self._conn: asyncpg.Connection | None = None
        self._clock: tuple[float, float] = (time.time(), time.monotonic())
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self.failures = 0

    @property
    def up(self) -> bool:
        """No question has waited for its answer, in vain, for `down_after` seconds."""
        since = self.unanswered_since
        return since is None or time.monotonic() - since < self.down_after

    def now(self) -> float:
        """The database's clock now, in seconds since the epoch, as of its last answer. It
        runs behind by the answer's way back, never ahead."""
        at, then = self._clock
        return at + (time.monotonic() - then)

    async def fetch(self, sql: str, *args: Any) -> Sequence[asyncpg.Record]:
        """Run `sql` on the heartbeat's connection within the bound; every row must carry
        the database's clock as `now`. `DatabaseUnreachable` when no answer came in time."""
        async with self._lock:  # one question at a time on the one connection
            asked = time.monotonic()
            if self.unanswered_since is None:
                self.unanswered_since = asked
            try:
                rows: Sequence[asyncpg.Record] = await asyncio.wait_for(
                    self._ask(sql, args), self.timeout)
            except (TimeoutError, OSError, asyncpg.PostgresError,
                    asyncpg.InterfaceError) as err:
                self._drop()
                self.failures += 1
                raise DatabaseUnreachable(f"{type(err).__name__}: {err}") from err
        self.answered_at = time.monotonic()
        self.unanswered_since = None
        if rows:
            self._clock = (float(rows[-1]["now"]), self.answered_at)
        return rows

    async def _ask(self, sql: str, args: tuple[Any, ...]) -> Sequence[asyncpg.Record]:
        if self._conn is None or self._conn.is_closed():
            self._conn = await asyncpg.connect(self.url, timeout=self.timeout)
        result: Sequence[asyncpg.Record] = await self._conn.fetch(sql, *args)
        return result

    def _drop(self) -> None:
        """End the connection now: a black-holed one would never finish a goodbye."""
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.terminate()

    async def ping(self) -> None:
        await self.fetch(PING)

    def watch(self, every: float) -> None:
        """Ask every `every` seconds on a task of its own (one process: nothing else asks)."""
        self._task = asyncio.create_task(self._watch(every), name="database heartbeat")

    async def _watch(self, every: float) -> None:
        was_up = True
        while True:
            with contextlib.suppress(DatabaseUnreachable):
                await self.ping()
            if self.up != was_up:
                was_up = self.up
                if was_up:
                    log.warning("database: answering again")
                else:
                    log.warning("database: no answer for %.0f s; requests answer 503",
                                self.down_after)
            await asyncio.sleep(every)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._drop()
