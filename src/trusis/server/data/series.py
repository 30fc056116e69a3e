"""What a rematch stores (migration 0006): the games of a series, and the seats a new
table keeps for the people of the game before (docs/rules.md, D19).

A table that was never played again has no `series_games` row: it is a series of
one. The first rematch writes two rows (the first game's and the new one's), each
further one a row more; `next_id` makes a second proposal of the same game find the
table already made. tables/rematch/ says when.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from trusis.server.data import schema
from trusis.server.data.commits import Fence, GroupCommits, fenced

IN_CHUNK = 500
"""Ids in one `IN (...)` list: well under SQLite's bound on a statement's parameters."""


@dataclass(frozen=True)
class Link:
    """Where a table stands in its series."""

    table_id: str
    series_id: str
    number: int
    previous_id: str | None
    next_id: str | None


@dataclass(frozen=True)
class KeptSeat:
    """A seat a table keeps for a player of the game before (D19), as stored."""

    player_id: str
    kind: str
    name: str
    until: float


def _link(row: Any) -> Link:
    return Link(str(row["table_id"]), str(row["series_id"]), int(row["number"]),
                row["previous_id"], row["next_id"])


def _chunks(ids: list[str]) -> list[list[str]]:
    return [ids[i:i + IN_CHUNK] for i in range(0, len(ids), IN_CHUNK)]


class SeriesRows:
    """The rows of `series_games` and `reservations`."""

    def __init__(self, engine: AsyncEngine, commits: GroupCommits) -> None:
        self.engine = engine
        self.commits = commits  # its writes go where the actions go (`write`)

    async def link_of(self, table_id: str) -> Link | None:
        g = schema.series_games
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(g).where(g.c.table_id == table_id))
                   ).mappings().first()
        return None if row is None else _link(row)

    async def links_of(self, table_ids: list[str]) -> dict[str, Link]:
        """The series links of several tables (those in a series), a query per chunk."""
        g = schema.series_games
        found: dict[str, Link] = {}
        async with self.engine.connect() as conn:
            for chunk in _chunks(table_ids):
                for row in (await conn.execute(select(g).where(g.c.table_id.in_(chunk)))
                            ).mappings():
                    found[row["table_id"]] = _link(row)
        return found

    async def kept_of(self, table_ids: list[str]) -> dict[str, dict[int, KeptSeat]]:
        """The kept seats of several open tables, a query per chunk."""
        r = schema.reservations
        found: dict[str, dict[int, KeptSeat]] = {t: {} for t in table_ids}
        async with self.engine.connect() as conn:
            for chunk in _chunks(table_ids):
                for x in (await conn.execute(select(r).where(r.c.table_id.in_(chunk)))
                          ).mappings():
                    found[x["table_id"]][int(x["seat"])] = KeptSeat(
                        str(x["player_id"]), str(x["kind"]), str(x["name"]), float(x["until"]))
        return found

    async def series_tables(self, series_id: str) -> list[str]:
        """The tables of a series, first game first."""
        g = schema.series_games
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(g.c.table_id).where(g.c.series_id == series_id)
                                       .order_by(g.c.number))).all()
        return [str(r[0]) for r in rows]

    async def add_game(self, before: Link | None, previous_id: str, table_id: str) -> Link:
        """Chain `table_id` after `previous_id` (whose link is `before`, None for a first
        game)."""
        g = schema.series_games
        series_id = before.series_id if before is not None else previous_id
        number = (before.number if before is not None else 1) + 1

        def job(conn: Connection) -> None:
            if before is None:
                conn.execute(insert(g).values(table_id=previous_id, series_id=series_id,
                                              number=1, previous_id=None, next_id=table_id))
            else:
                conn.execute(update(g).where(g.c.table_id == previous_id)
                             .values(next_id=table_id))
            conn.execute(insert(g).values(table_id=table_id, series_id=series_id,
                                          number=number, previous_id=previous_id,
                                          next_id=None))
        await self.commits.write(job)
        return Link(table_id, series_id, number, previous_id, None)

    async def keep(self, table_id: str, seats: Mapping[int, KeptSeat]) -> None:
        if not seats:
            return
        rows = [{"table_id": table_id, "seat": n, "player_id": r.player_id, "kind": r.kind,
                 "name": r.name, "until": r.until} for n, r in seats.items()]
        await self.commits.write(lambda conn: conn.execute(insert(schema.reservations), rows))

    async def release(self, table_id: str, seat: int, fence: Fence = None) -> None:
        r = schema.reservations

        def job(conn: Connection) -> None:
            fenced(conn, table_id, fence, self.commits.lease_seconds)
            conn.execute(delete(r).where(r.c.table_id == table_id, r.c.seat == seat))
        await self.commits.write(job)
