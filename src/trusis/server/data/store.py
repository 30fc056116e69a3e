"""Storage: the only code that talks to the database (SQLite or PostgreSQL, one code).

Every write that acknowledges something to a player commits before it returns:
an action is stored — with the table's new deadline and status, in the same
transaction — before its `ack` leaves the server, so a crash loses nothing that
was acknowledged.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    Connection,
    delete,
    exists,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from trusis.server.data import schema
from trusis.server.data.accounts import AccountRows
from trusis.server.data.blocks import BlockRows
from trusis.server.data.commits import Fence, GroupCommits, LeaseLost, fenced
from trusis.server.data.heartbeat import Heartbeat
from trusis.server.data.ids import new_id, token_hash
from trusis.server.data.login_counts import LoginCounts
from trusis.server.data.mutes import MuteCheck, in_force
from trusis.server.data.notifications import NotificationRows
from trusis.server.data.reports import ReportRows
from trusis.server.data.rooms import RoomRows
from trusis.server.data.rows import ActionRow, SeatRow, TableRow
from trusis.server.data.series import SeriesRows
from trusis.server.data.sqlite_writer import sqlite_pragmas


@dataclass
class Player:
    id: str
    name: str
    kind: str


@dataclass
class TokenOwner:
    """Who a token signs in, and for a program's seat token, which seat it plays.
    `family` names the sign-in it belongs to (a guest's cookie and bearer token are one):
    what a logout ends."""

    player: Player
    kind: str
    table_id: str | None
    seat: int | None
    family: str = ""


StoreError = SQLAlchemyError
"""What a failed statement raises, whatever failed (IntegrityError is one)."""

CONNECT_SECONDS = 5.0
"""The longest a new connection to PostgreSQL may take (asyncpg waits a minute)."""


class Store:
    """The database behind one server process."""

    def __init__(self, url: str, transaction_seconds: float = 10.0,
                 statement_seconds: float | None = None,
                 heartbeat_down_after: float = 3.0) -> None:
        self.url = url
        sqlite = url.startswith("sqlite")
        self.transaction_seconds = transaction_seconds
        # PostgreSQL ends a transaction left open longer than `transaction_seconds`: a
        # process stopped inside one (paused, swapped out) would otherwise keep its lease's
        # row locked, and no other process could take its games over. A statement gets no
        # answer for ever on a black-holed link: `statement_seconds` bounds the wait
        # (issue 41; the server's process sets it, a one-off command does not).
        connect: dict[str, Any] = {} if sqlite else {"timeout": CONNECT_SECONDS,
                                                     "server_settings": {
            "idle_in_transaction_session_timeout": str(int(transaction_seconds * 1000))}}
        if statement_seconds is not None and not sqlite:
            connect["command_timeout"] = statement_seconds
        self.heartbeat: Heartbeat | None = None if sqlite else Heartbeat(
            url, down_after=heartbeat_down_after)
        """Whether PostgreSQL answers (heartbeat.py); None on SQLite, a file here."""
        # A file on this machine needs no ping before each use; a server's connections may.
        # hide_parameters: a failed statement's message (which is logged) must not carry
        # its values: an action's text, a private message, a token's hash.
        self.engine: AsyncEngine = create_async_engine(url, pool_pre_ping=not sqlite,
                                                       connect_args=connect,
                                                       hide_parameters=True)
        if self.engine.dialect.name == "sqlite":
            sqlite_pragmas(self.engine.sync_engine)
        self.commits = GroupCommits(self.engine, url)
        self.mutes = MuteCheck(self.engine)  # what every `say` waits for (mutes.py)
        self.append = self.commits.append  # every action goes through the group commits
        self.write = self.commits.write  # and every frequent write of the lobby (issue 39)
        self.notifications = NotificationRows(self.engine)  # the outbox's rows and the rest
        # The query groups, one per concern: nothing outside data/ runs SQL (issue 36).
        self.accounts = AccountRows(self.engine)
        self.login_counts = LoginCounts(self.engine)
        self.blocks = BlockRows(self.engine)
        self.rooms = RoomRows(self.engine, self.commits)
        self.series = SeriesRows(self.engine, self.commits)
        self.reports = ReportRows(self.engine)

    async def migrate(self) -> None:
        """Create or upgrade the schema (Alembic), in a thread: Alembic runs its own loop."""
        folder = resources.files("trusis.server.data").joinpath("migrations")
        config = Config()
        config.set_main_option("script_location", str(folder))
        config.set_main_option("sqlalchemy.url", self.url.replace("%", "%%"))
        if self.engine.dialect.name != "postgresql":
            await asyncio.to_thread(command.upgrade, config, "head")
            return
        # Several processes may start together on one database: one migrates at a time.
        # The lock is the session's, held outside any transaction: PostgreSQL ends a
        # session idle in a transaction after `transaction_seconds`, and a migration run
        # on a busy machine took longer than that (the process then failed to start).
        # Tried again and again rather than waited for in one statement, which a bound on
        # statements (`statement_seconds`) would end while another process migrates.
        async with self.engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            while not (await conn.execute(text("SELECT pg_try_advisory_lock(7175001)"))
                       ).scalar():
                await asyncio.sleep(0.2)
            try:
                await asyncio.to_thread(command.upgrade, config, "head")
            finally:
                await conn.execute(text("SELECT pg_advisory_unlock(7175001)"))

    async def close(self) -> None:
        await self.commits.close()
        self.mutes.close()
        if self.heartbeat is not None:
            await self.heartbeat.close()
        await self.engine.dispose()

    def queued(self) -> int:
        return self.commits.queued()

    # -- players and tokens -------------------------------------------------

    async def new_player(self, name: str, kind: str, made_by: str | None = None) -> Player:
        """A new guest, or a program seat's player made by `made_by` (D41: it answers for
        them)."""
        player = Player(new_id(16), name, kind)
        await self.write(lambda conn: conn.execute(insert(schema.players).values(
            id=player.id, name=name, kind=kind, created_at=time.time(), rated_games=0,
            deleted=False, made_by=made_by)))
        return player

    async def programs_of(self, player_id: str) -> list[str]:
        """The program seats' players `player_id` made (D41)."""
        p = schema.players
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(p.c.id).where(p.c.made_by == player_id,
                                                           p.c.kind == "program"))
            return [str(r[0]) for r in rows]

    async def new_token(self, player_id: str, kind: str, table_id: str | None = None,
                        seat: int | None = None, family: str | None = None) -> str:
        token = secrets.token_urlsafe(32)
        await self.write(lambda conn: conn.execute(insert(schema.tokens).values(
            hash=token_hash(token), player_id=player_id, kind=kind, table_id=table_id,
            seat=seat, created_at=time.time(), family=family or new_id(16))))
        return token

    async def drop_tokens(self, player_id: str, family: str | None = None,
                          keep: str | None = None) -> None:
        """Revoke a player's tokens: one sign-in's (`family`), or all but `keep`'s, or all.
        A family is a hash's own for tokens stored before families existed."""
        t = schema.tokens
        of = func.coalesce(t.c.family, t.c.hash)
        query = delete(t).where(t.c.player_id == player_id)
        if family is not None:
            query = query.where(of == family)
        if keep is not None:
            query = query.where(of != keep)
        async with self.engine.begin() as conn:
            await conn.execute(query)

    async def token_owner(self, token: str, not_before: float = 0.0) -> TokenOwner | None:
        """The token's owner, if the token exists, was made after `not_before` (older ones
        have expired), its player is not deleted and not banned now: the database is
        asked every time, so a revocation or a ban on any process counts at once on every
        other. A ban keeps its player's tokens, refused here while it holds: once it is
        lifted or over, the same browser is the same player again (D36, issue 38)."""
        t, p, s = schema.tokens, schema.players, schema.sanctions
        banned = exists().where(s.c.player_id == p.c.id, s.c.kind == "ban",
                                in_force(time.time()))
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(p.c.id, p.c.name, p.c.kind, t.c.kind, t.c.table_id, t.c.seat,
                       func.coalesce(t.c.family, t.c.hash))
                .join(p, p.c.id == t.c.player_id)
                .where(t.c.hash == token_hash(token), p.c.deleted.is_(False),
                       t.c.created_at > not_before, ~banned)
            )).first()
        if row is None:
            return None
        return TokenOwner(Player(row[0], row[1], row[2]), row[3], row[4], row[5], row[6])

    # -- tables and seats ---------------------------------------------------

    async def new_table(self, table_id: str, name: str, host_id: str, options: dict[str, Any],
                        invite: str, private: bool) -> None:
        await self.write(lambda conn: conn.execute(insert(schema.tables).values(
            id=table_id, name=name, host_id=host_id, options=json.dumps(options),
            status="open", invite=invite, created_at=time.time(), private=private)))

    async def set_seat(self, table_id: str, seat: int, kind: str, name: str,
                       player_id: str | None, bot_kind: str | None,
                       fence: Fence = None) -> None:
        s = schema.seats

        def job(conn: Connection) -> None:
            fenced(conn, table_id, fence, self.commits.lease_seconds)
            conn.execute(delete(s).where(s.c.table_id == table_id, s.c.seat == seat))
            conn.execute(insert(s).values(table_id=table_id, seat=seat, kind=kind, name=name,
                                          player_id=player_id, bot_kind=bot_kind))
        await self.write(job)

    async def free_seat(self, table_id: str, seat: int, fence: Fence = None) -> None:
        s = schema.seats

        def job(conn: Connection) -> None:
            fenced(conn, table_id, fence, self.commits.lease_seconds)
            conn.execute(delete(s).where(s.c.table_id == table_id, s.c.seat == seat))
        await self.write(job)

    async def start(self, table_id: str, seed: int, players: list[str], deal: list[str],
                    started_at: float, deadline: float | None, phase: str,
                    fence: Fence = None, notices: Sequence[dict[str, Any]] = ()) -> None:
        """The game begins; `notices` (the outbox's "game started") are stored with it."""
        def job(conn: Connection) -> None:
            fenced(conn, table_id, fence, self.commits.lease_seconds)
            conn.execute(update(schema.tables).where(schema.tables.c.id == table_id).values(
                status="running", seed=seed, players=json.dumps(players), deal=json.dumps(deal),
                started_at=started_at, deadline=deadline, deadline_phase=phase))
            if notices:
                conn.execute(insert(schema.notices), list(notices))
        await self.write(job)

    async def set_bot_seat(self, table_id: str, seat: int, bot_kind: str, name: str,
                           fence: Fence = None) -> None:
        """A seat handed over to a bot during the game (R53). Its `player_id` stays: the
        seat is still its player's, who may take it back (D29) and keeps the game (D32)."""
        s = schema.seats

        def job(conn: Connection) -> None:
            fenced(conn, table_id, fence, self.commits.lease_seconds)
            conn.execute(update(s).where(s.c.table_id == table_id, s.c.seat == seat)
                         .values(kind="bot", bot_kind=bot_kind, name=name))
        await self.write(job)

    async def set_person_seat(self, table_id: str, seat: int, player_id: str,
                              name: str,
                              fence: Fence = None, kind: str = "person") -> None:
        s = schema.seats

        def job(conn: Connection) -> None:
            fenced(conn, table_id, fence, self.commits.lease_seconds)
            conn.execute(update(s).where(s.c.table_id == table_id, s.c.seat == seat)
                         .values(kind=kind, bot_kind=None, name=name, player_id=player_id))
        await self.write(job)

    # -- reading ------------------------------------------------------------

    async def table_rows(self, statuses: tuple[str, ...]) -> list[TableRow]:
        t = schema.tables
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(t).where(t.c.status.in_(statuses))
                                       .order_by(t.c.created_at))).mappings().all()
        return [cast(TableRow, dict(r)) for r in rows]

    async def table_row(self, table_id: str) -> TableRow | None:
        t = schema.tables
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(t).where(t.c.id == table_id))).mappings().first()
        return cast(TableRow, dict(row)) if row is not None else None

    async def seat_rows(self, table_id: str) -> list[SeatRow]:
        s = schema.seats
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(s).where(s.c.table_id == table_id)
                                       .order_by(s.c.seat))).mappings().all()
        return [cast(SeatRow, dict(r)) for r in rows]

    async def action_rows(self, table_id: str) -> list[ActionRow]:
        a = schema.actions
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(a).where(a.c.table_id == table_id)
                                       .order_by(a.c.idx))).mappings().all()
        return [cast(ActionRow, dict(r)) for r in rows]

    async def action_rows_after(self, table_id: str, count: int) -> list[ActionRow]:
        """The stored actions of a table from index `count` on (a follower catching up)."""
        a = schema.actions
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(a).where(a.c.table_id == table_id,
                                                       a.c.idx >= count)
                                       .order_by(a.c.idx))).mappings().all()
        return [cast(ActionRow, dict(r)) for r in rows]

    async def stored_command(self, table_id: str, player_id: str,
                             client_id: str) -> int | None:
        """The record index of the command `client_id` of `player_id`, if it was stored as
        accepted (refused ones are stored without their client id): None otherwise."""
        a = schema.actions
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(a.c.idx).where(
                a.c.table_id == table_id, a.c.player_id == player_id,
                a.c.client_id == client_id))).first()
        return int(row[0]) if row is not None else None

    async def action_counts(self, table_ids: list[str]) -> dict[str, int]:
        """How many actions each table has stored, in one query."""
        a = schema.actions
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(a.c.table_id, func.max(a.c.idx))
                                       .where(a.c.table_id.in_(table_ids))
                                       .group_by(a.c.table_id))).all()
        return {str(r[0]): int(r[1]) + 1 for r in rows}

    async def seat_rows_of(self, table_ids: list[str]) -> dict[str, list[SeatRow]]:
        """The seats of several tables, a query per IN_CHUNK tables (the lobby's list, a
        restart)."""
        s = schema.seats
        found: dict[str, list[SeatRow]] = {t: [] for t in table_ids}
        async with self.engine.connect() as conn:
            for chunk in chunks(table_ids):
                rows = (await conn.execute(select(s).where(s.c.table_id.in_(chunk))
                                           .order_by(s.c.table_id, s.c.seat))).mappings()
                for r in rows:
                    found[r["table_id"]].append(cast(SeatRow, dict(r)))
        return found

    async def action_rows_of(self, table_ids: list[str]) -> dict[str, list[ActionRow]]:
        """The stored actions of several tables, a query per IN_CHUNK tables (a restart
        reads every running game: one query each was most of its time)."""
        a = schema.actions
        found: dict[str, list[ActionRow]] = {t: [] for t in table_ids}
        async with self.engine.connect() as conn:
            for chunk in chunks(table_ids):
                rows = (await conn.execute(select(a).where(a.c.table_id.in_(chunk))
                                           .order_by(a.c.table_id, a.c.idx))).mappings()
                for r in rows:
                    found[r["table_id"]].append(cast(ActionRow, dict(r)))
        return found

    async def names_of(self, player_ids: list[str]) -> dict[str, str]:
        """Several players' names in one query per IN_CHUNK (the tables' hosts, at start)."""
        p = schema.players
        found: dict[str, str] = {}
        async with self.engine.connect() as conn:
            for chunk in chunks(sorted(set(player_ids))):
                for row in await conn.execute(select(p.c.id, p.c.name)
                                              .where(p.c.id.in_(chunk))):
                    found[str(row[0])] = str(row[1])
        return found

    async def host_name(self, player_id: str) -> str:
        p = schema.players
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(p.c.name).where(p.c.id == player_id))).first()
        return str(row[0]) if row else ""


IN_CHUNK = 500
"""Ids in one `IN (...)` list: well under SQLite's bound on a statement's parameters."""


def chunks(ids: list[str]) -> list[list[str]]:
    return [ids[i:i + IN_CHUNK] for i in range(0, len(ids), IN_CHUNK)]


__all__ = ["IntegrityError", "LeaseLost", "Player", "Store", "StoreError", "TokenOwner", "new_id",
           "token_hash"]
