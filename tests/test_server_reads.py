"""How far a player read a game ("Your games", issue 37), kept when a page closes
(data/reads.py): one statement since issue 39, on SQLite and on PostgreSQL alike. The
first close makes the row, a later close with more read moves it forward, one with less
(a page closing late with an older view) never moves it back, and closes racing each
other end with the furthest one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from serverproc import on_fresh_database
from trusis.server.config import normalise_database_url
from trusis.server.data.reads import mark_read, reads_of
from trusis.server.data.store import Store


async def _marks(url: str) -> None:
    store = Store(normalise_database_url(url))
    await store.migrate()
    engine = store.engine
    try:
        assert await reads_of(engine, "ann", ["t1"]) == {}
        await mark_read(store, "t1", "ann", 5)  # made
        await mark_read(store, "t1", "ann", 9)  # forward
        await mark_read(store, "t1", "ann", 7)  # a late page: never back
        await mark_read(store, "t2", "ann", 3)
        await mark_read(store, "t1", "bob", 2)
        assert await reads_of(engine, "ann", ["t1", "t2", "t3"]) == {"t1": 9, "t2": 3}
        assert await reads_of(engine, "bob", ["t1"]) == {"t1": 2}
        await asyncio.gather(*(mark_read(store, "t3", "ann", seq) for seq in (4, 12, 8)))
        assert (await reads_of(engine, "ann", ["t3"]))["t3"] == 12
    finally:
        await store.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_mark_is_made_then_only_moves_forward(kind: str, tmp_path: Path) -> None:
    on_fresh_database(kind, tmp_path, _marks)
