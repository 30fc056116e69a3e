"""Registered accounts: a name and a password (argon2id), on the same player row as a guest.

A guest who registers keeps their player id, so every game played as a guest
stays theirs. Logging in always opens a new session and closes the one the
request came with, so a session fixed before login does not survive it.
Logins and registrations are counted in the database (so the limits hold
whichever server process answers; limits/logins.py) and passwords are hashed off the
event loop (passwords.py).
"""

from __future__ import annotations

from fastapi import Response
from starlette.requests import HTTPConnection

from trusis.server.data.store import Player, Store, new_id
from trusis.server.errors import LobbyError
from trusis.server.limits.address import client_address
from trusis.server.limits.logins import (
    ADDRESS_LOGINS,
    ADDRESS_WINDOW,
    REGISTER_WINDOW,
    REGISTRATIONS,
    Throttle,
)
from trusis.server.moderation import sanctions
from trusis.server.players.identity import Identity, guest_name
from trusis.server.players.passwords import (
    check_length,
    check_password,
    hash_password,
    verify_password,
)


def login_key(name: str) -> str:
    return name.casefold()


class Accounts:
    def __init__(self, store: Store, identity: Identity) -> None:
        self.store = store
        self.identity = identity
        self.throttle = Throttle(store.login_counts)

    async def register(self, name: str, password: str, connection: HTTPConnection,
                       response: Response) -> Player:
        """A new account, or the signed-in guest turned into one (keeping their games)."""
        name = guest_name(name)
        await sanctions.refuse_banned(self.store, connection,
                                      self.identity.presented_token(connection))
        address = client_address(connection)
        check_length(password)  # free; the try is counted before anything costly
        await self.throttle.window(f"register:{address}", REGISTRATIONS, REGISTER_WINDOW)
        await check_password(password, name, address)  # up to ~50 ms of CPU (zxcvbn)
        digest = await hash_password(password, address)
        owner = await self.identity.owner(connection)
        guest = owner is not None and owner.player.kind == "guest"
        player = Player(owner.player.id if owner is not None and guest else new_id(16), name,
                        "account")
        if not await self.store.accounts.register(login_key(name), name, digest, player.id,
                                                  guest):
            raise LobbyError(409, "name_taken", f"the name {name!r} is taken", name=name)
        await self.identity.renew(player, connection, response)
        return player

    async def login(self, name: str, password: str, address: str,
                    connection: HTTPConnection, response: Response) -> Player:
        """Every try counts toward the address's budget; tries at one account from
        one address wait longer and longer after five failures (limits/logins.py)."""
        await self.throttle.window(f"address:{address}", ADDRESS_LOGINS, ADDRESS_WINDOW)
        pair = f"pair:{login_key(name)[:64]}|{address}"
        async with self.throttle.one_at_a_time(pair):
            await self.throttle.pair(pair)
            row = await self.store.accounts.login_row(login_key(name))
            if row is None or not await verify_password(row.password_hash, password, address):
                if row is None:  # as long as a wrong password
                    await verify_password(None, password, address)
                raise LobbyError(401, "wrong_login", "wrong name or password")
            await self.throttle.clear(pair)
        await sanctions.refuse_banned(self.store, connection,  # after the password
                                      self.identity.presented_token(connection), row.player_id)
        player = Player(row.player_id, row.name, "account")
        await self.identity.renew(player, connection, response)
        return player
