"""Leases and fencing numbers on the machine's PostgreSQL (issue 13: data/leases.py).

The store's fenced append is the guarantee behind a stalled owner: whatever it
still has in memory, it can store nothing once another process has taken its
game over, because the fencing number is checked in the very transaction that
would store the action. These tests drive `Store` and `Leases` directly, two
"processes" (nodes) on one database, with no timing involved.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import select, update

from serverproc import drop_database, new_database, postgres_available
from trusis.server.cluster.keeper import Keeper
from trusis.server.config import normalise_database_url
from trusis.server.data import schema
from trusis.server.data import store as store_module
from trusis.server.data.leases import Leases
from trusis.server.data.store import LeaseLost, Store

pytestmark = pytest.mark.skipif(not postgres_available(), reason="needs the machine's PostgreSQL")


@pytest_asyncio.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    url = await asyncio.to_thread(new_database, "postgresql", tmp_path)
    store = Store(normalise_database_url(url))
    await store.migrate()
    try:
        yield store
    finally:
        await store.close()
        await asyncio.to_thread(drop_database, url)


async def new_table(store: Store, table_id: str, status: str = "running") -> None:
    host = await store.new_player("Host", "guest")
    await store.new_table(table_id, "t", host.id, {}, "invite", False)
    async with store.engine.begin() as conn:
        await conn.execute(update(schema.tables).where(schema.tables.c.id == table_id)
                           .values(status=status))


async def append(store: Store, table_id: str, index: int, fence: tuple[str, int]) -> None:
    await store.append(table_id, index, {"seat": 1, "do": "pass"}, 1.0, None, None, None,
                       "day:1", None, fence)


async def stored(store: Store, table_id: str) -> list[tuple[int, int | None]]:
    a = schema.actions
    async with store.engine.connect() as conn:
        rows = (await conn.execute(select(a.c.idx, a.c.fence).where(a.c.table_id == table_id)
                                   .order_by(a.c.idx))).all()
    return [(int(r[0]), r[1]) for r in rows]


async def expire(store: Store, table_id: str) -> None:
    """As if its owner stalled past the lease's end."""
    async with store.engine.begin() as conn:
        await conn.execute(update(schema.leases).where(schema.leases.c.table_id == table_id)
                           .values(expires_at=0.0))


@pytest.mark.asyncio
async def test_a_lost_lease_stores_nothing_and_the_new_owner_stores_under_its_number(
        store: Store) -> None:
    a, b = Leases(store, "a", 5.0), Leases(store, "b", 5.0)
    await new_table(store, "t1")
    assert await a.create("t1") == 1
    await append(store, "t1", 0, ("a", 1))
    assert await b.take_expired(10) == []  # a live lease is never taken
    await expire(store, "t1")
    assert await b.take_expired(10) == [("t1", 2)]
    with pytest.raises(LeaseLost):  # a wakes up and tries: refused, nothing stored
        await append(store, "t1", 1, ("a", 1))
    assert await stored(store, "t1") == [(0, 1)]
    assert await a.renew() == {}
    assert await b.renew() == {"t1": 2}
    await append(store, "t1", 1, ("b", 2))
    assert await stored(store, "t1") == [(0, 1), (1, 2)]


@pytest.mark.asyncio
async def test_in_one_group_commit_only_the_lost_lease_fails(store: Store) -> None:
    a, b = Leases(store, "a", 5.0), Leases(store, "b", 5.0)
    for name in ("t1", "t2"):
        await new_table(store, name)
        await a.create(name)
    await expire(store, "t2")
    assert await b.take_expired(10) == [("t2", 2)]
    results = await asyncio.gather(append(store, "t1", 0, ("a", 1)),
                                   append(store, "t2", 0, ("a", 1)), return_exceptions=True)
    assert results[0] is None and isinstance(results[1], LeaseLost)
    assert await stored(store, "t1") == [(0, 1)]
    assert await stored(store, "t2") == []


@pytest.mark.asyncio
async def test_finished_games_are_never_taken_and_a_clean_stop_hands_games_back(
        store: Store) -> None:
    a, b = Leases(store, "a", 30.0), Leases(store, "b", 30.0)
    await new_table(store, "done", status="finished")
    await new_table(store, "live")
    await new_table(store, "orphan")  # made by a single process: no lease yet
    await a.create("done")
    await a.create("live")
    await expire(store, "done")
    await a.adopt_orphans()
    assert await b.take_expired(10) == [("orphan", 1)]
    await a.hand_back()  # a clean shutdown: its games go at once, not after 30 s
    assert await b.take_expired(10) == [("live", 2)]
    assert await a.owner("live") == "b"


@pytest.mark.asyncio
async def test_a_finished_game_let_go_is_claimed_once_with_a_higher_number(store: Store) -> None:
    a, b = Leases(store, "a", 30.0), Leases(store, "b", 30.0)
    await new_table(store, "done", status="finished")
    assert await a.create("done") == 1
    assert await b.claim("done") is None  # a still holds it (its chat after the end)
    await a.release("done")  # out of a's memory
    assert await a.renew() == {}  # a let it go: it is not renewed
    assert await b.claim("done") == 2
    assert await a.claim("done") is None
    with pytest.raises(LeaseLost):
        await append(store, "done", 0, ("a", 1))
    await append(store, "done", 0, ("b", 2))
    assert await stored(store, "done") == [(0, 2)]


@pytest.mark.asyncio
async def test_the_lobby_writes_of_a_lost_lease_are_refused_too(store: Store) -> None:
    a, b = Leases(store, "a", 5.0), Leases(store, "b", 5.0)
    await new_table(store, "open", status="open")
    await a.create("open")
    await store.set_seat("open", 1, "bot", "Basil", None, "normal", ("a", 1))
    await expire(store, "open")
    assert await b.take_expired(10) == [("open", 2)]
    with pytest.raises(LeaseLost):
        await store.set_seat("open", 2, "bot", "Cid", None, "normal", ("a", 1))
    with pytest.raises(LeaseLost):
        await store.free_seat("open", 1, ("a", 1))
    assert [s["name"] for s in await store.seat_rows("open")] == ["Basil"]
    await store.free_seat("open", 1, ("b", 2))
    assert await store.seat_rows("open") == []


@pytest.mark.asyncio
async def test_a_migration_longer_than_the_transaction_limit_still_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: the lock that lets one process migrate at a time was held inside a
    transaction, and PostgreSQL ended that session once the migration outlasted
    `transaction_seconds` (on a busy machine): the process failed to start (CI)."""
    url = await asyncio.to_thread(new_database, "postgresql", tmp_path)
    store = Store(normalise_database_url(url), transaction_seconds=1.0)
    upgrade = store_module.command.upgrade

    def slow_upgrade(*args: object, **kwargs: object) -> None:
        time.sleep(2.5)  # a slow machine
        upgrade(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store_module.command, "upgrade", slow_upgrade)
    try:
        await store.migrate()
        assert await store.table_row("nothing-here") is None  # the schema is there
    finally:
        await store.close()
        await asyncio.to_thread(drop_database, url)


class _Redis:
    """A Redis that always answers (the beat pings it first)."""

    up = True

    def beat(self) -> None:
        return None


class _Up:
    """Nothing is cut off (aside.py's answer while both links answer)."""

    cut = None

    def unreachable(self) -> None:
        return None

    def serve_again(self) -> None:
        return None


def beating(store: Store, leases: Leases) -> tuple[Keeper, list[tuple[str, int]]]:
    """A node's beat (cluster/keeper.py) with no game in memory, whose first taking over
    fails as a read-back can (the database busy, the process starting); and its tries."""
    tries: list[tuple[str, int]] = []

    async def take(table_id: str, fence: int) -> None:
        tries.append((table_id, fence))
        if len(tries) == 1:
            raise RuntimeError("the game could not be read back")

    async def catch_up(_room: Any) -> None:
        return None

    keeper = Keeper(store, leases, _Redis(), {}, {}, 1.0, _Up(),  # type: ignore[arg-type]
                    take, catch_up, lambda _room: None, lambda _work: None)
    return keeper, tries


@pytest.mark.asyncio
async def test_a_game_whose_taking_over_failed_is_taken_again_at_the_next_beat(
        store: Store) -> None:
    """A lease taken over is renewed from then on: a failed read-back must be tried again,
    or the renewals keep the game's lease alive with nobody running it (the stall issue 20
    found with a process restarted under its old name)."""
    a = Leases(store, "a", 5.0)
    b, tries = beating(store, Leases(store, "b", 5.0))
    await new_table(store, "t1")
    await a.create("t1")
    await expire(store, "t1")
    await b._beat(1)  # takes the lease (fencing number 2), and fails to run the game
    assert tries == [("t1", 2)] and b.untaken == {"t1": 2}
    await b._beat(2)
    assert tries == [("t1", 2), ("t1", 2)] and b.untaken == {}
    await b._beat(3)  # taken: not again
    assert len(tries) == 2
