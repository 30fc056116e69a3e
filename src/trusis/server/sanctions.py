"""Sanctions a moderator gives a player: a warning, a chat mute, a ban (issue 18).

Every sanction is a row of `sanctions` (who, when, why, until when) and a line of the
audit log (audit.py). Nothing is cached: a mute is checked in the database when a chat
message is applied, on the process that owns the game (mutes.py), and a ban where a
player signs in or is found from a token — so a sanction given on one process counts at once on
every other (docs/deploy.md, "Moderation").
"""

from __future__ import annotations

import time
from typing import Any, Final, Literal, TypedDict, get_args

from sqlalchemy import insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from starlette.requests import HTTPConnection

from trusis.server import schema
from trusis.server.errors import LobbyError
from trusis.server.mutes import in_force
from trusis.server.store import new_id, token_hash

SanctionKind = Literal["warning", "mute", "ban"]
SANCTION_KINDS: Final[tuple[str, ...]] = get_args(SanctionKind)
MAX_DURATION = 10 * 365 * 24 * 3600.0
"""The longest mute or ban with an end (ten years); a ban may also have none."""


class Sanction(TypedDict):
    id: str
    player_id: str
    kind: str
    reason: str
    by_id: str
    at: float
    until: float | None
    report_id: str | None
    seen_at: float | None
    lifted_at: float | None


async def active(engine: AsyncEngine, player_id: str, kind: SanctionKind) -> Sanction | None:
    """The player's mute or ban in force now (the one that lasts longest), if any."""
    s = schema.sanctions
    now = time.time()
    async with engine.connect() as conn:
        rows = (await conn.execute(select(s).where(
            s.c.player_id == player_id, s.c.kind == kind, in_force(now)))).mappings().all()
    if not rows:
        return None
    longest = max(rows, key=lambda r: float("inf") if r["until"] is None else r["until"])
    found: Sanction = dict(longest)  # type: ignore[assignment]
    return found


async def give(conn: AsyncConnection, player_id: str, kind: SanctionKind, reason: str,
               by: str, until: float | None, report_id: str | None,
               at: float | None = None) -> str:
    """Record a sanction (in the caller's transaction, with its audit line), given `at`
    (now by default)."""
    sanction_id = new_id(12)
    await conn.execute(insert(schema.sanctions).values(
        id=sanction_id, player_id=player_id, kind=kind, reason=reason, by_id=by,
        at=time.time() if at is None else at, until=until, report_id=report_id))
    return sanction_id


async def lift(conn: AsyncConnection, sanction_id: str) -> dict[str, Any] | None:
    """End a mute or a ban early; the sanction as it was, or None if not in force."""
    s = schema.sanctions
    row = (await conn.execute(select(s).where(
        s.c.id == sanction_id, s.c.kind != "warning", in_force(time.time())))).mappings().first()
    if row is None:
        return None
    await conn.execute(update(s).where(s.c.id == sanction_id).values(lifted_at=time.time()))
    if row["kind"] == "ban":
        await conn.execute(schema.banned_tokens.delete().where(
            schema.banned_tokens.c.player_id == row["player_id"]))
    return dict(row)


async def keep_banned_tokens(conn: AsyncConnection, player_id: str,
                             until: float | None) -> None:
    """Remember the hashes of the banned player's tokens before they are revoked: a browser
    that still sends one gets no new guest and no sign-in (`refuse_banned`)."""
    t, b = schema.tokens, schema.banned_tokens
    hashes = (await conn.execute(select(t.c.hash).where(t.c.player_id == player_id))).scalars()
    for digest in hashes.all():
        await conn.execute(b.delete().where(b.c.hash == digest))
        await conn.execute(insert(b).values(hash=digest, player_id=player_id, until=until))


class WarningFacts(TypedDict):
    """A warning as its player reads it: `GET /api/me/warnings`, the `warning` frame."""

    id: str
    reason: str
    at: float


class BanFacts(TypedDict):
    """What a banned player is told (D36, D53): when the ban ends (None: never) and the
    moderator's reason, as a warning shows its reason. Never who gave it."""

    until: float | None
    reason: str


def banned_error(ban: BanFacts) -> LobbyError:
    return LobbyError(403, "banned", "you are banned from this server"
                      + ("" if ban["until"] is None else " until the date given"),
                      until=ban["until"], reason=ban["reason"])


async def ban_of(engine: AsyncEngine, token: str | None,
                 player_id: str | None = None) -> BanFacts | None:
    """The ban in force of the player whose session `token` was (kept by
    `keep_banned_tokens` when the ban revoked it), or of `player_id`: its end and reason."""
    now = time.time()
    b = schema.banned_tokens
    banned: tuple[str, float | None] | None = None
    if token is not None and len(token) <= 200:
        async with engine.connect() as conn:
            row = (await conn.execute(select(b.c.player_id, b.c.until).where(
                b.c.hash == token_hash(token), or_(b.c.until.is_(None), b.c.until > now))
            )).first()
        if row is not None:
            banned = (row[0], row[1])
    who = banned[0] if banned is not None else player_id
    found = None if who is None else await active(engine, who, "ban")
    if found is not None:
        return BanFacts(until=found["until"], reason=found["reason"])
    if banned is not None:  # its sanction's row is gone: the token's own end still holds
        return BanFacts(until=banned[1], reason="")
    return None


async def refuse_banned(engine: AsyncEngine, connection: HTTPConnection,
                        token: str | None, player_id: str | None = None) -> None:
    """403 `banned` (with the ban's end and reason) for a banned player signing in, or a
    browser that held their session."""
    found = await ban_of(engine, token, player_id)
    if found is not None:
        raise banned_error(found)


async def unseen_warnings(engine: AsyncEngine, player_id: str) -> list[dict[str, Any]]:
    s = schema.sanctions
    async with engine.connect() as conn:
        rows = await conn.execute(select(s.c.id, s.c.reason, s.c.at).where(
            s.c.player_id == player_id, s.c.kind == "warning", s.c.seen_at.is_(None))
            .order_by(s.c.at))
        return [dict(r) for r in rows.mappings()]


async def mark_seen(engine: AsyncEngine, player_id: str, sanction_id: str) -> bool:
    """A warning is shown once: read, it is not shown again."""
    s = schema.sanctions
    async with engine.begin() as conn:
        done = await conn.execute(update(s).where(
            s.c.id == sanction_id, s.c.player_id == player_id, s.c.kind == "warning",
            s.c.seen_at.is_(None)).values(seen_at=time.time()))
    return bool(done.rowcount)


async def of_player(engine: AsyncEngine, player_id: str, limit: int = 50) -> list[Any]:
    s = schema.sanctions
    async with engine.connect() as conn:
        rows = await conn.execute(select(s).where(s.c.player_id == player_id)
                                  .order_by(s.c.at.desc()).limit(limit))
        return [dict(r) for r in rows.mappings()]
