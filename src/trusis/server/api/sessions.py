"""Sessions ending: logout, signing out everywhere, changing a password (the routes).

What a revocation does is revocation.py's `Sessions`.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from trusis.server.api import deps, replies
from trusis.server.errors import LobbyError
from trusis.server.limits.address import client_address
from trusis.server.players.passwords import check_password, hash_password, verify_password

router = APIRouter(prefix="/api")

class PasswordIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    current: Annotated[str, Field(max_length=400)]
    password: Annotated[str, Field(max_length=400)]


@router.post("/logout")
async def logout(request: Request, response: Response) -> replies.Ok:
    """End this session: its cookie and every token it handed out (a guest's bearer)."""
    owner = await deps.identity(request).sign_out(request, response)
    if owner is not None:
        await deps.sessions(request).revoke(owner.player.id, family=owner.family)
    return {"ok": True}


@router.post("/logout/everywhere")
async def logout_everywhere(request: Request, response: Response) -> replies.Ok:
    """End every session of the signed-in player, this one included, on every device."""
    player = await deps.identity(request).player(request)
    await deps.sessions(request).revoke(player.id)
    await deps.identity(request).sign_out(request, response)
    return {"ok": True}


@router.post("/password")
async def change_password(body: PasswordIn, request: Request) -> replies.Ok:
    """A new password, given the current one; every other session of the account ends."""
    owner = await deps.identity(request).owner(request)
    if owner is None:
        raise LobbyError(401, "not_signed_in", "choose a name first (POST /api/guest)")
    if owner.player.kind != "account":
        raise LobbyError(409, "no_password", "a guest has no password: register first")
    store = deps.store(request)
    digest = await store.accounts.password_hash(owner.player.id)
    sessions = deps.sessions(request)
    tried = f"{owner.player.id}:{owner.family}"  # per session: a stolen one cannot lock
    sessions.take_try(tried)  # the owner's own sessions out of changing the password
    address = client_address(request)  # in the hashing pool, off the loop, in its turn
    if not await verify_password(digest, body.current, address):
        raise LobbyError(403, "wrong_password", "the current password is not right")
    sessions.tries.pop(tried, None)
    await check_password(body.password, owner.player.name, address)
    new = await hash_password(body.password, address)
    await store.accounts.set_password_hash(owner.player.id, new)
    await sessions.revoke(owner.player.id, keep=owner.family)
    return {"ok": True}
