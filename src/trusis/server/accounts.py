"""Registered accounts: a name and a password (argon2id), on the same player row as a guest.

A guest who registers keeps their player id, so every game played as a guest
stays theirs. Logging in always opens a new session and closes the one the
request came with, so a session fixed before login does not survive it.
Failed logins are counted per account and per address in the database (so the
limit holds whichever server process answers) and slow an attacker down.
"""

from __future__ import annotations

import time

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import Response
from sqlalchemy import delete, insert, select, update
from starlette.requests import HTTPConnection

from trusis.server import metrics, schema
from trusis.server.errors import LobbyError
from trusis.server.identity import Identity, guest_name
from trusis.server.store import Player, Store, new_id

HASHER = PasswordHasher()  # argon2id with the library's current recommended parameters
PASSWORD_LIMITS = (8, 200)
WINDOW = 15 * 60.0
ACCOUNT_FAILURES = 5
"""Failed logins to one account allowed in WINDOW before it is locked for the rest of it."""
ADDRESS_FAILURES = 20


def login_key(name: str) -> str:
    return name.casefold()


def check_password(password: str) -> None:
    low, high = PASSWORD_LIMITS
    if not low <= len(password) <= high:
        raise LobbyError(422, "bad_password",
                         f"a password has {low} to {high} characters", min=low, max=high)


class Accounts:
    def __init__(self, store: Store, identity: Identity) -> None:
        self.store = store
        self.identity = identity

    async def register(self, name: str, password: str, connection: HTTPConnection,
                       response: Response) -> Player:
        """A new account, or the signed-in guest turned into one (keeping their games)."""
        name = guest_name(name)
        check_password(password)
        digest = HASHER.hash(password)
        owner = await self.identity.owner(connection)
        p = schema.players
        async with self.store.engine.begin() as conn:
            taken = (await conn.execute(select(p.c.id).where(p.c.login == login_key(name))))
            if taken.first() is not None:
                raise LobbyError(409, "name_taken", f"the name {name!r} is taken", name=name)
            if owner is not None and owner.player.kind == "guest":
                player = Player(owner.player.id, name, "account")
                await conn.execute(update(p).where(p.c.id == player.id).values(
                    name=name, kind="account", login=login_key(name), password_hash=digest))
            else:
                player = Player(new_id(16), name, "account")
                await conn.execute(insert(p).values(
                    id=player.id, name=name, kind="account", login=login_key(name),
                    password_hash=digest, created_at=time.time()))
        await self.identity.renew(player, connection, response)
        return player

    async def login(self, name: str, password: str, address: str,
                    connection: HTTPConnection, response: Response) -> Player:
        keys = (f"account:{login_key(name)}"[:128], f"address:{address}"[:128])
        await self._throttle(keys)
        p = schema.players
        async with self.store.engine.connect() as conn:
            row = (await conn.execute(
                select(p.c.id, p.c.name, p.c.password_hash)
                .where(p.c.login == login_key(name), p.c.deleted.is_(False)))).first()
        stored = row[2] if row is not None else None
        try:
            ok = stored is not None and HASHER.verify(stored, password)
        except (VerificationError, InvalidHashError):
            ok = False
        if not ok or row is None:
            if stored is None:
                HASHER.hash(password)  # the same time whether or not the name exists
            await self._failed(keys)
            raise LobbyError(401, "wrong_login", "wrong name or password")
        await self._clear(keys[0])
        player = Player(row[0], row[1], "account")
        await self.identity.renew(player, connection, response)
        return player

    async def _throttle(self, keys: tuple[str, str]) -> None:
        f = schema.login_failures
        now = time.time()
        async with self.store.engine.connect() as conn:
            rows = (await conn.execute(select(f).where(f.c.key.in_(keys)))).mappings().all()
        for row in rows:
            limit = ACCOUNT_FAILURES if row["key"].startswith("account:") else ADDRESS_FAILURES
            wait = row["first_at"] + WINDOW - now
            if row["failures"] >= limit and wait > 0:
                if (figures := metrics.FIGURES) is not None:
                    figures.rate_limited("login")
                raise LobbyError(429, "too_many_attempts",
                                 "too many failed logins: try again later",
                                 retry_after=int(wait) + 1)

    async def _failed(self, keys: tuple[str, str]) -> None:
        f = schema.login_failures
        now = time.time()
        async with self.store.engine.begin() as conn:
            for key in keys:
                row = (await conn.execute(select(f).where(f.c.key == key))).mappings().first()
                if row is None or row["first_at"] + WINDOW < now:
                    await conn.execute(delete(f).where(f.c.key == key))
                    await conn.execute(insert(f).values(key=key, failures=1, first_at=now))
                else:
                    await conn.execute(update(f).where(f.c.key == key)
                                       .values(failures=row["failures"] + 1))

    async def _clear(self, key: str) -> None:
        f = schema.login_failures
        async with self.store.engine.begin() as conn:
            await conn.execute(delete(f).where(f.c.key == key))
