"""Leases: one owner process per game at a time, in PostgreSQL, with a fencing number.

A process owns a game while its lease row names it and has not expired; time is
the database's clock, so the processes' own clocks never matter. Taking a game
over bumps its fencing number, and every action is stored only if the number it
was applied under is still the lease's (store.py checks it in the same
transaction): a process that stalled past its lease — paused, swapped out, cut
off — can wake up and try, but it can never store anything again, so it can
never acknowledge anything again.

The renewal is the process's heartbeat with PostgreSQL (heartbeat.py): one statement on
a connection of its own, bounded in time, which also reads the database's clock. One
statement is one round trip, so a slow link costs the renewal as little as it can: with
a lease of 5 s, renewed every 1.25 s, a renewal may take up to the heartbeat's bound.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, extract, func, insert, literal, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert

from trusis.server.data import schema
from trusis.server.data.heartbeat import Heartbeat
from trusis.server.data.store import Store

LIVE = ("open", "running")

CLOCK = "extract(epoch FROM clock_timestamp())::float8"
RENEW = f"""WITH renewed AS (
    UPDATE leases SET expires_at = {CLOCK} + $2::float8
    WHERE node = $1 AND expires_at > 0 RETURNING table_id, fence)
SELECT table_id, fence, {CLOCK} AS now FROM renewed
UNION ALL SELECT NULL, NULL, {CLOCK}"""
"""Every lease of node $1 extended by $2 seconds, and the clock (the last row: no lease)."""
LET_GO = f"""WITH gone AS (
    UPDATE leases SET expires_at = 0 WHERE node = $1 AND expires_at > 0 RETURNING table_id)
SELECT count(*) AS leases, {CLOCK} AS now FROM gone"""
"""Every lease of node $1 expired now, and the clock."""


def database_now() -> Any:
    """Seconds since the epoch by the database server's clock (at this very moment,
    not at the start of the transaction)."""
    return extract("epoch", func.clock_timestamp())


class Leases:
    """The lease rows of one process, `node`, held for `seconds` at each renewal."""

    def __init__(self, store: Store, node: str, seconds: float) -> None:
        self.store = store
        self.node = node
        self.seconds = seconds
        assert store.heartbeat is not None, "leases are PostgreSQL's"
        self.heartbeat: Heartbeat = store.heartbeat

    async def create(self, table_id: str) -> int:
        """A new table's lease, held by its creator: fencing number 1."""
        async with self.store.engine.begin() as conn:
            await conn.execute(insert(schema.leases).values(
                table_id=table_id, node=self.node, fence=1,
                expires_at=database_now() + self.seconds))
        return 1

    async def adopt_orphans(self) -> None:
        """Open and running tables with no lease (made by a single-process server, or
        before an upgrade) get an expired one, so that some process takes them over."""
        t, lease = schema.tables, schema.leases
        orphans = select(t.c.id, literal(""), literal(0), literal(0.0)).where(
            t.c.status.in_(LIVE))
        statement = pg_insert(lease).from_select(
            ["table_id", "node", "fence", "expires_at"], orphans).on_conflict_do_nothing()
        async with self.store.engine.begin() as conn:
            await conn.execute(statement)

    async def renew(self) -> dict[str, int]:
        """Extend every lease this process holds (not those it let go: `release`); the
        answer is what it still holds. `DatabaseUnreachable` when the database did not
        answer within the heartbeat's bound (what was extended is then unknown)."""
        rows = await self.heartbeat.fetch(RENEW, self.node, self.seconds)
        return {str(r["table_id"]): int(r["fence"]) for r in rows if r["table_id"] is not None}

    async def let_go(self) -> int:
        """A process cut off (from Redis) lets every game go at once, for another process to
        take over at its next look: how many. On the heartbeat's bounded connection."""
        rows = await self.heartbeat.fetch(LET_GO, self.node)
        return int(rows[0]["leases"])

    async def take_expired(self, limit: int) -> list[tuple[str, int]]:
        """Take over up to `limit` live games whose owner let its lease expire; each
        comes with its new fencing number. Rows another process is locking right now
        (taking them, or storing an action under them) are skipped, never waited for."""
        t, lease = schema.tables, schema.leases
        expired = (select(lease.c.table_id).join(t, t.c.id == lease.c.table_id)
                   .where(t.c.status.in_(LIVE), lease.c.expires_at < database_now())
                   .order_by(lease.c.expires_at).limit(limit)
                   .with_for_update(of=lease, skip_locked=True))
        return await self._take(expired)

    async def take_finished(self, table_ids: list[str]) -> list[tuple[str, int]]:
        """Take over the finished games among `table_ids` (followed here, with clients)
        whose owner died or let them go: R50 keeps their chat open, and a follower's
        messages need a writer. `take_expired` leaves finished games alone, since most are
        out of everybody's memory and need none until someone opens them (`claim`)."""
        if not table_ids:
            return []
        lease = schema.leases
        expired = (select(lease.c.table_id)
                   .where(lease.c.table_id.in_(table_ids), lease.c.expires_at < database_now())
                   .with_for_update(skip_locked=True))
        return await self._take(expired)

    async def _take(self, expired: Select[Any]) -> list[tuple[str, int]]:
        """Hold the leases `expired` selects (and locks) here, each under its next number."""
        lease = schema.leases
        async with self.store.engine.begin() as conn:
            rows = (await conn.execute(
                update(lease).where(lease.c.table_id.in_(expired.scalar_subquery()))
                .values(node=self.node, fence=lease.c.fence + 1,
                        expires_at=database_now() + self.seconds)
                .returning(lease.c.table_id, lease.c.fence))).all()
        return [(str(r[0]), int(r[1])) for r in rows]

    async def claim(self, table_id: str) -> int | None:
        """Own a table nobody owns now (a finished game someone opens again, for the chat
        after the end): its new fencing number, or None when another process owns it."""
        lease = schema.leases
        now = database_now()
        fresh = pg_insert(lease).values(table_id=table_id, node=self.node, fence=1,
                                        expires_at=now + self.seconds)
        statement = fresh.on_conflict_do_update(
            index_elements=[lease.c.table_id],
            set_={"node": self.node, "fence": lease.c.fence + 1,
                  "expires_at": now + self.seconds},
            where=lease.c.expires_at < now).returning(lease.c.fence)
        async with self.store.engine.begin() as conn:
            row = (await conn.execute(statement)).first()
        return int(row[0]) if row is not None else None

    async def release(self, table_id: str) -> None:
        """Let a game go (a finished one, out of memory): another process may claim it at
        once. The row stays, so its fencing number only ever grows."""
        lease = schema.leases
        async with self.store.engine.begin() as conn:
            await conn.execute(update(lease).where(lease.c.table_id == table_id,
                                                   lease.c.node == self.node)
                               .values(expires_at=0.0))

    async def hand_back(self) -> None:
        """On a clean shutdown: every lease expires now, so another process takes the
        games over at its next look instead of waiting for them to run out."""
        lease = schema.leases
        async with self.store.engine.begin() as conn:
            await conn.execute(update(lease).where(lease.c.node == self.node)
                               .values(expires_at=0.0))

    async def owner(self, table_id: str) -> str | None:
        lease = schema.leases
        async with self.store.engine.connect() as conn:
            row = (await conn.execute(select(lease.c.node).where(
                lease.c.table_id == table_id))).first()
        return str(row[0]) if row is not None else None
