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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    BigInteger,
    String,
    bindparam,
    column,
    create_engine,
    delete,
    event,
    extract,
    func,
    insert,
    make_url,
    select,
    update,
    values,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import StaticPool

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


def _statements(batch: list[_Append]) -> list[tuple[Any, list[dict[str, Any]]]]:
    """A group commit's statements: a few, whatever the size of the batch (each one is
    a trip to the database driver, and under load each trip waits for the event loop)."""
    t = schema.tables
    shapes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for one in batch:
        shapes.setdefault(tuple(sorted(one.values)), []).append(
            {"b_id": one.row["table_id"], **{f"b_{k}": v for k, v in one.values.items()}})
    statements: list[tuple[Any, list[dict[str, Any]]]] = [
        (insert(schema.actions), [one.row for one in batch])]
    for names, rows in shapes.items():
        statements.append((update(t).where(t.c.id == bindparam("b_id"))
                           .values({n: bindparam(f"b_{n}") for n in names}), rows))
    return statements


class LeaseLost(Exception):
    """The action was not stored: this process no longer owns the game (another one
    took it over, under a higher fencing number: cluster/lease.py)."""


@dataclass
class _Append:
    """One action waiting for a group commit, and the future its caller awaits."""

    row: dict[str, Any]
    values: dict[str, Any]
    done: asyncio.Future[None]
    fence: tuple[str, int] | None = None  # (node, number): stored only while it holds


def _settle(done: asyncio.Future[None], error: Exception | None) -> None:
    if done.done():
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


class Store:
    """The database behind one server process."""

    lease_seconds = 5.0
    """How long a fenced store extends its game's lease (set by the cluster)."""

    def __init__(self, url: str) -> None:
        self.url = url
        sqlite = url.startswith("sqlite")
        # A file on this machine needs no ping before each use; a server's connections may.
        self.engine: AsyncEngine = create_async_engine(url, pool_pre_ping=not sqlite)
        if self.engine.dialect.name == "sqlite":
            _sqlite_pragmas(self.engine.sync_engine)
        self._queue: list[_Append] = []  # actions waiting for the next group commit
        self._writer: asyncio.Task[None] | None = None
        # SQLite: group commits run on one thread of their own with the standard
        # driver, a whole transaction per call, instead of a trip to aiosqlite's thread
        # for each statement (each trip waits for a turn of a busy event loop).
        self._writer_engine: Engine | None = None
        self._writer_thread: ThreadPoolExecutor | None = None
        if self.engine.dialect.name == "sqlite":
            self._writer_engine = create_engine(
                make_url(url).set(drivername="sqlite"), poolclass=StaticPool,
                connect_args={"check_same_thread": False})
            _sqlite_pragmas(self._writer_engine)
            self._writer_thread = ThreadPoolExecutor(1, thread_name_prefix="trusis-store")

    async def migrate(self) -> None:
        """Create or upgrade the schema (Alembic), in a thread: Alembic runs its own loop."""
        folder = resources.files("trusis.server").joinpath("migrations")
        config = Config()
        config.set_main_option("script_location", str(folder))
        config.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        await asyncio.to_thread(command.upgrade, config, "head")

    async def close(self) -> None:
        if self._writer is not None:
            await asyncio.gather(self._writer, return_exceptions=True)
        await self.engine.dispose()
        if self._writer_engine is not None and self._writer_thread is not None:
            self._writer_engine.dispose()
            self._writer_thread.shutdown()

    def queued(self) -> int:
        """Actions waiting for the next group commit (a health figure)."""
        return len(self._queue)

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
                     phase: str, winner: str | None,
                     fence: tuple[str, int] | None = None) -> None:
        """Store one action with the table's new timer and status, in one transaction.

        Returns once that transaction has committed. Actions of every table are
        committed together (a group commit): while one transaction is being written
        the next actions wait in a queue and go into the next one, so a busy server
        pays one commit for many actions instead of one each, and no two writers
        wait for each other's locks. A room stores its actions one at a time, so one
        transaction never holds two actions of one table.

        With a `fence` (several processes), the action is stored only if that
        process still holds the game's lease under that number; otherwise the
        call raises `LeaseLost` and nothing of it is stored.
        """
        values: dict[str, Any] = {"deadline": deadline, "deadline_phase": phase}
        if winner is not None:
            values.update(status="finished", winner=winner, finished_at=t or time.time(),
                          deadline=None)
        row = {"table_id": table_id, "idx": index, "t": t, "player_id": player_id,
               "client_id": client_id, "data": json.dumps(data, ensure_ascii=False),
               "fence": fence[1] if fence is not None else None}
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(_Append(row, values, done, fence))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="store writer")
        await asyncio.shield(done)  # a cancelled caller still has its action stored

    async def _write(self) -> None:
        """Commit what is queued, as long as something is: one transaction each time."""
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                try:
                    await self._commit(batch)
                except Exception:
                    if len(batch) == 1:
                        raise
                    for one in batch:  # one bad action must not fail the others
                        try:
                            await self._commit([one])
                        except Exception as err:
                            _settle(one.done, err)
                else:
                    for one in batch:
                        _settle(one.done, None)
        except Exception as err:
            for one in batch:
                _settle(one.done, err)
        finally:
            self._writer = None
            if self._queue:  # queued while the last error was being handled
                self._writer = asyncio.create_task(self._write(), name="store writer")

    async def _commit(self, batch: list[_Append]) -> None:
        """One transaction: the actions, then each table's timer and status."""
        if self._writer_engine is not None:  # SQLite: the whole transaction in one call
            await asyncio.get_running_loop().run_in_executor(
                self._writer_thread, self._commit_here, _statements(batch))
            return
        async with self.engine.begin() as conn:
            fenced = [one for one in batch if one.fence is not None]
            if fenced:  # the leases first: their rows stay locked until the commit
                held = await self._extend_leases(conn, fenced)
                for one in fenced:
                    if one.row["table_id"] not in held:
                        _settle(one.done, LeaseLost(one.row["table_id"]))
                batch = [one for one in batch if not one.done.done()]
            if not batch:
                return
            for statement, rows in _statements(batch):
                await conn.execute(statement, rows)

    async def _extend_leases(self, conn: Any, fenced: list[_Append]) -> set[str]:
        """The games of `fenced` whose lease each one's process still holds under its
        number (their leases extended): in one statement, whatever the batch."""
        lease = schema.leases
        now = extract("epoch", func.clock_timestamp())
        wanted = values(column("table_id", String), column("node", String),
                        column("fence", BigInteger), name="wanted").data(
            [(one.row["table_id"], one.fence[0], one.fence[1])
             for one in fenced if one.fence is not None])
        rows = (await conn.execute(
            update(lease).where(lease.c.table_id == wanted.c.table_id,
                                lease.c.node == wanted.c.node,
                                lease.c.fence == wanted.c.fence)
            .values(expires_at=now + self.lease_seconds)
            .returning(lease.c.table_id))).all()
        return {str(r[0]) for r in rows}

    def _commit_here(self, statements: list[tuple[Any, list[dict[str, Any]]]]) -> None:
        assert self._writer_engine is not None
        with self._writer_engine.begin() as conn:
            for statement, rows in statements:
                conn.execute(statement, rows)

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

    async def action_rows_after(self, table_id: str, count: int) -> list[dict[str, Any]]:
        """The stored actions of a table from index `count` on (a follower catching up)."""
        a = schema.actions
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(a).where(a.c.table_id == table_id,
                                                       a.c.idx >= count)
                                       .order_by(a.c.idx))).mappings().all()
        return [dict(r) for r in rows]

    async def action_counts(self, table_ids: list[str]) -> dict[str, int]:
        """How many actions each table has stored, in one query."""
        a = schema.actions
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(a.c.table_id, func.max(a.c.idx))
                                       .where(a.c.table_id.in_(table_ids))
                                       .group_by(a.c.table_id))).all()
        return {str(r[0]): int(r[1]) + 1 for r in rows}

    async def seat_rows_of(self, table_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
        """The seats of several tables in one query (the lobby's list)."""
        s = schema.seats
        found: dict[str, list[dict[str, Any]]] = {t: [] for t in table_ids}
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(s).where(s.c.table_id.in_(table_ids))
                                       .order_by(s.c.table_id, s.c.seat))).mappings().all()
        for r in rows:
            found[r["table_id"]].append(dict(r))
        return found

    async def host_name(self, player_id: str) -> str:
        p = schema.players
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(p.c.name).where(p.c.id == player_id))).first()
        return str(row[0]) if row else ""


__all__ = ["IntegrityError", "LeaseLost", "Player", "Store", "TokenOwner", "new_id", "token_hash"]
