"""Whether a player may chat: the mute check every `say` waits for (issue 18).

A mute given on any process counts at once on every other. The database says, and a
process keeps only what it read that said "not muted" (issue 39: a `say` read the
database every time, on PostgreSQL a millisecond of the loop): a mute forgets all of it
(`forget`) on the process that gave it, and on every other one when its `muted` message
arrives over the bus (tables/player_connections.py `tell_warning`) — the same message
that sends the player's pages the `muted` frame, so a mute is in force wherever it is
told (D69). A process in a cluster keeps nothing while its bus is not heard
(`cacheable`: a message may have been lost), and forgets everything when the bus is
back. A mute read stays unkept: it is read again until it ends or is lifted, which
therefore needs no message. Reads that began before a `forget` keep nothing
(`_generation`), and nothing is kept longer than `FREE_SECONDS`: a `muted` message whose
publication failed (Redis refused the giver, not the others) is lost, and the mute then
counts there within that time. How a miss reads:

- Through the async engine the read cost about 0.9 ms of the event loop on SQLite and
  1.1 ms on PostgreSQL (`python bench/mute_check.py`): a pool checkout, and on SQLite
  four trips to aiosqlite's thread, each waiting for a turn of a busy loop. At 500
  paced tables a `say`'s p99 was twice a vote's.
- On SQLite the same indexed read on a connection of its own, on the loop itself, takes
  about 3 µs, far less than one of those trips. WAL lets it read while the
  commit thread writes, and it never waits for a lock: with `busy_timeout` 0 a busy file
  answers at once with an error, and the async engine answers instead.

PostgreSQL (and an in-memory SQLite database, which no second connection can see) keep
the async engine.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable

from sqlalchemy import ColumnElement, Select, bindparam, or_, select
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.elements import BindParameter

from trusis.server.data import schema

FREE_KEPT = 100_000
"""At most this many players are kept as free to chat; past it all are read again."""

FREE_SECONDS = 30.0
"""How long "not muted" is kept at most (monotonic seconds): the bound on a lost message."""


def in_force(now: float | BindParameter[float]) -> ColumnElement[bool]:
    """A sanction neither lifted nor over at `now`."""
    s = schema.sanctions
    return (s.c.lifted_at.is_(None)) & or_(s.c.until.is_(None), s.c.until > now)


_MAKER = select(schema.players.c.made_by).where(
    schema.players.c.id == bindparam("player")).scalar_subquery()
"""Who made the player, if it is a program seat: their mute is the program's too (D41)."""

MUTES: Select[float | None] = select(schema.sanctions.c.until).where(
    or_(schema.sanctions.c.player_id == bindparam("player"),
        schema.sanctions.c.player_id == _MAKER),
    schema.sanctions.c.kind == "mute", in_force(bindparam("now")))
"""The ends of the mutes in force of a player, or of the person who made their program
seat (D41): the one query of both paths."""


def _end(ends: list[float | None]) -> float | None:
    """When the longest of these mutes ends: 0.0 for never, None for no mute."""
    if not ends:
        return None
    if any(end is None for end in ends):
        return 0.0
    return max(end for end in ends if end is not None)


async def muted_until(engine: AsyncEngine, player_id: str) -> float | None:
    """When the player's chat mute ends (0.0: never), or None: through `engine`."""
    async with engine.connect() as conn:
        rows = (await conn.execute(MUTES, {"player": player_id, "now": time.time()})).all()
    return _end([row[0] for row in rows])


class MuteCheck:
    """The mute check of one store (see the module's docstring for why two paths)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        database = engine.url.database if engine.dialect.name == "sqlite" else None
        self.path = database if database and database != ":memory:" \
            and not database.startswith("file:") else None
        self._sqlite: sqlite3.Connection | None = None
        compiled = MUTES.compile(dialect=sqlite_dialect.dialect())
        self._sql = str(compiled)
        self._order = compiled.positiontup or []  # the parameters' names, in order
        self._fixed = compiled.params  # `kind`'s value
        self._free: dict[str, float] = {}
        """Players read as not muted since the last `forget`, with when (monotonic): see
        the module's docstring."""
        self._generation = 0
        self.cacheable: Callable[[], bool] = lambda: True
        """Whether what is read may be kept and used: a cluster's node says so while its
        bus is heard (cluster/node.py); one process alone always may."""

    def forget(self) -> None:
        """A mute was given (here, or told over the bus), or the bus was lost: read again."""
        self._free.clear()
        self._generation += 1

    async def until(self, player_id: str | None) -> float | None:
        """When the player's chat mute ends (0.0: never), or None if they may chat."""
        if player_id is None:
            return None
        cacheable = self.cacheable()
        now = time.monotonic()
        if cacheable and now - self._free.get(player_id, -FREE_SECONDS) < FREE_SECONDS:
            return None
        generation = self._generation
        ends = await self._read(player_id)
        if ends is None and cacheable and generation == self._generation:
            if len(self._free) >= FREE_KEPT:
                self._free.clear()
            self._free[player_id] = now
        return ends

    async def _read(self, player_id: str) -> float | None:
        if self.path is not None:
            try:
                return self._read_here(player_id)
            except sqlite3.Error:  # busy, or this connection unusable: the engine answers
                self.close()
        return await muted_until(self.engine, player_id)

    def _read_here(self, player_id: str) -> float | None:
        if self._sqlite is None:
            assert self.path is not None
            # timeout 0: a busy file raises at once (SQLITE_BUSY) instead of waiting
            self._sqlite = sqlite3.connect(self.path, timeout=0, isolation_level=None)
        given = {**self._fixed, "player": player_id, "now": time.time()}
        rows = self._sqlite.execute(self._sql, [given[name] for name in self._order]).fetchall()
        return _end([row[0] for row in rows])

    def close(self) -> None:
        if self._sqlite is not None:
            self._sqlite.close()
            self._sqlite = None
