"""D53: the look for players deleted beside the running server asks, between two full looks,
only for the deletions logged since the last — not about every player served (issue 39:
at 10,000 players that was twenty queries every 5 s, about 7 % of the event loop).

In-process, on a real migrated SQLite store; the hub is a stand-in that says whom this
process serves and records whose connections were closed. The black-box path (`trusis admin
delete` beside a real server, within DELETED_CHECK_SECONDS) is
test_server_sanctions_told.py's."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from sqlitestore import sqlite_store  # noqa: F401 - the fixture
from trusis.server.data import audit
from trusis.server.data.personal import forget_in, forget_logged
from trusis.server.data.store import Store
from trusis.server.players.revoked import Revocation
from trusis.server.tables.deletions import DeletedCheck


class Served:
    """The hub's part the check uses: the players served, and whom it closed."""

    def __init__(self, players: set[str]) -> None:
        self.players = players
        self.closed: list[str] = []
        self.asked = 0

    def people_here(self) -> set[str]:
        self.asked += 1
        return set(self.players)

    def close_revoked(self, revoked: Revocation) -> None:
        assert revoked.deleted
        self.closed.append(revoked.player)


class Hub:
    def __init__(self, served: Served) -> None:
        self.connections = served


def _check(store: Store, served: Served, full_every: float = 3600.0) -> DeletedCheck:
    return DeletedCheck(store, Hub(served), full_every=full_every)  # type: ignore[arg-type]


async def _own_deletion(engine: AsyncEngine, player_id: str) -> None:
    """A player's own deletion (the API's): no audit line."""
    async with engine.begin() as conn:
        await forget_in(conn, player_id)


@pytest.mark.asyncio
async def test_D53_between_full_looks_only_the_logged_deletions_are_read(
        sqlite_store: Store, monkeypatch: Any) -> None:  # noqa: F811
    store = sqlite_store
    ivy, hal, una = [await store.new_player(n, "guest") for n in ("Ivy", "Hal", "Una")]
    served = Served({ivy.id, hal.id})
    check = _check(store, served)
    asked: list[int] = []
    real = store.accounts.deleted_among

    async def counted(players: set[str]) -> list[str]:
        asked.append(len(players))
        return await real(players)

    monkeypatch.setattr(store.accounts, "deleted_among", counted)
    assert await check.check() == []  # the first look asks about everyone served
    assert asked == [2]
    assert await check.check() == []  # then only the log: nobody asked about
    assert asked == [2] and served.asked == 1

    await forget_logged(store.engine, una.id, audit.CLI, "not served here")
    assert await check.check() == []  # logged, but nobody this process serves
    await forget_logged(store.engine, ivy.id, audit.CLI, "asked to")
    assert await check.check() == [ivy.id]
    assert served.closed == [ivy.id]
    assert await check.check() == []  # each audit line is acted on once
    assert served.closed == [ivy.id]
    assert asked == [2]  # ... and never by asking about every player


@pytest.mark.asyncio
async def test_D53_a_deletion_with_no_audit_line_is_found_at_the_next_full_look(
        sqlite_store: Store) -> None:  # noqa: F811
    """A player's own deletion is told over the bus (revocation.py); were that message
    lost, the full look still finds it."""
    store = sqlite_store
    ivy = await store.new_player("Ivy", "guest")
    served = Served({ivy.id})
    check = _check(store, served, full_every=0.0)  # every look a full one
    assert await check.check() == []
    await _own_deletion(store.engine, ivy.id)
    assert await check.check() == [ivy.id]
    assert served.closed == [ivy.id]

    hal = await store.new_player("Hal", "guest")
    rarely = _check(store, Served({hal.id}))
    assert await rarely.check() == []
    await _own_deletion(store.engine, hal.id)
    assert await rarely.check() == []  # not logged: left to the full look


@pytest.mark.asyncio
async def test_D53_a_deletion_logged_just_before_the_first_look_is_still_found(
        sqlite_store: Store) -> None:  # noqa: F811
    """The log is read again from a minute before the last look (its times are its
    writer's clock), so a line dated before the first look is not missed."""
    store = sqlite_store
    ivy = await store.new_player("Ivy", "guest")
    served = Served(set())  # not yet served at the first look
    check = _check(store, served)
    assert await check.check() == []
    await forget_logged(store.engine, ivy.id, audit.CLI, "before")
    served.players.add(ivy.id)
    assert check.since is not None
    check.since += 30  # as if this process's clock ran 30 s ahead of the writer's
    assert await check.check() == [ivy.id]
