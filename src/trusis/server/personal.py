"""A player's own data: everything kept about them, and forgetting them.

One place for what `GET /api/me/data` and `DELETE /api/me` do (people.py) and what an
operator does for a player with `trusis admin export` and `trusis admin delete`, so that
both always cover the same tables.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from trusis.server import schema
from trusis.stats.declaration import shipped_declaration

DELETED_NAME = "Deleted player"


async def player_data(engine: AsyncEngine, player_id: str) -> dict[str, Any] | None:
    """Everything kept about `player_id` (None: no such player). Never the password's hash
    nor any token (tokens are kept only as hashes anyway)."""
    p, s, g, a, r = (schema.players, schema.seats, schema.game_players, schema.actions,
                     schema.reports)
    async with engine.connect() as conn:
        me = (await conn.execute(select(p).where(p.c.id == player_id))).mappings().first()
        if me is None:
            return None
        seats = (await conn.execute(select(s).where(s.c.player_id == player_id))).mappings()
        games = (await conn.execute(select(g).where(g.c.player_id == player_id))).mappings()
        acts = (await conn.execute(select(a).where(a.c.player_id == player_id))).mappings()
        filed = (await conn.execute(select(r).where(r.c.reporter_id == player_id))).mappings()
        held = (await conn.execute(select(schema.staff_roles).where(
            schema.staff_roles.c.player_id == player_id))).mappings()
        given = (await conn.execute(select(schema.sanctions).where(
            schema.sanctions.c.player_id == player_id))).mappings()
        blocks = (await conn.execute(select(schema.blocks).where(
            schema.blocks.c.player_id == player_id))).mappings()
        return {
            "player": {k: v for k, v in dict(me).items() if k != "password_hash"},
            "seats": [dict(x) for x in seats.all()],
            "games": [_shown(dict(x)) for x in games.all()],
            "actions": [{**dict(x), "data": json.loads(x["data"])} for x in acts.all()],
            "reports_filed": [dict(x) for x in filed.all()],
            "staff_roles": [dict(x) for x in held.all()],
            # Sanctions given to you, without which moderator gave them (moderation.py).
            "sanctions": [{k: v for k, v in x.items() if k != "by_id"} for x in given.all()],
            "blocks": [dict(x) for x in blocks.all()],
        }


def _shown(game: dict[str, Any]) -> dict[str, Any]:
    """A game of yours as you may see it: the table's statistics everyone may see, not
    the limited ones (the whole table's private messages: R50, D16)."""
    limited = {str(s.id) for s in shipped_declaration().table if s.limited}
    stats = json.loads(game["table_stats"])
    game["table_stats"] = json.dumps({k: v for k, v in stats.items() if k not in limited})
    return game


async def forget_player(engine: AsyncEngine, player_id: str) -> bool:
    """Delete an account: the name is replaced in stored games, which stay playable as
    replays for the others; sessions, tokens and server roles end. False: no such player."""
    p, t, s, k = schema.players, schema.tables, schema.seats, schema.tokens
    async with engine.begin() as conn:
        found = (await conn.execute(select(p.c.id).where(p.c.id == player_id))).first()
        if found is None:
            return False
        seats = (await conn.execute(select(s.c.table_id, s.c.seat)
                                    .where(s.c.player_id == player_id))).all()
        for table_id, seat in seats:
            row = (await conn.execute(select(t.c.players).where(t.c.id == table_id))).first()
            if row is not None and row[0]:
                names = json.loads(row[0])
                if 0 < seat <= len(names):
                    names[seat - 1] = DELETED_NAME
                    await conn.execute(update(t).where(t.c.id == table_id)
                                       .values(players=json.dumps(names)))
        await conn.execute(update(s).where(s.c.player_id == player_id).values(name=DELETED_NAME))
        await conn.execute(delete(k).where(k.c.player_id == player_id))
        await conn.execute(delete(schema.staff_roles)
                           .where(schema.staff_roles.c.player_id == player_id))
        b = schema.blocks  # blocks end both ways; sanctions stay, as the moderators' record
        await conn.execute(delete(b).where((b.c.player_id == player_id)
                                           | (b.c.blocked_id == player_id)))
        await conn.execute(update(p).where(p.c.id == player_id).values(
            name=DELETED_NAME, login=None, password_hash=None, deleted=True))
    return True
