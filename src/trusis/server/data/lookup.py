"""Players as the moderation page looks them up (issue 18): by id or by exact name, each
with what tells two players of one name apart (two guests called Rex)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from typing_extensions import TypedDict

from trusis.server.data import schema


class PlayerFacts(TypedDict):
    """`kind` (an account is `account`), `created_at`, `last_table_at` (the newest table
    they sat at or hosted: the server keeps no other trace of a visit) and `games` (games
    played to the end)."""

    id: str
    name: str
    kind: str
    created_at: float
    last_table_at: float | None
    games: int


def _players() -> Any:
    p = schema.players
    return select(p.c.id, p.c.name, p.c.kind, p.c.login, p.c.created_at).where(
        p.c.deleted.is_(False))


async def _with_facts(conn: AsyncConnection, rows: Sequence[Any]) -> list[PlayerFacts]:
    ids = [x["id"] for x in rows]
    t, s, gp = schema.tables, schema.seats, schema.game_players
    last: dict[str, float] = {}
    games: dict[str, int] = {}
    if ids:
        for query in (select(s.c.player_id, func.max(t.c.created_at)).join(
                          t, t.c.id == s.c.table_id).where(s.c.player_id.in_(ids))
                      .group_by(s.c.player_id),
                      select(t.c.host_id, func.max(t.c.created_at)).where(
                          t.c.host_id.in_(ids)).group_by(t.c.host_id)):
            for who, at in (await conn.execute(query)).all():
                if at is not None:
                    last[who] = max(float(at), last.get(who, 0.0))
        games = {who: int(n) for who, n in (await conn.execute(
            select(gp.c.player_id, func.count()).where(gp.c.player_id.in_(ids))
            .group_by(gp.c.player_id))).all()}
    return [PlayerFacts(id=x["id"], name=x["name"],
                        kind="account" if x["login"] is not None else x["kind"],
                        created_at=x["created_at"], last_table_at=last.get(x["id"]),
                        games=games.get(x["id"], 0)) for x in rows]


async def player(engine: AsyncEngine, player_id: str) -> PlayerFacts | None:
    """A player who is not deleted, by id."""
    p = schema.players
    async with engine.connect() as conn:
        row = (await conn.execute(_players().where(p.c.id == player_id))).mappings().first()
        return None if row is None else (await _with_facts(conn, [row]))[0]


async def named(engine: AsyncEngine, name: str, limit: int = 20) -> list[PlayerFacts]:
    """Players by exact name (an account's login, or guests' names), newest first; never
    a program seat's player."""
    p = schema.players
    async with engine.connect() as conn:
        rows = (await conn.execute(_players().where(
            or_(p.c.login == name.casefold(), p.c.name == name), p.c.kind != "program")
            .order_by(p.c.created_at.desc()).limit(limit))).mappings().all()
        return await _with_facts(conn, rows)


async def account_id(engine: AsyncEngine, login: str) -> str | None:
    """The account (not deleted) whose login is `login`."""
    p = schema.players
    async with engine.connect() as conn:
        row = (await conn.execute(select(p.c.id).where(
            p.c.login == login, p.c.deleted.is_(False)))).first()
    return None if row is None else str(row[0])
