"""Group commits: the actions of every table, stored together, each before its `ack`.

While one transaction is being written, the next actions wait in a queue and go
into the next one, so a busy server pays one commit for many actions instead of
one each, and no two writers wait for each other's locks. With several
processes, each action carries its process's fencing number (cluster/lease.py),
checked in the same transaction: an action of a lost lease is never stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BigInteger,
    String,
    bindparam,
    column,
    create_engine,
    event,
    extract,
    func,
    insert,
    make_url,
    update,
    values,
)
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import PoolProxiedConnection, StaticPool

from trusis.server import metrics, schema

SQLITE_BUSY_MS = 30_000
"""How long a write waits for SQLite's one write lock before it fails. SQLite's waiting is
polling, not a queue: with 300 games setting up at once a seat's write waited past the
former 5 s and answered 500 ("database is locked"); a slow answer is better than none."""


def sqlite_pragmas(engine: Engine) -> None:
    """WAL keeps every committed transaction through a crash of the process and lets
    readers work while the writer commits; foreign keys as PostgreSQL has them."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
        cursor.close()


ACTION_COLUMNS = ("table_id", "idx", "t", "player_id", "client_id", "data", "fence")
"""An action's row, as `GroupCommits.append` makes it."""


def _shapes(batch: list[_Append]) -> dict[tuple[str, ...], list[dict[str, Any]]]:
    """The tables' rows to update, grouped by the columns each one changes."""
    shapes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for one in batch:
        shapes.setdefault(tuple(sorted(one.values)), []).append(
            {"b_id": one.row["table_id"], **{f"b_{k}": v for k, v in one.values.items()}})
    return shapes


def _insert() -> Any:
    return insert(schema.actions).values({c: bindparam(c) for c in ACTION_COLUMNS})


def _update(names: tuple[str, ...]) -> Any:
    t = schema.tables
    return update(t).where(t.c.id == bindparam("b_id")).values(
        {n: bindparam(f"b_{n}") for n in names})


def _statements(batch: list[_Append]) -> list[tuple[Any, list[dict[str, Any]]]]:
    """A group commit's statements: a few, whatever the size of the batch (each one is
    a trip to the database driver, and under load each trip waits for the event loop)."""
    statements: list[tuple[Any, list[dict[str, Any]]]] = [
        (_insert(), [one.row for one in batch])]
    for names, rows in _shapes(batch).items():
        statements.append((_update(names), rows))
    return statements


@functools.cache
def _sqlite_sql(names: tuple[str, ...] | None) -> tuple[str, tuple[str, ...]]:
    """SQLite's text of the actions' insert (None) or of a tables' update, and the order
    of its parameters: the same statements, compiled once."""
    compiled = (_insert() if names is None else _update(names)).compile(
        dialect=sqlite_dialect())
    assert compiled.positiontup is not None
    return str(compiled), tuple(compiled.positiontup)


Fence = tuple[str, int] | None
"""(node, fencing number) of the process storing for a game; None with one process."""


async def fenced(conn: Any, table_id: str, fence: Fence, seconds: float) -> None:
    """Within a transaction that writes to a table: go on only while this process still
    holds its lease under `fence` (and extend it), or raise `LeaseLost` — the lobby's
    writes are fenced like actions."""
    if fence is None:
        return
    lease = schema.leases
    held = (await conn.execute(
        update(lease).where(lease.c.table_id == table_id, lease.c.node == fence[0],
                            lease.c.fence == fence[1])
        .values(expires_at=extract("epoch", func.clock_timestamp()) + seconds)
        .returning(lease.c.table_id))).first()
    if held is None:
        raise LeaseLost(table_id)


class LeaseLost(Exception):
    """The action was not stored: this process no longer owns the game (another one
    took it over, under a higher fencing number: cluster/lease.py)."""


@dataclass
class _Append:
    """One action waiting for a group commit, and the future its caller awaits."""

    row: dict[str, Any]
    values: dict[str, Any]
    done: asyncio.Future[None]
    fence: tuple[str, int] | None = None  # (node, number): stored only while it holds


def _settle(done: asyncio.Future[None], error: Exception | None) -> None:
    if done.done():
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


def _stored(batch: list[_Append], began: float) -> None:
    """Answer the callers whose actions were committed (and count them: metrics.py)."""
    stored = [one for one in batch if not one.done.done()]  # not refused by their lease
    if (figures := metrics.FIGURES) is not None:
        figures.commit.observe(time.perf_counter() - began)
        figures.actions.inc(len(stored))
        ended = sum(1 for one in stored if "winner" in one.values)
        if ended:
            figures.finished.inc(ended)
    for one in stored:
        _settle(one.done, None)


class _SqliteThread:
    """SQLite's group commits, on a thread of their own with the standard driver.

    The thread takes the next batch as soon as the last one is committed, a whole
    transaction per batch, and only tells the event loop which actions are stored: a
    batch never waits for a turn of a busy loop to begin (at 500 paced tables the
    loop's turns after a commit — the acks and pushes of the batch before — made an
    action's wait to be stored ten times its commit: docs/architecture.md, "Capacity").
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.waiting: list[_Append] = []
        self.ready = threading.Condition()
        self.closing = False
        self.thread: threading.Thread | None = None
        self.connection: PoolProxiedConnection | None = None

    def put(self, one: _Append) -> None:
        """Queue an action (from the event loop); its `done` is settled on its loop."""
        with self.ready:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="trusis-store",
                                               daemon=True)
                self.thread.start()
            self.waiting.append(one)
            self.ready.notify()

    async def close(self) -> None:
        """Store what is queued, then stop the thread."""
        with self.ready:
            self.closing = True
            self.ready.notify()
            thread = self.thread
        if thread is not None:
            await asyncio.to_thread(thread.join)
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        self.engine.dispose()

    def _run(self) -> None:
        while True:
            with self.ready:
                while not self.waiting and not self.closing:
                    self.ready.wait()
                if not self.waiting:  # closing, and all stored: a later `put` starts
                    self.thread = None  # another thread (an action during shutdown)
                    return
                batch, self.waiting = self.waiting, []
            began = time.perf_counter()
            errors = self._commit(batch)
            loops: dict[asyncio.AbstractEventLoop, list[tuple[_Append, Exception | None]]] = {}
            for one, error in zip(batch, errors, strict=True):
                loops.setdefault(one.done.get_loop(), []).append((one, error))
            for loop, answers in loops.items():
                with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits
                    loop.call_soon_threadsafe(_answered, answers, began)

    def _commit(self, batch: list[_Append]) -> list[Exception | None]:
        """Commit `batch` in one transaction; if that fails, each action alone (one bad
        action must not fail the others). What failed, action by action."""
        try:
            self._transaction(batch)
            return [None] * len(batch)
        except Exception as err:
            if len(batch) == 1:
                return [err]
        errors: list[Exception | None] = []
        for one in batch:
            try:
                self._transaction([one])
                errors.append(None)
            except Exception as err:
                errors.append(err)
        return errors

    def _transaction(self, batch: list[_Append]) -> None:
        """The statements of `_statements`, compiled once (`_sqlite_sql`) and run on the
        driver's connection: a group commit costs the interpreter (whose lock the event
        loop needs) a few calls, not SQLAlchemy's execution of each statement."""
        if self.connection is None:  # the pool's one connection, held while the thread runs
            self.connection = self.engine.raw_connection()
        conn: sqlite3.Connection = self.connection.driver_connection  # type: ignore[assignment]
        sql, order = _sqlite_sql(None)
        try:
            conn.executemany(sql, [tuple(one.row[c] for c in order) for one in batch])
            for names, rows in _shapes(batch).items():
                sql, order = _sqlite_sql(names)
                conn.executemany(sql, [tuple(row[c] for c in order) for row in rows])
            conn.commit()
        except BaseException:
            conn.rollback()
            raise


def _answered(answers: list[tuple[_Append, Exception | None]], began: float) -> None:
    """On the event loop: the callers of a batch the thread wrote learn what became of
    their actions (None: stored)."""
    for one, error in answers:
        if error is not None:
            _settle(one.done, error)
    _stored([one for one, error in answers if error is None], began)


class GroupCommits:
    """The queue of actions waiting to be stored, and the task that stores them."""

    def __init__(self, engine: AsyncEngine, url: str) -> None:
        self.engine = engine
        self.lease_seconds = 5.0  # how long a fenced store extends its game's lease
        self._queue: list[_Append] = []
        self._writer: asyncio.Task[None] | None = None
        # SQLite: group commits run on one thread of their own with the standard
        # driver (_SqliteThread), instead of a trip to aiosqlite's thread for each
        # statement (each trip waits for a turn of a busy event loop).
        self._sqlite: _SqliteThread | None = None
        if engine.dialect.name == "sqlite":
            sqlite = create_engine(make_url(url).set(drivername="sqlite"),
                                   poolclass=StaticPool, hide_parameters=True,
                                   connect_args={"check_same_thread": False})
            sqlite_pragmas(sqlite)
            self._sqlite = _SqliteThread(sqlite)

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
                     fence: tuple[str, int] | None = None) -> None:
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
            self._sqlite.put(_Append(row, values, done, fence))
        else:
            self._queue.append(_Append(row, values, done, fence))
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
                            _settle(one.done, err)
                        else:
                            _stored([one], alone)
                else:
                    _stored(batch, began)
        except Exception as err:
            for one in batch:
                _settle(one.done, err)
        finally:
            self._writer = None
            if self._queue:  # queued while the last error was being handled
                self._writer = asyncio.create_task(self._write(), name="store writer")

    async def _commit(self, batch: list[_Append]) -> None:
        """One transaction (PostgreSQL): the leases, the actions, then each table's timer
        and status."""
        async with self.engine.begin() as conn:
            fenced = [one for one in batch if one.fence is not None]
            if fenced:  # the leases first: their rows stay locked until the commit
                held = await self._extend_leases(conn, fenced)
                for one in fenced:
                    if one.row["table_id"] not in held:
                        _settle(one.done, LeaseLost(one.row["table_id"]))
                batch = [one for one in batch if not one.done.done()]
            if not batch:
                return
            for statement, rows in _statements(batch):
                await conn.execute(statement, rows)

    async def _extend_leases(self, conn: Any, fenced: list[_Append]) -> set[str]:
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
