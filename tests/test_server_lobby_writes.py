"""The lobby's writes (a seat, a new table, a start, a finished game's rows) go where the
actions go (`Store.write`, issue 39). On SQLite the group commits' thread runs them whole:
no write transaction waits for turns of the event loop while it holds SQLite's one write
lock, which every other writer then polled for (at 1,000 tables the store's thread spent
96 % of its transactions asleep in SQLite's busy handler). On PostgreSQL a transaction of
the pool runs them. Either way the caller gets the job's result or its error, and one
failed write fails nothing else."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest
from sqlalchemy import Connection, text
from sqlalchemy.exc import IntegrityError

from serverproc import on_fresh_database
from trusis.server.config import normalise_database_url
from trusis.server.data.store import Store


async def _seat_while_the_loop_is_busy(path: Path) -> list[tuple[str, int, str]]:
    store = Store(f"sqlite+aiosqlite:///{path}")
    await store.migrate()
    try:
        host = await store.new_player("Host", "guest")
        await store.new_table("t1", "Table", host.id, {}, "inv", False)
        seated = asyncio.create_task(store.set_seat("t1", 1, "person", "Ann", None, None))
        await asyncio.sleep(0)  # the write is handed over
        time.sleep(1.0)  # one long turn of a loaded server's loop: nothing else runs
        with sqlite3.connect(path) as other:  # another connection: what is committed
            rows = other.execute("SELECT table_id, seat, name FROM seats").fetchall()
        await seated
        return rows
    finally:
        await store.close()


def test_a_seat_is_committed_while_the_event_loop_is_busy(tmp_path: Path) -> None:
    """Issue 39: a seat's write needs no turn of the event loop to commit, so it never holds
    SQLite's lock across turns (through aiosqlite it needed one turn per statement, and
    nothing was committed after a whole second of a busy loop)."""
    rows = asyncio.run(_seat_while_the_loop_is_busy(tmp_path / "store.db"))
    assert rows == [("t1", 1, "Ann")]


async def _jobs(url: str) -> None:
    store = Store(normalise_database_url(url))
    await store.migrate()
    try:
        host = (await store.new_player("Host", "guest")).id
        await store.new_table("t1", "Table", host, {}, "inv", False)

        def count(conn: Connection) -> int:
            return int(conn.execute(text("SELECT count(*) FROM tables")).scalar_one())
        assert await store.write(count) == 1  # a job's result reaches its caller

        with pytest.raises(IntegrityError):  # its error too: the id is taken
            await store.new_table("t1", "Again", host, {}, "inv", False)
        # Two writes at once, one of them failing: the other is stored.
        results = await asyncio.gather(
            store.new_table("t1", "Again", host, {}, "inv", False),
            store.new_table("t2", "Second", host, {}, "inv2", False),
            return_exceptions=True)
        assert isinstance(results[0], IntegrityError) and results[1] is None
        assert {row["id"] for row in await store.table_rows(("open",))} == {"t1", "t2"}
        assert (await store.table_row("t1") or {}).get("name") == "Table"  # unchanged
    finally:
        await store.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_write_answers_its_result_or_its_error_and_fails_nothing_else(
        kind: str, tmp_path: Path) -> None:
    on_fresh_database(kind, tmp_path, _jobs)
