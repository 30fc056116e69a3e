"""How far each player has read each table's game ("Your games", issue 37).

A mark is written when a player's page of a table closes (api/websocket.py), with how
far that page's stream had been delivered: the lines after it are unread. One row a
player and table, written once a visit, never on the game's path; marks only move
forward, so a page closing late with an older view never makes read lines unread again.
"""

from __future__ import annotations

import time

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from trusis.server.data import schema
from trusis.server.data.store import Store


async def mark_read(store: Store, table_id: str, player_id: str, seq: int) -> None:
    """`player_id` has read `table_id`'s game up to their stream number `seq`.

    One statement (issue 39: an update, a read and an insert were up to three trips to the
    driver's thread at every page that closed), written where the actions are
    (`Store.write`): the row is made, or moved forward only."""
    r = schema.reads
    dialect = postgresql if store.engine.dialect.name == "postgresql" else sqlite
    made = dialect.insert(r).values(table_id=table_id, player_id=player_id, seq=seq,
                                    at=time.time())
    statement = made.on_conflict_do_update(
        index_elements=[r.c.table_id, r.c.player_id],
        set_={"seq": made.excluded.seq, "at": made.excluded.at},
        where=r.c.seq < made.excluded.seq)
    await store.write(lambda conn: conn.execute(statement))


async def reads_of(engine: AsyncEngine, player_id: str, table_ids: list[str]) -> dict[str, int]:
    """The stream number `player_id` read up to at each of `table_ids` (absent: nothing)."""
    if not table_ids:
        return {}
    r = schema.reads
    async with engine.connect() as conn:
        rows = await conn.execute(select(r.c.table_id, r.c.seq).where(
            r.c.player_id == player_id, r.c.table_id.in_(table_ids)))
    return {str(row[0]): int(row[1]) for row in rows}
