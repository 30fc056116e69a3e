"""Storage: the only code that talks to the database (SQLite or PostgreSQL, one code).

Every write that acknowledges something to a player commits before it returns:
an action is stored — with the table's new deadline and status, in the same
transaction — before its `ack` leaves the server, so a crash loses nothing that
was acknowledged.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from importlib import resources
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import delete, event, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from trusis.server import schema


def _sqlite_pragmas(engine: Engine) -> None:
    """WAL keeps every committed transaction through a crash of the process and lets
    readers work while the writer commits; foreign keys as PostgreSQL has them."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.close()


def token_hash(token: str) -> str:
    """Tokens are stored by their hash, so a copy of the database signs nobody in."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_id(length: int = 12) -> str:
    return secrets.token_urlsafe(length)[:length].replace("-", "x").replace("_", "y")


@dataclass
class Player:
    id: str
    name: str
    kind: str


@dataclass
class TokenOwner:
    """Who a token signs in, and for a program's seat token, which seat it plays."""

    player: Player
    kind: str
    table_id: str | None
    seat: int | None


class Store:
    """The database behind one server process."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine: AsyncEngine = create_async_engine(url, pool_pre_ping=True)
        if self.engine.dialect.name == "sqlite":
            _sqlite_pragmas(self.engine.sync_engine)

    async def migrate(self) -> None:
        """Create or upgrade the schema (Alembic), in a thread: Alembic runs its own loop."""
        folder = resources.files("trusis.server").joinpath("migrations")
        config = Config()
        config.set_main_option("script_location", str(folder))
        config.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        await asyncio.to_thread(command.upgrade, config, "head")

    async def close(self) -> None:
        await self.engine.dispose()

    # -- players and tokens -------------------------------------------------

    async def new_player(self, name: str, kind: str) -> Player:
        player = Player(new_id(16), name, kind)
        async with self.engine.begin() as conn:
            await conn.execute(insert(schema.players).values(
                id=player.id, name=name, kind=kind, created_at=time.time(), rated_games=0,
                deleted=False))
        return player

    async def new_token(self, player_id: str, kind: str, table_id: str | None = None,
                        seat: int | None = None) -> str:
        token = secrets.token_urlsafe(32)
        async with self.engine.begin() as conn:
            await conn.execute(insert(schema.tokens).values(
                hash=token_hash(token), player_id=player_id, kind=kind, table_id=table_id,
                seat=seat, created_at=time.time()))
        return token

    async def drop_token(self, token: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(delete(schema.tokens).where(
                schema.tokens.c.hash == token_hash(token)))

    async def token_owner(self, token: str) -> TokenOwner | None:
        t, p = schema.tokens, schema.players
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(p.c.id, p.c.name, p.c.kind, t.c.kind, t.c.table_id, t.c.seat)
                .join(p, p.c.id == t.c.player_id)
                .where(t.c.hash == token_hash(token), p.c.deleted.is_(False))
            )).first()
        if row is None:
            return None
        return TokenOwner(Player(row[0], row[1], row[2]), row[3], row[4], row[5])

    # -- tables and seats ---------------------------------------------------

    async def new_table(self, table_id: str, name: str, host_id: str, options: dict[str, Any],
                        invite: str, private: bool) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(insert(schema.tables).values(
                id=table_id, name=name, host_id=host_id, options=json.dumps(options),
                status="open", invite=invite, created_at=time.time(), private=private))

    async def set_seat(self, table_id: str, seat: int, kind: str, name: str,
                       player_id: str | None, bot_kind: str | None) -> None:
        s = schema.seats
        async with self.engine.begin() as conn:
            await conn.execute(delete(s).where(s.c.table_id == table_id, s.c.seat == seat))
            await conn.execute(insert(s).values(table_id=table_id, seat=seat, kind=kind,
                                                name=name, player_id=player_id,
                                                bot_kind=bot_kind))

    async def free_seat(self, table_id: str, seat: int) -> None:
        s = schema.seats
        async with self.engine.begin() as conn:
            await conn.execute(delete(s).where(s.c.table_id == table_id, s.c.seat == seat))

    async def start(self, table_id: str, seed: int, players: list[str], deal: list[str],
                    started_at: float, deadline: float | None, phase: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(update(schema.tables).where(schema.tables.c.id == table_id).values(
                status="running", seed=seed, players=json.dumps(players), deal=json.dumps(deal),
                started_at=started_at, deadline=deadline, deadline_phase=phase))

    async def append(self, table_id: str, index: int, data: dict[str, Any], t: float | None,
                     player_id: str | None, client_id: str | None, deadline: float | None,
                     phase: str, winner: str | None) -> None:
        """Store one action with the table's new timer and status, in one transaction."""
        values: dict[str, Any] = {"deadline": deadline, "deadline_phase": phase}
        if winner is not None:
            values.update(status="finished", winner=winner, finished_at=t or time.time(),
                          deadline=None)
        async with self.engine.begin() as conn:
            await conn.execute(insert(schema.actions).values(
                table_id=table_id, idx=index, data=json.dumps(data, ensure_ascii=False), t=t,
                player_id=player_id, client_id=client_id))
            await conn.execute(update(schema.tables).where(schema.tables.c.id == table_id)
                               .values(**values))

    async def set_bot_seat(self, table_id: str, seat: int, bot_kind: str, name: str) -> None:
        """A seat handed over to a bot during the game (R53)."""
        s = schema.seats
        async with self.engine.begin() as conn:
            await conn.execute(update(s).where(s.c.table_id == table_id, s.c.seat == seat)
                               .values(kind="bot", bot_kind=bot_kind, name=name,
                                       player_id=None))

    async def set_person_seat(self, table_id: str, seat: int, player_id: str,
                              name: str) -> None:
        s = schema.seats
        async with self.engine.begin() as conn:
            await conn.execute(update(s).where(s.c.table_id == table_id, s.c.seat == seat)
                               .values(kind="person", bot_kind=None, name=name,
                                       player_id=player_id))

    # -- reading ------------------------------------------------------------

    async def table_rows(self, statuses: tuple[str, ...]) -> list[dict[str, Any]]:
        t = schema.tables
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(t).where(t.c.status.in_(statuses))
                                       .order_by(t.c.created_at))).mappings().all()
        return [dict(r) for r in rows]

    async def table_row(self, table_id: str) -> dict[str, Any] | None:
        t = schema.tables
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(t).where(t.c.id == table_id))).mappings().first()
        return dict(row) if row is not None else None

    async def seat_rows(self, table_id: str) -> list[dict[str, Any]]:
        s = schema.seats
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(s).where(s.c.table_id == table_id)
                                       .order_by(s.c.seat))).mappings().all()
        return [dict(r) for r in rows]

    async def action_rows(self, table_id: str) -> list[dict[str, Any]]:
        a = schema.actions
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(a).where(a.c.table_id == table_id)
                                       .order_by(a.c.idx))).mappings().all()
        return [dict(r) for r in rows]

    async def host_name(self, player_id: str) -> str:
        p = schema.players
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(p.c.name).where(p.c.id == player_id))).first()
        return str(row[0]) if row else ""


__all__ = ["IntegrityError", "Player", "Store", "TokenOwner", "new_id", "token_hash"]
