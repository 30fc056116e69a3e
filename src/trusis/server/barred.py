"""Who may not sit at a table: someone its host blocks (D33) or removed from it (D34).

Asked of the database by the process that owns the table (seating.py), so a block or
a removal made on any process holds on every one. The routes are in blocks.py.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from trusis.server import schema
from trusis.server.errors import LobbyError
from trusis.server.room import Room


async def refuse_join(engine: AsyncEngine, room: Room, player_id: str) -> None:
    """403 if the table's host blocks this player (D33) or removed them from it (D34)."""
    b, r = schema.blocks, schema.removals
    async with engine.connect() as conn:
        blocked = (await conn.execute(select(b.c.at).where(
            b.c.player_id == room.lobby.host_id, b.c.blocked_id == player_id))).first()
        removed = (await conn.execute(select(r.c.at).where(
            r.c.table_id == room.id, r.c.player_id == player_id))).first()
    if blocked is not None:
        raise LobbyError(403, "blocked_by_host", "the host of this table does not play with you")
    if removed is not None:
        raise LobbyError(403, "removed", "the host removed you from this table")
