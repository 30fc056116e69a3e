"""The player rows of accounts: registering, logging in, passwords, names (D46, D47),
and which players are deleted (D53). players/accounts.py and the routes say when."""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from trusis.server.data import schema

IN_CHUNK = 500
"""Players asked about in one query."""


@dataclass(frozen=True)
class LoginRow:
    """What a login checks: the account's player, its name and its password's hash."""

    player_id: str
    name: str
    password_hash: str | None


class AccountRows:
    """Accounts' rows in `players`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def register(self, login: str, name: str, digest: str, player_id: str,
                       guest: bool) -> bool:
        """Store the account `login` (False: the login is taken, nothing stored): the
        guest `player_id` turned into it when `guest`, else a new player of that id."""
        p = schema.players
        async with self.engine.begin() as conn:
            taken = (await conn.execute(select(p.c.id).where(p.c.login == login))).first()
            if taken is not None:
                return False
            if guest:
                await conn.execute(update(p).where(p.c.id == player_id).values(
                    name=name, kind="account", login=login, password_hash=digest))
            else:
                await conn.execute(insert(p).values(
                    id=player_id, name=name, kind="account", login=login,
                    password_hash=digest, created_at=time.time()))
        return True

    async def login_row(self, login: str) -> LoginRow | None:
        """The account a login names, unless it was deleted."""
        p = schema.players
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(p.c.id, p.c.name, p.c.password_hash)
                .where(p.c.login == login, p.c.deleted.is_(False)))).first()
        return None if row is None else LoginRow(str(row[0]), str(row[1]), row[2])

    async def login_taken(self, login: str, other_than: str) -> bool:
        """Whether a player other than `other_than` has the login `login` (D47)."""
        p = schema.players
        async with self.engine.connect() as conn:
            found = (await conn.execute(select(p.c.id).where(
                p.c.login == login, p.c.id != other_than))).first()
        return found is not None

    async def password_hash(self, player_id: str) -> str | None:
        p = schema.players
        async with self.engine.connect() as conn:
            digest = (await conn.execute(select(p.c.password_hash)
                                         .where(p.c.id == player_id))).scalar()
        return None if digest is None else str(digest)

    async def set_password_hash(self, player_id: str, digest: str) -> None:
        p = schema.players
        async with self.engine.begin() as conn:
            await conn.execute(update(p).where(p.c.id == player_id).values(password_hash=digest))

    async def set_name(self, player_id: str, name: str, login: str | None) -> bool:
        """The player's name and, for an account, its login (D47). False: another account
        took the login meanwhile; nothing changed."""
        p = schema.players
        values: dict[str, str] = {"name": name}
        if login is not None:
            values["login"] = login
        try:
            async with self.engine.begin() as conn:
                await conn.execute(update(p).where(p.c.id == player_id).values(**values))
        except IntegrityError:
            return False
        return True

    async def deleted_among(self, players: set[str]) -> list[str]:
        """Which of `players` are deleted accounts (D53)."""
        p = schema.players
        ids = sorted(players)
        found: list[str] = []
        async with self.engine.connect() as conn:
            for start in range(0, len(ids), IN_CHUNK):
                rows = await conn.execute(select(p.c.id).where(
                    p.c.id.in_(ids[start:start + IN_CHUNK]), p.c.deleted.is_(True)))
                found.extend(str(row[0]) for row in rows)
        return found

    async def deletions_since(self, since: float) -> list[tuple[str, str, float]]:
        """The operators' deletions (`trusis admin delete`, D53) whose audit line was
        written at `since` or later: (line, player, when), from the log's index on `at`."""
        m = schema.moderation_log
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(m.c.id, m.c.target_id, m.c.at).where(
                m.c.at >= since, m.c.action == "delete_player"))
            return [(str(line), str(player), float(at)) for line, player, at in rows
                    if player is not None]

    async def seat_token_families(self, program: str, table_id: str) -> list[str]:
        """The sign-ins (token families) of the seat tokens `program` holds at `table_id`."""
        t = schema.tokens
        async with self.engine.connect() as conn:
            return [str(f) for f in (await conn.execute(
                select(func.coalesce(t.c.family, t.c.hash)).where(
                    t.c.player_id == program, t.c.kind == "seat", t.c.table_id == table_id))
            ).scalars().all()]
