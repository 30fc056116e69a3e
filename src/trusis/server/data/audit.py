"""The audit log of moderation: every grant, sanction, lift and report decision, with who,
when, why and until when, the command line's (`trusis admin grant`, `revoke`, `delete`,
`draw`) included. Lines are only ever added; moderators read them (api/moderation.py)."""

from __future__ import annotations

import time
from typing import Final, Literal

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.orm import aliased
from typing_extensions import TypedDict

from trusis.server.data import schema
from trusis.server.data.ids import new_id

AuditAction = Literal["warning", "mute", "ban", "lift_mute", "lift_ban", "acted", "dismissed",
                      "grant_admin", "grant_moderator", "revoke_admin", "revoke_moderator",
                      "draw", "draw_refused", "delete_player", "hide_line", "unhide_line"]
"""draw: a stuck game ended as a draw (D38, stuck.py), or draw_refused after it when the
game could not be ended once its line was written (the line is never rewritten, D37);
delete_player: `trusis admin delete`; hide_line, unhide_line: a chat line hidden or shown
again (D71), named by `line`. Lines written before lifts said what they lifted have the
action "lift" and the sanction's kind as their reason (the page shows them as a lifted mute
or ban)."""

CLI: Final = "cli"
"""The actor of a line written by `trusis admin` on the database (no account acts there)."""


class AuditLine(TypedDict):
    """A line as moderators read it, with the names of the actor and the target."""

    id: str
    at: float
    actor_id: str
    action: str
    target_id: str | None
    report_id: str | None
    reason: str
    until: float | None
    actor_name: str | None
    target_name: str | None
    target_deleted: bool | None
    line: str | None
    """The chat line a hide or an unhide is about: "<table>/<place>/<number>" (D71)."""


async def write(conn: AsyncConnection, actor: str, action: AuditAction, target: str | None,
                reason: str, until: float | None = None, report_id: str | None = None,
                line: str | None = None) -> None:
    await conn.execute(insert(schema.moderation_log).values(
        id=new_id(12), at=time.time(), actor_id=actor, action=action, target_id=target,
        report_id=report_id, reason=reason, until=until, line=line))


async def note(engine: AsyncEngine, actor: str, action: AuditAction, target: str | None,
               reason: str, until: float | None = None, report_id: str | None = None) -> None:
    """One line, in a transaction of its own."""
    async with engine.begin() as conn:
        await write(conn, actor, action, target, reason, until, report_id)


async def read(engine: AsyncEngine, limit: int, target: str | None = None) -> list[AuditLine]:
    """The newest lines first, with the names of the actor and the target."""
    log = schema.moderation_log
    actor, whom = aliased(schema.players), aliased(schema.players)
    query = (select(log, actor.c.name.label("actor_name"), whom.c.name.label("target_name"),
                    whom.c.deleted.label("target_deleted"))
             .outerjoin(actor, actor.c.id == log.c.actor_id)
             .outerjoin(whom, whom.c.id == log.c.target_id)
             .order_by(log.c.at.desc()).limit(limit))
    if target is not None:
        query = query.where(log.c.target_id == target)
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).mappings().all()
    return [AuditLine(**row) for row in rows]  # type: ignore[typeddict-item]
