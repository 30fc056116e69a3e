"""Group commits on SQLite (server/commits.py): the thread that stores every action.

These drive `Store.append` on a real SQLite file, many actions at once from the event
loop, as a busy server does: each caller returns only once its action is stored, a
batch that cannot be stored whole is stored action by action so that one bad action
fails alone, and closing the store stores what is still queued.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import select

from trusis.server.data import schema
from trusis.server.data.store import Store


@pytest.fixture
def store(sqlite_store: Store) -> Store:
    """A migrated store on a fresh SQLite file (sqlitestore.py)."""
    return sqlite_store


async def new_table(store: Store, table_id: str) -> None:
    host = await store.new_player("Host", "guest")
    await store.new_table(table_id, "t", host.id, {}, "invite", False)


async def append(store: Store, table_id: str, index: int, deadline: float = 60.0) -> None:
    await store.append(table_id, index, {"seat": 1, "do": "pass", "n": index}, float(index),
                       None, f"c{index}", deadline, f"day:{index}", None)


async def stored(store: Store, table_id: str) -> list[int]:
    a = schema.actions
    async with store.engine.connect() as conn:
        rows = (await conn.execute(select(a.c.idx, a.c.data).where(a.c.table_id == table_id)
                                   .order_by(a.c.idx))).all()
    assert all(json.loads(r[1])["n"] == r[0] for r in rows)
    return [int(r[0]) for r in rows]


async def deadline_of(store: Store, table_id: str) -> tuple[float | None, str | None]:
    t = schema.tables
    async with store.engine.connect() as conn:
        row = (await conn.execute(select(t.c.deadline, t.c.deadline_phase)
                                  .where(t.c.id == table_id))).one()
    return row[0], row[1]


@pytest.mark.asyncio
async def test_every_caller_returns_once_its_action_is_stored(store: Store) -> None:
    tables = [f"t{n}" for n in range(20)]
    for table_id in tables:
        await new_table(store, table_id)
    for index in range(5):  # twenty tables' actions at once, five times: batches
        await asyncio.gather(*(append(store, table_id, index, 100.0 + index)
                               for table_id in tables))
        for table_id in tables:  # stored when the caller returned, timer with it
            assert await stored(store, table_id) == list(range(index + 1))
            assert await deadline_of(store, table_id) == (100.0 + index, f"day:{index}")
    assert store.commits.queued() == 0


@pytest.mark.asyncio
async def test_one_action_that_cannot_be_stored_fails_alone(store: Store) -> None:
    for table_id in ("a", "b", "c"):
        await new_table(store, table_id)
    await append(store, "b", 0)
    results = await asyncio.gather(append(store, "a", 0), append(store, "b", 0),
                                   append(store, "c", 0), return_exceptions=True)
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], sqlite3.IntegrityError)  # b's index 0 was taken: only b fails
    assert await stored(store, "a") == [0] and await stored(store, "c") == [0]
    assert await stored(store, "b") == [0]
    await append(store, "b", 1)  # the thread goes on after a failure
    assert await stored(store, "b") == [0, 1]


@pytest.mark.asyncio
async def test_closing_stores_what_is_queued(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'close.db'}"
    store = Store(url)
    await store.migrate()
    await new_table(store, "t")
    pending = [asyncio.ensure_future(append(store, "t", index)) for index in range(50)]
    await asyncio.sleep(0)  # every action handed to the thread
    await store.close()
    await asyncio.gather(*pending)
    again = Store(url)
    try:
        assert await stored(again, "t") == list(range(50))
    finally:
        await again.close()
