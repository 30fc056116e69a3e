"""SQLite's side of the group commits (commits.py): its settings, and the thread that
writes every batch with the standard driver while the event loop goes on."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import PoolProxiedConnection

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
        self.ready = threading.Condition()
        self.closing = False
        self.thread: threading.Thread | None = None
        self.connection: PoolProxiedConnection | None = None

    def put(self, one: Append) -> None:
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
            loops: dict[asyncio.AbstractEventLoop, list[tuple[Append, Exception | None]]] = {}
            for one, error in zip(batch, errors, strict=True):
                loops.setdefault(one.done.get_loop(), []).append((one, error))
            for loop, answers in loops.items():
                with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits
                    loop.call_soon_threadsafe(answered, answers, began)

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
        if self.connection is None:  # the pool's one connection, held while the thread runs
            self.connection = self.engine.raw_connection()
        conn: sqlite3.Connection = self.connection.driver_connection  # type: ignore[assignment]
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
