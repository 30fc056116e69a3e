"""Group commits: the actions of every table, stored together, each before its `ack`.

While one transaction is being written, the next actions wait in a queue and go
into the next one, so a busy server pays one commit for many actions instead of
one each, and no two writers wait for each other's locks. With several
processes, each action carries its process's fencing number (data/leases.py),
checked in the same transaction: an action of a lost lease is never stored.

A command another process forwarded carries a deadline, in the database's clock
(`STORE_BY`, set by cluster/forward.py for the task that runs it): its transaction
reads the clock as its last statement before the commit, and a command past its
deadline is not stored (`TooLate`). So once the deadline, and the bound on a
transaction's idle time after it (`idle_in_transaction_session_timeout`), have passed,
no commit can store the command any more, and its forwarder may say so (issue 41).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    BigInteger,
    Connection,
    String,
    column,
    create_engine,
    extract,
    func,
    make_url,
    select,
    update,
    values,
)
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import StaticPool

from trusis.server.data import schema
from trusis.server.data.batch import Append, settle, statements, stored
from trusis.server.data.sqlite_writer import Job, SqliteThread, T, sqlite_pragmas
from trusis.server.monitoring import metrics

Fence = tuple[str, int] | None
"""(node, fencing number) of the process storing for a game; None with one process."""


def fenced(conn: Connection, table_id: str, fence: Fence, seconds: float) -> None:
    """Within a transaction that writes to a table (a `Job`): go on only while this
    process still holds its lease under `fence` (and extend it), or raise `LeaseLost` —
    the lobby's writes are fenced like actions."""
    if fence is None:
        return
    lease = schema.leases
    held = (conn.execute(
        update(lease).where(lease.c.table_id == table_id, lease.c.node == fence[0],
                            lease.c.fence == fence[1])
        .values(expires_at=extract("epoch", func.clock_timestamp()) + seconds)
        .returning(lease.c.table_id))).first()
    if held is None:
        raise LeaseLost(table_id)


class LeaseLost(Exception):
    """The action was not stored: this process no longer owns the game (another one
    took it over, under a higher fencing number: data/leases.py)."""


class TooLate(Exception):
    """The action was not stored: it was forwarded with a deadline (`STORE_BY`), and the
    database's clock had passed it when its transaction was about to commit."""


STORE_BY: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "store_by", default=None)
"""The database time (seconds since the epoch) before which the actions appended by this
task must be committed, or never: a forwarded command's (cluster/forward.py)."""


async def _in_time(conn: Any, batch: list[Append]) -> None:
    """The last statement before a commit that holds forwarded commands: the database's
    clock, against each one's deadline. One late fails the transaction (`TooLate`); the
    batch is then committed an action at a time (`_write`), and only the late one fails."""
    deadlines = [one.until for one in batch if one.until is not None]
    if not deadlines:
        return
    now = (await conn.execute(select(extract("epoch", func.clock_timestamp())))).scalar()
    if float(now) >= min(deadlines):
        raise TooLate("a forwarded command reached its commit after its deadline")


class GroupCommits:
    """The queue of actions waiting to be stored, and the task that stores them."""

    def __init__(self, engine: AsyncEngine, url: str) -> None:
        self.engine = engine
        self.lease_seconds = 5.0  # how long a fenced store extends its game's lease
        self._queue: list[Append] = []
        self._writer: asyncio.Task[None] | None = None
        # SQLite: group commits run on one thread of their own with the standard
        # driver (SqliteThread), instead of a trip to aiosqlite's thread for each
        # statement (each trip waits for a turn of a busy event loop).
        self._sqlite: SqliteThread | None = None
        if engine.dialect.name == "sqlite":
            sqlite = create_engine(make_url(url).set(drivername="sqlite"),
                                   poolclass=StaticPool, hide_parameters=True,
                                   connect_args={"check_same_thread": False})
            sqlite_pragmas(sqlite)
            self._sqlite = SqliteThread(sqlite)

    async def write(self, job: Job[T]) -> T:
        """Run `job` in a transaction of its own and return what it returned: the lobby's
        writes (a seat, a new table, a start, a finished game's rows). On SQLite the
        group commits' thread runs it between two commits, so no write waits on SQLite's
        polled lock (sqlite_writer.py); on PostgreSQL a transaction of the pool."""
        if self._sqlite is not None:
            return await self._sqlite.run(job)
        async with self.engine.begin() as conn:
            return await conn.run_sync(job)

    def queued(self) -> int:
        """Actions waiting for the next group commit (a health figure)."""
        return len(self._sqlite.waiting) if self._sqlite is not None else len(self._queue)

    async def close(self) -> None:
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)
        if self._sqlite is not None:
            await self._sqlite.close()

    async def append(self, table_id: str, index: int, data: dict[str, Any], t: float | None,
                     player_id: str | None, client_id: str | None, deadline: float | None,
                     phase: str, winner: str | None,
                     fence: tuple[str, int] | None = None,
                     notices: Sequence[dict[str, Any]] = (),
                     cancels: Sequence[tuple[int, str]] = ()) -> None:
        """Store one action with the table's new timer and status, in one transaction.

        Returns once that transaction has committed. Actions of every table are
        committed together (a group commit): while one transaction is being written
        the next actions wait in a queue and go into the next one, so a busy server
        pays one commit for many actions instead of one each, and no two writers
        wait for each other's locks. A room stores its actions one at a time, so one
        transaction never holds two actions of one table.

        With a `fence` (several processes), the action is stored only if that
        process still holds the game's lease under that number; otherwise the
        call raises `LeaseLost` and nothing of it is stored.

        `notices` (rows of `schema.notices`) and `cancels` (a seat's reminder of a phase)
        are the outbox's part of the action (notifications/): stored with it or not at all.
        """
        values: dict[str, Any] = {"deadline": deadline, "deadline_phase": phase}
        if winner is not None:
            values.update(status="finished", winner=winner, finished_at=t or time.time(),
                          deadline=None)
        row = {"table_id": table_id, "idx": index, "t": t, "player_id": player_id,
               "client_id": client_id, "data": json.dumps(data, ensure_ascii=False),
               "fence": fence[1] if fence is not None else None}
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        began = time.perf_counter()
        if self._sqlite is not None:
            self._sqlite.put(Append(row, values, done, fence, notices, cancels))
        else:
            self._queue.append(Append(row, values, done, fence, notices, cancels,
                                       STORE_BY.get()))
            if self._writer is None:
                self._writer = asyncio.create_task(self._write(), name="store writer")
        await asyncio.shield(done)  # a cancelled caller still has its action stored
        if (figures := metrics.FIGURES) is not None:
            figures.store_wait.observe(time.perf_counter() - began)

    async def _write(self) -> None:
        """Commit what is queued, as long as something is: one transaction each time."""
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                began = time.perf_counter()
                try:
                    await self._commit(batch)
                except Exception:
                    if len(batch) == 1:
                        raise
                    for one in batch:  # one bad action must not fail the others
                        alone = time.perf_counter()
                        try:
                            await self._commit([one])
                        except Exception as err:
                            settle(one.done, err)
                        else:
                            stored([one], alone)
                else:
                    stored(batch, began)
        except Exception as err:
            for one in batch:
                settle(one.done, err)
        finally:
            self._writer = None
            if self._queue:  # queued while the last error was being handled
                self._writer = asyncio.create_task(self._write(), name="store writer")

    async def _commit(self, batch: list[Append]) -> None:
        """One transaction (PostgreSQL): the leases, the actions, then each table's timer
        and status."""
        async with self.engine.begin() as conn:
            fenced = [one for one in batch if one.fence is not None]
            if fenced:  # the leases first: their rows stay locked until the commit
                held = await self._extend_leases(conn, fenced)
                for one in fenced:
                    if one.row["table_id"] not in held:
                        settle(one.done, LeaseLost(one.row["table_id"]))
                batch = [one for one in batch if not one.done.done()]
            if not batch:
                return
            for statement, rows in statements(batch):
                await conn.execute(statement, rows)
            await _in_time(conn, batch)

    async def _extend_leases(self, conn: Any, fenced: list[Append]) -> set[str]:
        """The games of `fenced` whose lease each one's process still holds under its
        number (their leases extended): in one statement, whatever the batch."""
        lease = schema.leases
        now = extract("epoch", func.clock_timestamp())
        wanted = values(column("table_id", String), column("node", String),
                        column("fence", BigInteger), name="wanted").data(
            [(one.row["table_id"], one.fence[0], one.fence[1])
             for one in fenced if one.fence is not None])
        rows = (await conn.execute(
            update(lease).where(lease.c.table_id == wanted.c.table_id,
                                lease.c.node == wanted.c.node,
                                lease.c.fence == wanted.c.fence)
            .values(expires_at=now + self.lease_seconds)
            .returning(lease.c.table_id))).all()
        return {str(r[0]) for r in rows}
