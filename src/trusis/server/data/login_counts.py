"""The counters of logins and registrations (`login_failures`), each counted in one
atomic statement: limits/logins.py says what the counts mean and when they refuse.

`INSERT … ON CONFLICT DO UPDATE … RETURNING`, on SQLite and PostgreSQL alike: forty
simultaneous tries cannot all read "4 failures so far" before any of them has written
its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from trusis.server.data import schema

KEY_LENGTH = 128
"""A counter's key is cut to this: the column's width."""


@dataclass(frozen=True)
class Count:
    """A counter as one try left it: its failures and its `first_at`."""

    failures: int
    first_at: float


class LoginCounts:
    """The counters' rows."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    def _insert(self) -> Any:
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite
        return dialect.insert(schema.login_failures)

    async def count_in_window(self, key: str, now: float, seconds: float) -> Count:
        """Count one try under `key` in a window of `seconds` that starts again once over."""
        f = schema.login_failures
        expired = f.c.first_at + seconds <= now
        stmt = self._insert().values(key=key[:KEY_LENGTH], failures=1, first_at=now)
        stmt = stmt.on_conflict_do_update(index_elements=[f.c.key], set_={
            "failures": case((expired, 1), else_=f.c.failures + 1),
            "first_at": case((expired, now), else_=f.c.first_at),
        }).returning(f.c.failures, f.c.first_at)
        async with self.engine.begin() as conn:
            count, first_at = (await conn.execute(stmt)).one()
        return Count(int(count), float(first_at))

    async def count_after_delay(self, key: str, now: float,
                                delays: Sequence[tuple[int, float]],
                                forget: float) -> tuple[bool, Count | None]:
        """Count one try under `key` (`first_at` then holds this try's time) unless the
        delay its failures call for (`delays`: from at least n failures, wait s seconds;
        longest first) has not passed since the last one; a counter left alone `forget`
        seconds starts again. (counted, the counter) — the counter as it stands when the
        try was not counted."""
        f = schema.login_failures
        delay = case(*[(f.c.failures >= n, seconds) for n, seconds in delays], else_=0.0)
        stmt = self._insert().values(key=key[:KEY_LENGTH], failures=1, first_at=now)
        stmt = stmt.on_conflict_do_update(
            index_elements=[f.c.key],
            set_={"failures": case((f.c.first_at + forget <= now, 1),
                                   else_=f.c.failures + 1),
                  "first_at": now},
            where=f.c.first_at + delay <= now,
        ).returning(f.c.failures, f.c.first_at)
        async with self.engine.begin() as conn:
            counted = (await conn.execute(stmt)).first()
            if counted is not None:
                return True, Count(int(counted[0]), float(counted[1]))
            row = (await conn.execute(
                f.select().where(f.c.key == key[:KEY_LENGTH]))).first()
        return False, None if row is None else Count(int(row.failures), float(row.first_at))

    async def clear(self, key: str) -> None:
        f = schema.login_failures
        async with self.engine.begin() as conn:
            await conn.execute(delete(f).where(f.c.key == key[:KEY_LENGTH]))
