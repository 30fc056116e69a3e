"""Sessions ending: logout, signing out everywhere, changing a password, and what follows.

A revocation deletes tokens in the database — which every process asks at every
request (identity.py), so it counts at once everywhere — and closes the open
WebSockets of the revoked tokens (close code 4401): on this process directly,
on the others through the cluster's bus (cluster/node.py).
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select, update

from trusis.server import deps, schema
from trusis.server.errors import LobbyError
from trusis.server.hub import Hub, Revoked
from trusis.server.passwords import check_password, hash_password, verify_password
from trusis.server.store import Store

router = APIRouter(prefix="/api")

PASSWORD_TRIES = 5
"""Wrong current passwords one player may send in PASSWORD_WINDOW (per process): whoever
holds a session must not be able to guess the password behind it at argon2's pace."""
PASSWORD_WINDOW = 15 * 60.0


class PasswordIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    current: Annotated[str, Field(max_length=400)]
    password: Annotated[str, Field(max_length=400)]


class Sessions:
    """Revokes tokens and closes the connections they opened, on every process."""

    def __init__(self, store: Store, hub: Hub) -> None:
        self.store = store
        self.hub = hub
        self.tries: dict[str, tuple[int, float]] = {}  # player -> (tries, since)

    def take_try(self, player_id: str) -> None:
        """Count one password check before it is made (no await: two at once both count),
        or refuse it with 429 once the window's tries are spent."""
        now = time.monotonic()
        if len(self.tries) > 10_000:  # bounded: the spent windows go first
            self.tries = {k: v for k, v in self.tries.items() if now - v[1] < PASSWORD_WINDOW}
        count, since = self.tries.get(player_id, (0, now))
        if now - since >= PASSWORD_WINDOW:
            count, since = 0, now
        if count >= PASSWORD_TRIES:
            raise LobbyError(429, "too_many_attempts", "too many wrong passwords: try again "
                             "later", retry_after=int(since + PASSWORD_WINDOW - now) + 1)
        self.tries[player_id] = (count + 1, since)

    async def revoke(self, player_id: str, family: str | None = None,
                     keep: str | None = None, ban: bool = False) -> None:
        """End one sign-in (`family`), every one but `keep`, or (neither) all of them;
        for a ban (moderation.py) the player's seats also go, on every process."""
        await self.store.drop_tokens(player_id, family, keep)
        revoked = Revoked(player=player_id, family=family, keep=keep)
        if ban:
            revoked["ban"] = True
        await self.hub.revoked(revoked)


@router.post("/logout")
async def logout(request: Request, response: Response) -> dict[str, Any]:
    """End this session: its cookie and every token it handed out (a guest's bearer)."""
    owner = await deps.identity(request).sign_out(request, response)
    if owner is not None:
        await deps.sessions(request).revoke(owner.player.id, family=owner.family)
    return {"ok": True}


@router.post("/logout/everywhere")
async def logout_everywhere(request: Request, response: Response) -> dict[str, Any]:
    """End every session of the signed-in player, this one included, on every device."""
    player = await deps.identity(request).player(request)
    await deps.sessions(request).revoke(player.id)
    await deps.identity(request).sign_out(request, response)
    return {"ok": True}


@router.post("/password")
async def change_password(body: PasswordIn, request: Request) -> dict[str, Any]:
    """A new password, given the current one; every other session of the account ends."""
    owner = await deps.identity(request).owner(request)
    if owner is None:
        raise LobbyError(401, "not_signed_in", "choose a name first (POST /api/guest)")
    if owner.player.kind != "account":
        raise LobbyError(409, "no_password", "a guest has no password: register first")
    p = schema.players
    store = deps.store(request)
    async with store.engine.connect() as conn:
        digest = (await conn.execute(select(p.c.password_hash)
                                     .where(p.c.id == owner.player.id))).scalar()
    sessions = deps.sessions(request)
    sessions.take_try(owner.player.id)
    if not await verify_password(digest, body.current):  # in the hashing pool, off the loop
        raise LobbyError(403, "wrong_password", "the current password is not right")
    sessions.tries.pop(owner.player.id, None)
    await check_password(body.password, owner.player.name)
    new = await hash_password(body.password)
    async with store.engine.begin() as conn:
        await conn.execute(update(p).where(p.c.id == owner.player.id).values(password_hash=new))
    await sessions.revoke(owner.player.id, keep=owner.family)
    return {"ok": True}
