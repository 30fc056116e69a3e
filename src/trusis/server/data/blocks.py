"""Who blocks whom (D33) and whom a host removed from a table's waiting room (D34): the
rows of `blocks` and `removals`. api/blocks.py and tables/seats/barred.py say when."""

from __future__ import annotations

import time
from enum import Enum

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncEngine
from typing_extensions import TypedDict

from trusis.server.data import schema


class BlockRow(TypedDict):
    """A player one blocks, as `GET /api/me/blocks` lists them."""

    id: str
    name: str
    at: float


class Blocked(Enum):
    """What asking to block someone did."""

    ADDED = "added"
    HELD = "held"  # blocked already
    FULL = "full"  # `most` blocked already: nothing added


class BlockRows:
    """The rows of `blocks` and `removals`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def block(self, player_id: str, target: str, most: int) -> Blocked:
        b = schema.blocks
        async with self.engine.begin() as conn:
            held = (await conn.execute(select(b.c.blocked_id).where(b.c.player_id == player_id)
                                       )).scalars().all()
            if target in held:
                return Blocked.HELD
            if len(held) >= most:
                return Blocked.FULL
            await conn.execute(insert(b).values(player_id=player_id, blocked_id=target,
                                                at=time.time()))
        return Blocked.ADDED

    async def unblock(self, player_id: str, target: str) -> bool:
        """False: `player_id` did not block `target`."""
        b = schema.blocks
        async with self.engine.begin() as conn:
            done = await conn.execute(b.delete().where(b.c.player_id == player_id,
                                                       b.c.blocked_id == target))
        return bool(done.rowcount)

    async def blocked_ids(self, player_id: str) -> set[str]:
        b = schema.blocks
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(b.c.blocked_id).where(b.c.player_id == player_id))
            return {str(r[0]) for r in rows}

    async def blocks_of(self, player_id: str) -> list[BlockRow]:
        """Whom `player_id` blocks, newest first, with their names."""
        b, p = schema.blocks, schema.players
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(b.c.blocked_id, p.c.name, b.c.at)
                                      .join(p, p.c.id == b.c.blocked_id)
                                      .where(b.c.player_id == player_id)
                                      .order_by(b.c.at.desc()))
            return [BlockRow(id=str(r[0]), name=str(r[1]), at=float(r[2])) for r in rows]

    async def blocks(self, player_id: str, target: str) -> bool:
        """Whether `player_id` blocks `target` (D33)."""
        b = schema.blocks
        async with self.engine.connect() as conn:
            return (await conn.execute(select(b.c.at).where(
                b.c.player_id == player_id, b.c.blocked_id == target))).first() is not None

    async def was_removed(self, table_id: str, player_id: str) -> bool:
        """Whether the host of `table_id` removed `player_id` from its waiting room (D34)."""
        r = schema.removals
        async with self.engine.connect() as conn:
            return (await conn.execute(select(r.c.at).where(
                r.c.table_id == table_id, r.c.player_id == player_id))).first() is not None

    async def store_removal(self, table_id: str, player_id: str) -> None:
        """D34: `player_id` may not sit at `table_id` again (kept once, however often)."""
        r = schema.removals
        async with self.engine.begin() as conn:
            if (await conn.execute(select(r.c.at).where(
                    r.c.table_id == table_id, r.c.player_id == player_id))).first() is None:
                await conn.execute(insert(r).values(table_id=table_id, player_id=player_id,
                                                    at=time.time()))
