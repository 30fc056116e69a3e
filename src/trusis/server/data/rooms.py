"""A table's row as its life changes outside the game's own commits: closed by its host
before the start (D51), expired when nobody came (quota), and which live tables a player
is at. The start, the seats and the actions are store.py's and commits.py's."""

from __future__ import annotations

from sqlalchemy import Connection, delete, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from trusis.server.data import schema
from trusis.server.data.commits import Fence, GroupCommits, fenced


class RoomRows:
    """The rows of `tables` (with their seats and kept seats) for the lobby's changes."""

    def __init__(self, engine: AsyncEngine, commits: GroupCommits) -> None:
        self.engine = engine
        self.commits = commits  # its writes go where the actions go (`write`)

    async def close_open(self, table_id: str, status: str, fence: Fence) -> None:
        """An open table's status `status`, its seats and kept seats gone: one
        transaction, under its lease's fence (a process that no longer writes the table
        closes nothing)."""
        t, s, r = schema.tables, schema.seats, schema.reservations

        def job(conn: Connection) -> None:
            fenced(conn, table_id, fence, self.commits.lease_seconds)
            conn.execute(update(t).where(t.c.id == table_id, t.c.status == "open")
                         .values(status=status))
            conn.execute(delete(s).where(s.c.table_id == table_id))
            conn.execute(delete(r).where(r.c.table_id == table_id))
        await self.commits.write(job)

    async def set_open_status(self, table_id: str, status: str) -> None:
        """An open table's status `status` (a table that started meanwhile keeps its own)."""
        t = schema.tables
        await self.commits.write(lambda conn: conn.execute(
            update(t).where(t.c.id == table_id, t.c.status == "open").values(status=status)))

    async def live_tables_of(self, player_id: str) -> list[str]:
        """The open and running tables where `player_id` holds a seat or which they host,
        oldest first."""
        t, s = schema.tables, schema.seats
        live_status = t.c.status.in_(("open", "running"))
        seated = select(t.c.id, t.c.created_at).join(s, s.c.table_id == t.c.id).where(
            s.c.player_id == player_id, live_status)
        hosted = select(t.c.id, t.c.created_at).where(t.c.host_id == player_id, live_status)
        async with self.engine.connect() as conn:
            rows = (await conn.execute(seated.union(hosted))).all()
        return [str(r[0]) for r in sorted(rows, key=lambda r: (r[1], r[0]))]
