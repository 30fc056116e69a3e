"""An operator's look at the server (`trusis admin`): a player found by id or account
name, and the newest tables and players, listed. One function per question, so that the
command (cli/admin.py) prints and runs no SQL."""

from __future__ import annotations

import json

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncEngine
from typing_extensions import TypedDict

from trusis.server.data import schema
from trusis.server.data.staff import staff
from trusis.server.data.store import Player


async def find_player(engine: AsyncEngine, who: str) -> Player | None:
    """The player `who` names: an id, else an account's name (names of guests repeat); a
    deleted player too (an export or a deletion may be asked again)."""
    p = schema.players
    async with engine.connect() as conn:
        row = (await conn.execute(select(p.c.id, p.c.name, p.c.kind).where(
            or_(p.c.id == who, p.c.login == who.strip().casefold())))).first()
    return None if row is None else Player(str(row[0]), str(row[1]), str(row[2]))


async def guests_named(engine: AsyncEngine, name: str) -> int:
    """How many guests (not deleted) go by exactly `name`: a name `find_player` did not
    find may be a guest's, and the operator is told to name them by their id."""
    p = schema.players
    async with engine.connect() as conn:
        count = (await conn.execute(select(func.count()).select_from(p).where(
            p.c.name == name.strip(), p.c.login.is_(None), p.c.deleted.is_(False)))).scalar()
    return int(count or 0)


class ListedTable(TypedDict):
    """A table as `trusis admin tables` lists it (never its invite code): `taken` of its
    `seats` are held."""

    id: str
    name: str
    status: str
    private: bool
    created_at: float
    started_at: float | None
    finished_at: float | None
    winner: str | None
    host: str
    taken: int
    seats: int


async def tables(engine: AsyncEngine, status: str | None, limit: int) -> list[ListedTable]:
    """The newest `limit` tables (of `status`, if given), newest first."""
    t, s, p = schema.tables, schema.seats, schema.players
    taken = select(s.c.table_id, func.count().label("taken")).group_by(s.c.table_id).subquery()
    query = (select(t.c.id, t.c.name, t.c.status, t.c.options, t.c.private, t.c.created_at,
                    t.c.started_at, t.c.finished_at, t.c.winner, p.c.name.label("host"),
                    func.coalesce(taken.c.taken, 0).label("taken"))
             .join(p, p.c.id == t.c.host_id)
             .outerjoin(taken, taken.c.table_id == t.c.id)
             .order_by(t.c.created_at.desc()).limit(limit))
    if status is not None:
        query = query.where(t.c.status == status)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).mappings().all()
    return [ListedTable(id=r["id"], name=r["name"], status=r["status"], private=r["private"],
                        created_at=r["created_at"], started_at=r["started_at"],
                        finished_at=r["finished_at"], winner=r["winner"], host=r["host"],
                        taken=r["taken"],
                        seats=int(json.loads(r["options"]).get("seats", 0)))
            for r in rows]


class ListedPlayer(TypedDict):
    """A player as `trusis admin players` lists them: guest or account, and server roles."""

    id: str
    name: str
    kind: str
    created_at: float
    deleted: bool
    account: bool
    roles: list[str]


async def players(engine: AsyncEngine, name: str | None, limit: int) -> list[ListedPlayer]:
    """The newest `limit` players (whose names contain `name`, if given), newest first."""
    p = schema.players
    query = select(p.c.id, p.c.name, p.c.kind, p.c.login, p.c.created_at,
                   p.c.deleted).order_by(p.c.created_at.desc()).limit(limit)
    if name:
        query = query.where(p.c.name.contains(name, autoescape=True))
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).mappings().all()
    held: dict[str, list[str]] = {}
    for entry in await staff(engine):
        held.setdefault(entry["player_id"], []).append(entry["role"])
    return [ListedPlayer(id=r["id"], name=r["name"], kind=r["kind"], created_at=r["created_at"],
                         deleted=r["deleted"], account=r["login"] is not None,
                         roles=sorted(held.get(r["id"], [])))
            for r in rows]
