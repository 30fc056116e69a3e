"""What a route finds on the app: the hub, the identity service, the store, the accounts.

Set once at start-up (app.lifespan); the routes of `lobby` and `people` read
them here so that neither module reaches into the app's state by itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.requests import HTTPConnection

from trusis.server.data.store import Store
from trusis.server.players.accounts import Accounts
from trusis.server.players.identity import Identity
from trusis.server.tables.hub import Hub

if TYPE_CHECKING:
    from trusis.server.tables.revocation import Sessions


def hub(connection: HTTPConnection) -> Hub:
    found: Hub = connection.app.state.hub
    return found


def identity(connection: HTTPConnection) -> Identity:
    found: Identity = connection.app.state.identity
    return found


def store(connection: HTTPConnection) -> Store:
    found: Store = connection.app.state.store
    return found


def accounts(connection: HTTPConnection) -> Accounts:
    found: Accounts = connection.app.state.accounts
    return found


def sessions(connection: HTTPConnection) -> Sessions:
    found: Sessions = connection.app.state.sessions
    return found


async def viewer(connection: HTTPConnection) -> str | None:
    """The signed-in player's id, or None for a visitor."""
    owner = await identity(connection).owner(connection)
    return owner.player.id if owner else None


async def seat_token_scope(connection: HTTPConnection) -> None:
    """Every HTTP route's first check (app.py): what a program's seat token may not do."""
    if connection.scope["type"] == "http":
        await identity(connection).check_scope(connection)
