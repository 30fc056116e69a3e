"""The mute check a `say` waits for (server/mutes.py, issue 18), on a real SQLite file.

On SQLite the check reads on a connection of its own, on the event loop; these check
that it answers exactly as the async engine does (the moderation page's read, and
PostgreSQL's path) for every shape of a player's record, that a mute given (and told,
`forget`, as the hub does) or lifted counts on the very next check, that only "not
muted" is kept and only while the bus is heard (D69), and that when the file cannot be
read that way the engine answers instead. The black-box tests are
in test_server_moderation.py (one process) and test_server_moderation_cluster.py
(a mute given on one process refuses chat on the other at once).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from importlib import resources
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config

from trusis.server.data import mutes, sanctions
from trusis.server.data.store import Store


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
    """A sanction given, and for a mute told to the check as the hub tells it (D69)."""
    async with store.engine.begin() as conn:
        given = await sanctions.give(conn, player_id, kind, "spam", "mod", until, None)
    if kind == "mute":
        store.mutes.forget()
    return given


@pytest.mark.asyncio
async def test_every_shape_of_a_record_answers_as_the_engine(store: Store) -> None:
    player = (await store.new_player("Ann", "guest")).id
    now = time.time()
    assert await both(store, player) is None  # nothing on record
    await give(store, player, "warning", None)
    await give(store, player, "ban", now + 600)  # a ban is not a mute
    assert await both(store, player) is None
    # 3 s from now, not from the start: on a busy machine the four commits before the check
    # took over 0.2 s, and the three before these, counted too, ate into a 2 s mute
    short = time.time() + 3.0
    over = await give(store, player, "mute", short)
    lifted = await give(store, player, "mute", now + 900)
    async with store.engine.begin() as conn:
        await sanctions.lift(conn, lifted)
    assert await both(store, player) == pytest.approx(short)
    time.sleep(max(0.0, short + 0.05 - time.time()))  # the short mute is over
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


def counting(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The players the check reads from the database, in order."""
    reads: list[str] = []
    read = store.mutes._read

    async def counted(player_id: str) -> float | None:
        reads.append(player_id)
        return await read(player_id)

    monkeypatch.setattr(store.mutes, "_read", counted)
    return reads


@pytest.mark.asyncio
async def test_D69_free_to_chat_is_read_once_until_a_mute_is_told(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39: every `say` read the database. A player read as not muted is not read
    again until a mute is told (any player's: a maker's mute is their programs', D41); a
    muted player is read every time, so a lift counts at once with no message."""
    ann = (await store.new_player("Ann", "guest")).id
    bob = (await store.new_player("Bob", "guest")).id
    reads = counting(store, monkeypatch)
    assert [await store.mutes.until(ann) for _ in range(3)] == [None, None, None]
    assert reads == [ann]
    mute = await give(store, bob, "mute", time.time() + 60)  # told: everything forgotten
    assert await store.mutes.until(ann) is None and await store.mutes.until(bob) is not None
    assert await store.mutes.until(bob) is not None
    assert reads == [ann, ann, bob, bob]
    async with store.engine.begin() as conn:
        await sanctions.lift(conn, mute)  # no message: the mute was never kept
    assert await store.mutes.until(bob) is None and await store.mutes.until(bob) is None
    assert reads == [ann, ann, bob, bob, bob]


@pytest.mark.asyncio
async def test_D69_nothing_is_kept_while_the_bus_is_not_heard(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process whose bus is down may miss a mute told meanwhile: it reads every time,
    and keeps nothing it read then."""
    ann = (await store.new_player("Ann", "guest")).id
    reads = counting(store, monkeypatch)
    store.mutes.cacheable = lambda: False
    assert await store.mutes.until(ann) is None and await store.mutes.until(ann) is None
    store.mutes.cacheable = lambda: True
    assert await store.mutes.until(ann) is None and await store.mutes.until(ann) is None
    assert reads == [ann, ann, ann]


@pytest.mark.asyncio
async def test_D69_not_muted_is_kept_for_a_bounded_time(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `muted` message whose publication failed never arrives: what was kept is read
    again once `FREE_SECONDS` have passed, and the mute counts then."""
    ann = (await store.new_player("Ann", "guest")).id
    reads = counting(store, monkeypatch)
    assert await store.mutes.until(ann) is None and await store.mutes.until(ann) is None
    assert reads == [ann]
    async with store.engine.begin() as conn:  # given elsewhere, its message lost
        await sanctions.give(conn, ann, "mute", "spam", "mod", time.time() + 60, None)
    assert await store.mutes.until(ann) is None  # kept, as on a process never told
    monkeypatch.setattr(mutes, "FREE_SECONDS", 0.0)
    assert await store.mutes.until(ann) is not None
    assert reads == [ann, ann]


@pytest.mark.asyncio
async def test_D69_a_read_that_began_before_a_mute_keeps_nothing(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """On PostgreSQL the read waits: a mute told while it waited makes its "not muted"
    possibly stale, so it is not kept."""
    ann = (await store.new_player("Ann", "guest")).id
    read = store.mutes._read
    reads: list[str] = []

    async def slow(player_id: str) -> float | None:
        reads.append(player_id)
        answer = await read(player_id)
        if len(reads) == 1:
            store.mutes.forget()  # a mute told meanwhile
        return answer

    monkeypatch.setattr(store.mutes, "_read", slow)
    assert await store.mutes.until(ann) is None
    assert await store.mutes.until(ann) is None
    assert reads == [ann, ann]


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


@pytest.mark.asyncio
async def test_D41_a_program_seats_chat_answers_to_its_makers_mute(store: Store) -> None:
    """Finding 3: a mute looked at the program's own player id, so a muted host chatted on
    through the program seat they made. The check now reads the maker's mutes too, on both
    paths; a program someone else made is not concerned."""
    host = (await store.new_player("Mallory", "guest")).id
    mine = (await store.new_player("Helper", "program", made_by=host)).id
    theirs = (await store.new_player("Other", "program", made_by="someone")).id
    assert await store.programs_of(host) == [mine]
    until = time.time() + 600
    mute = await give(store, host, "mute", until)
    assert await both(store, mine) == pytest.approx(until)
    assert await both(store, theirs) is None
    await give(store, mine, "mute", until + 60)  # its own mute counts as before
    assert await both(store, mine) == pytest.approx(until + 60)
    async with store.engine.begin() as conn:
        await sanctions.lift(conn, mute)
    assert await both(store, host) is None


@pytest.mark.asyncio
async def test_D41_programs_made_before_their_maker_was_kept_answer_for_their_host(
        tmp_path: Path) -> None:
    """Migration 0008 gives a program seat made before it the host of the first table it
    sat at: only a table's host hands out program seats."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
    config = Config()
    config.set_main_option("script_location",
                           str(resources.files("trusis.server.data").joinpath("migrations")))
    config.set_main_option("sqlalchemy.url", url)
    await asyncio.to_thread(command.upgrade, config, "0007")
    with sqlite3.connect(tmp_path / "old.db") as db:
        for pid, kind in (("host", "guest"), ("prog", "program"), ("later", "guest")):
            db.execute("INSERT INTO players (id, name, kind, created_at, rated_games, deleted)"
                       " VALUES (?, ?, ?, 0, 0, 0)", (pid, pid.title(), kind))
        for tid, host, at in (("t1", "host", 1.0), ("t2", "later", 2.0)):  # a rematch later
            db.execute("INSERT INTO tables (id, name, host_id, options, status, invite, "
                       "created_at, private) VALUES (?, 'x', ?, '{}', 'finished', 'i', ?, 0)",
                       (tid, host, at))
            db.execute("INSERT INTO seats (table_id, seat, kind, player_id, name) "
                       "VALUES (?, 2, 'program', 'prog', 'Prog')", (tid,))
    store = Store(url)
    try:
        await store.migrate()
        assert await store.programs_of("host") == ["prog"]
        assert await store.programs_of("later") == []
        await give(store, "host", "mute", None)
        assert await store.mutes.until("prog") == 0.0
    finally:
        await store.close()
