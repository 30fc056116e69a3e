"""SQLite's side of the group commits (commits.py): its settings, and the thread that
writes every batch — and the lobby's writes (`Job`s) — with the standard driver while the
event loop goes on.

SQLite has one write lock, and its waiters poll it (sleeps of 1, 2, 5 … 100 ms). A write
transaction run through aiosqlite holds that lock across a turn of the event loop for each
statement, and at 1,000 tables a turn can take hundreds of milliseconds: the thread then
spent 96 % of its transactions asleep in the busy handler (issue 39). So every frequent
write goes through this one thread: nobody polls, and no lock outlives a few statements."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection, event
from sqlalchemy.engine import Engine

from trusis.server.data.batch import Append, answered, outbox, shapes, sqlite_sql

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


T = TypeVar("T")

Job = Callable[[Connection], T]
"""A write transaction's statements, run with a synchronous connection: on SQLite's thread
(`SqliteThread.run`), or with PostgreSQL through `run_sync` (commits.py, `write`)."""


@dataclass
class Queued(Generic[T]):
    """A job waiting for the thread, and the future its caller awaits."""

    job: Job[T]
    done: asyncio.Future[T]


def _settle(done: asyncio.Future[T], result: T | None, error: BaseException | None) -> None:
    """On the caller's loop: what the job returned or raised (a caller gone: dropped)."""
    if done.done():
        return
    if error is not None:
        done.set_exception(error)
    else:
        done.set_result(result)  # type: ignore[arg-type]


class SqliteThread:
    """SQLite's group commits, on a thread of their own with the standard driver.

    The thread takes the next batch as soon as the last one is committed, a whole
    transaction per batch, and only tells the event loop which actions are stored: a
    batch never waits for a turn of a busy loop to begin (at 500 paced tables the
    loop's turns after a commit — the acks and pushes of the batch before — made an
    action's wait to be stored ten times its commit: docs/architecture.md, "Capacity").
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.waiting: list[Append] = []
        self.jobs: list[Queued[Any]] = []
        self.ready = threading.Condition()
        self.closing = False
        self.thread: threading.Thread | None = None
        self.connection: Connection | None = None

    def put(self, one: Append) -> None:
        """Queue an action (from the event loop); its `done` is settled on its loop."""
        with self.ready:
            self._start()
            self.waiting.append(one)
            self.ready.notify()

    async def run(self, job: Job[T]) -> T:
        """Run `job` in a transaction of its own on the thread, between two group
        commits, and return what it returned (or raise what it raised). A caller that
        stops waiting does not stop the job: like an action, it is stored or fails."""
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        with self.ready:
            self._start()
            self.jobs.append(Queued(job, done))
            self.ready.notify()
        return await asyncio.shield(done)

    def _start(self) -> None:
        """Start the thread if it is not running (with `ready` held)."""
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._run, name="trusis-store",
                                           daemon=True)
            self.thread.start()

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
                while not self.waiting and not self.jobs and not self.closing:
                    self.ready.wait()
                if not self.waiting and not self.jobs:  # closing, and all stored: a
                    self.thread = None  # later `put` starts another (during shutdown)
                    return
                batch, self.waiting = self.waiting, []
                jobs, self.jobs = self.jobs, []
            for queued in jobs:
                self._job(queued)
            if not batch:
                continue
            began = time.perf_counter()
            errors = self._commit(batch)
            loops: dict[asyncio.AbstractEventLoop, list[tuple[Append, Exception | None]]] = {}
            for one, error in zip(batch, errors, strict=True):
                loops.setdefault(one.done.get_loop(), []).append((one, error))
            for loop, answers in loops.items():
                with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits
                    loop.call_soon_threadsafe(answered, answers, began)

    def _job(self, queued: Queued[Any]) -> None:
        """Run one job in its own transaction; its caller learns the outcome on its loop."""
        result: Any = None
        error: BaseException | None = None
        try:
            conn = self._connection()
            with conn.begin():
                result = queued.job(conn)
        except Exception as err:
            error = err
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits
            queued.done.get_loop().call_soon_threadsafe(_settle, queued.done, result, error)

    def _connection(self) -> Connection:
        """The pool's one connection, held while the thread runs."""
        if self.connection is None:
            self.connection = self.engine.connect()
        return self.connection

    def _commit(self, batch: list[Append]) -> list[Exception | None]:
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

    def _transaction(self, batch: list[Append]) -> None:
        """The statements of `_statements`, compiled once (`_sqlite_sql`) and run on the
        driver's connection: a group commit costs the interpreter (whose lock the event
        loop needs) a few calls, not SQLAlchemy's execution of each statement."""
        conn: sqlite3.Connection = (
            self._connection().connection.driver_connection)  # type: ignore[assignment]
        sql, order = sqlite_sql(None)
        try:
            conn.executemany(sql, [tuple(one.row[c] for c in order) for one in batch])
            for names, rows in shapes(batch).items():
                sql, order = sqlite_sql(names)
                conn.executemany(sql, [tuple(row[c] for c in order) for row in rows])
            for which, rows in zip(("notices", "cancel"), outbox(batch), strict=True):
                if rows:
                    sql, order = sqlite_sql(which)
                    conn.executemany(sql, [tuple(row[c] for c in order) for row in rows])
            conn.commit()
        except BaseException:
            conn.rollback()
            raise
