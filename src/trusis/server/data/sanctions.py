"""Sanctions as stored (issue 18): the rows of `sanctions` and `banned_tokens`, each given
or lifted in one transaction with its audit line (audit.py) and, given from a report,
the report's decision (reports.py). moderation/sanctions.py says what a sanction does."""

from __future__ import annotations

import time
from typing import Final, Literal, cast, get_args

from sqlalchemy import insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from typing_extensions import TypedDict

from trusis.server.data import audit, schema
from trusis.server.data.ids import new_id, token_hash
from trusis.server.data.mutes import in_force
from trusis.server.data.reports import mark

SanctionKind = Literal["warning", "mute", "ban"]
SANCTION_KINDS: Final[tuple[str, ...]] = get_args(SanctionKind)


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


class UnseenWarning(TypedDict):
    id: str
    reason: str
    at: float


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
    return cast(Sanction, dict(longest))


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


async def sanction(engine: AsyncEngine, player_id: str, kind: SanctionKind, reason: str,
                   by: str, until: float | None, report_id: str | None, at: float) -> str:
    """A sanction given by `by`, its audit line, for a ban the banned tokens kept
    (`keep_banned_tokens`), and given from a report, the report marked acted on (D54):
    one transaction. The sanction's id."""
    async with engine.begin() as conn:
        if report_id is not None:
            await mark(conn, report_id, "acted", by)
        sanction_id = await give(conn, player_id, kind, reason, by, until, report_id, at)
        if kind == "ban":
            await keep_banned_tokens(conn, player_id, until)
        await audit.write(conn, by, kind, player_id, reason, until, report_id)
    return sanction_id


async def lift(conn: AsyncConnection, sanction_id: str) -> Sanction | None:
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
    return cast(Sanction, dict(row))


async def lift_with_line(engine: AsyncEngine, sanction_id: str, by: str,
                         reason: str) -> Sanction | None:
    """`lift` with its audit line (`lift_mute` or `lift_ban`), in one transaction."""
    async with engine.begin() as conn:
        was = await lift(conn, sanction_id)
        if was is not None:
            action: audit.AuditAction = "lift_ban" if was["kind"] == "ban" else "lift_mute"
            await audit.write(conn, by, action, was["player_id"], reason)
    return was


async def whose(engine: AsyncEngine, sanction_id: str) -> str | None:
    """The player a sanction was given to (None: no such sanction)."""
    s = schema.sanctions
    async with engine.connect() as conn:
        found = (await conn.execute(select(s.c.player_id).where(s.c.id == sanction_id))
                 ).scalar_one_or_none()
    return None if found is None else str(found)


async def keep_banned_tokens(conn: AsyncConnection, player_id: str,
                             until: float | None) -> None:
    """Remember the hashes of the banned player's tokens before they are revoked: a browser
    that still sends one gets no new guest and no sign-in (moderation/sanctions.py)."""
    t, b = schema.tokens, schema.banned_tokens
    hashes = (await conn.execute(select(t.c.hash).where(t.c.player_id == player_id))).scalars()
    for digest in hashes.all():
        await conn.execute(b.delete().where(b.c.hash == digest))
        await conn.execute(insert(b).values(hash=digest, player_id=player_id, until=until))


async def banned_token(engine: AsyncEngine, token: str) -> tuple[str, float | None] | None:
    """The banned player whose session `token` was, and the end of that ban kept with it
    (None: never), while it lasts."""
    b = schema.banned_tokens
    now = time.time()
    async with engine.connect() as conn:
        row = (await conn.execute(select(b.c.player_id, b.c.until).where(
            b.c.hash == token_hash(token), or_(b.c.until.is_(None), b.c.until > now))
        )).first()
    return None if row is None else (str(row[0]), row[1])


async def unseen_warnings(engine: AsyncEngine, player_id: str) -> list[UnseenWarning]:
    s = schema.sanctions
    async with engine.connect() as conn:
        rows = await conn.execute(select(s.c.id, s.c.reason, s.c.at).where(
            s.c.player_id == player_id, s.c.kind == "warning", s.c.seen_at.is_(None))
            .order_by(s.c.at))
        return [UnseenWarning(id=str(r[0]), reason=str(r[1]), at=float(r[2])) for r in rows]


async def mark_seen(engine: AsyncEngine, player_id: str, sanction_id: str) -> bool:
    """A warning is shown once: read, it is not shown again."""
    s = schema.sanctions
    async with engine.begin() as conn:
        done = await conn.execute(update(s).where(
            s.c.id == sanction_id, s.c.player_id == player_id, s.c.kind == "warning",
            s.c.seen_at.is_(None)).values(seen_at=time.time()))
    return bool(done.rowcount)


async def of_player(engine: AsyncEngine, player_id: str, limit: int = 50) -> list[Sanction]:
    s = schema.sanctions
    async with engine.connect() as conn:
        rows = (await conn.execute(select(s).where(s.c.player_id == player_id)
                                   .order_by(s.c.at.desc()).limit(limit))).mappings().all()
    return [Sanction(**r) for r in rows]  # type: ignore[typeddict-item]
