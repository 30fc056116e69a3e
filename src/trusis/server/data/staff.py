"""The roles of the people who run a server: admin (the operator) and moderator.

Not game roles (docs/rules.md): these say who may act for the server. They are kept in
the database (`staff_roles`, migration 0005), granted and revoked with `trusis admin
grant` / `revoke` on the server's `--database`, so that every process of a server sees
the same ones. Only accounts hold them: a guest's identity lasts as long as a cookie.
"""

from __future__ import annotations

import time
from typing import Final, Literal, get_args

from sqlalchemy import delete, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine
from typing_extensions import TypedDict

from trusis.server.data import audit, schema

StaffRole = Literal["admin", "moderator"]
STAFF_ROLES: Final[tuple[str, ...]] = get_args(StaffRole)


class StaffRow(TypedDict):
    """A role held, with its holder's name."""

    player_id: str
    name: str
    role: str
    granted_at: float
    granted_by: str


class NotAnAccount(ValueError):
    """Roles go to registered accounts only."""


async def roles_of(engine: AsyncEngine, player_id: str) -> set[str]:
    r = schema.staff_roles
    async with engine.connect() as conn:
        rows = await conn.execute(select(r.c.role).where(r.c.player_id == player_id))
        return {str(row[0]) for row in rows}


def _line(give: bool, role: StaffRole) -> audit.AuditAction:
    if role == "admin":
        return "grant_admin" if give else "revoke_admin"
    return "grant_moderator" if give else "revoke_moderator"


async def grant(engine: AsyncEngine, player_id: str, role: StaffRole,
                by: str = audit.CLI, reason: str = "") -> bool:
    """Give `role` to an account, with its audit line in the same transaction (D37: no
    line, no role); False if it already had it."""
    p, r = schema.players, schema.staff_roles
    async with engine.begin() as conn:
        row = (await conn.execute(select(p.c.login, p.c.deleted)
                                  .where(p.c.id == player_id))).first()
        if row is None or row[0] is None or row[1]:
            raise NotAnAccount(player_id)
        held = (await conn.execute(select(r.c.role).where(
            r.c.player_id == player_id, r.c.role == role))).first()
        if held is not None:
            return False
        await conn.execute(insert(r).values(player_id=player_id, role=role,
                                            granted_at=time.time(), granted_by=by))
        await audit.write(conn, by, _line(True, role), player_id, reason)
    return True


async def revoke(engine: AsyncEngine, player_id: str, role: StaffRole,
                 by: str = audit.CLI, reason: str = "") -> bool:
    """Take `role` away, with its audit line in the same transaction; False if the player
    did not have it."""
    r = schema.staff_roles
    async with engine.begin() as conn:
        done = await conn.execute(delete(r).where(r.c.player_id == player_id,
                                                  r.c.role == role))
        if done.rowcount:
            await audit.write(conn, by, _line(False, role), player_id, reason)
    return bool(done.rowcount)


async def staff(engine: AsyncEngine) -> list[StaffRow]:
    """Every role held, with its holder's name: who runs this server."""
    p, r = schema.players, schema.staff_roles
    async with engine.connect() as conn:
        rows = await conn.execute(
            select(r.c.player_id, p.c.name, r.c.role, r.c.granted_at, r.c.granted_by)
            .join(p, p.c.id == r.c.player_id).order_by(r.c.role, p.c.name))
        return [StaffRow(**row) for row in rows.mappings()]  # type: ignore[typeddict-item]
