"""The mute check a `say` waits for (server/mutes.py, issue 18), on a real SQLite file.

On SQLite the check reads on a connection of its own, on the event loop; these check
that it answers exactly as the async engine does (the moderation page's read, and
PostgreSQL's path) for every shape of a player's record, that a mute given or lifted
through the engine counts on the very next check (nothing is cached), and that when
the file cannot be read that way the engine answers instead. The black-box tests are
in test_server_moderation.py (one process) and test_server_moderation_cluster.py
(a mute given on one process refuses chat on the other at once).
"""

from __future__ import annotations

import sqlite3
import time

import pytest

from trusis.server import mutes, sanctions
from trusis.server.store import Store


@pytest.fixture
def store(sqlite_store: Store) -> Store:
    """A migrated store on a fresh SQLite file (sqlitestore.py)."""
    return sqlite_store


async def both(store: Store, player_id: str) -> float | None:
    """The check's answer, after checking that the engine's is the same."""
    here = await store.mutes.until(player_id)
    assert store.mutes._sqlite is not None  # it read on its own connection
    assert here == await mutes.muted_until(store.engine, player_id)
    return here


async def give(store: Store, player_id: str, kind: sanctions.SanctionKind,
               until: float | None) -> str:
    async with store.engine.begin() as conn:
        return await sanctions.give(conn, player_id, kind, "spam", "mod", until, None)


@pytest.mark.asyncio
async def test_every_shape_of_a_record_answers_as_the_engine(store: Store) -> None:
    player = (await store.new_player("Ann", "guest")).id
    now = time.time()
    assert await both(store, player) is None  # nothing on record
    await give(store, player, "warning", None)
    await give(store, player, "ban", now + 600)  # a ban is not a mute
    assert await both(store, player) is None
    over = await give(store, player, "mute", now + 0.2)
    lifted = await give(store, player, "mute", now + 900)
    async with store.engine.begin() as conn:
        await sanctions.lift(conn, lifted)
    assert await both(store, player) == pytest.approx(now + 0.2)
    time.sleep(0.25)  # the short mute is over
    assert await both(store, player) is None
    await give(store, player, "mute", now + 300)
    await give(store, player, "mute", now + 1200)
    assert await both(store, player) == pytest.approx(now + 1200)  # the longest
    forever = await give(store, player, "mute", None)
    assert await both(store, player) == 0.0  # no end
    async with store.engine.begin() as conn:
        await sanctions.lift(conn, forever)
    assert await both(store, player) == pytest.approx(now + 1200)
    assert over and await store.mutes.until(None) is None


@pytest.mark.asyncio
async def test_a_mute_counts_on_the_next_check(store: Store) -> None:
    """The check's connection stays open between `say`s; it sees every commit at once."""
    ann = (await store.new_player("Ann", "guest")).id
    bob = (await store.new_player("Bob", "guest")).id
    assert await both(store, ann) is None
    mute = await give(store, ann, "mute", time.time() + 60)
    assert await both(store, ann) is not None and await both(store, bob) is None
    async with store.engine.begin() as conn:
        await sanctions.lift(conn, mute)
    assert await both(store, ann) is None


@pytest.mark.asyncio
async def test_the_engine_answers_when_the_file_cannot_be_read_here(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    player = (await store.new_player("Ann", "guest")).id
    until = time.time() + 60
    await give(store, player, "mute", until)

    def busy(_player: str) -> float | None:
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(store.mutes, "_read_here", busy)
    assert await store.mutes.until(player) == pytest.approx(until)


@pytest.mark.asyncio
async def test_an_in_memory_database_is_read_through_the_engine() -> None:
    store = Store("sqlite+aiosqlite://")
    assert store.mutes.path is None  # a second connection would see another database
    check = mutes.MuteCheck(store.engine)
    assert check.path is None
    await store.close()
