"""The moderation page's API: reports from every table, a player's record, sanctions, the
audit log, and (for admins) the staff roles (issue 18).

What a moderator reads is what was reported (R51): who reported, about which seat and
player, and the chat lines the reporter could read when they reported (R50: never a
whisper between two other seats, people.py keeps only the reporter's view). No role of
a game, no record of a running game, nothing else of a table is served here (D35).
"""

from __future__ import annotations

import json
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import aliased

from trusis.rules.actions import clean_line
from trusis.server import audit, deps, mutes, sanctions, schema, staff
from trusis.server.errors import LobbyError
from trusis.server.store import Player

router = APIRouter(prefix="/api")

ReportState = Literal["open", "acted", "dismissed"]


class DecisionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    state: Literal["acted", "dismissed"]
    reason: Annotated[str, Field(max_length=1000)] = ""


class SanctionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: sanctions.SanctionKind
    reason: Annotated[str, Field(min_length=1, max_length=1000)]
    minutes: Annotated[int | None, Field(ge=1, le=int(sanctions.MAX_DURATION // 60))] = None
    report: Annotated[str | None, Field(max_length=16)] = None


class RoleIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=64)]
    role: staff.StaffRole
    grant: bool = True
    reason: Annotated[str, Field(max_length=1000)] = ""


async def staff_member(request: Request, role: staff.StaffRole = "moderator") -> Player:
    """The signed-in player if they hold `role` (an admin holds every role), else 403."""
    player = await deps.identity(request).player(request)
    held = await staff.roles_of(deps.store(request).engine, player.id)
    if "admin" in held or role in held:
        return player
    raise LobbyError(403, "not_staff" if role == "moderator" else "not_admin",
                     f"only a {role} of this server can do this", role=role)


def _reports_query() -> Any:
    r, st, seat, t = schema.reports, schema.report_states, schema.seats, schema.tables
    reporter, about, gp = aliased(schema.players), aliased(schema.players), schema.game_players
    about_id = func.coalesce(r.c.reported_id, seat.c.player_id, gp.c.player_id)
    return (select(r.c.id, r.c.table_id, t.c.name.label("table_name"), r.c.at, r.c.phase,
                   r.c.reason, r.c.chat, r.c.reporter_id, reporter.c.name.label("reporter_name"),
                   r.c.reporter_seat, r.c.seat, about_id.label("about_id"),
                   about.c.name.label("about_name"), st.c.state, st.c.by_id,
                   st.c.at.label("state_at"))
            .join(t, t.c.id == r.c.table_id)
            .join(reporter, reporter.c.id == r.c.reporter_id)
            .outerjoin(seat, and_(seat.c.table_id == r.c.table_id, seat.c.seat == r.c.seat))
            .outerjoin(gp, and_(gp.c.table_id == r.c.table_id, gp.c.seat == r.c.seat))
            .outerjoin(about, about.c.id == about_id)
            .outerjoin(st, st.c.report_id == r.c.id)
            .order_by(r.c.at.desc()))


def _report(row: Any, names: dict[int, str]) -> dict[str, Any]:
    """One report as the page shows it: names, never a role (R51, D35)."""
    return {
        "id": row["id"], "table": {"id": row["table_id"], "name": row["table_name"]},
        "at": row["at"], "phase": row["phase"], "reason": row["reason"],
        "chat": json.loads(row["chat"]), "seats": names,
        "reporter": {"id": row["reporter_id"], "name": row["reporter_name"],
                     "seat": row["reporter_seat"]},
        "about": {"id": row["about_id"], "name": row["about_name"] or names.get(row["seat"]),
                  "seat": row["seat"]},
        "state": row["state"] or "open", "handled_by": row["by_id"], "handled_at": row["state_at"],
    }


async def _list(request: Request, query: Any) -> list[dict[str, Any]]:
    s = schema.seats
    async with deps.store(request).engine.connect() as conn:
        rows = (await conn.execute(query)).mappings().all()
        tables = {row["table_id"] for row in rows}
        names: dict[str, dict[int, str]] = {t: {} for t in tables}
        if tables:
            for seat in (await conn.execute(select(s.c.table_id, s.c.seat, s.c.name)
                                            .where(s.c.table_id.in_(tables)))).mappings():
                names[seat["table_id"]][seat["seat"]] = seat["name"]
    return [_report(row, names[row["table_id"]]) for row in rows]


@router.get("/moderation/reports")
async def all_reports(request: Request, state: ReportState | Literal["all"] = "all",
                      limit: int = Query(100, ge=1, le=500)) -> dict[str, Any]:
    """Every report from every table, newest first, with its state."""
    await staff_member(request)
    st = schema.report_states
    query = _reports_query().limit(limit)
    if state == "open":
        query = query.where(st.c.state.is_(None))
    elif state != "all":
        query = query.where(st.c.state == state)
    return {"reports": await _list(request, query)}


@router.post("/moderation/reports/{report_id}")
async def decide(report_id: str, body: DecisionIn, request: Request) -> dict[str, Any]:
    """Mark a report acted on or dismissed (again: the newest decision stands)."""
    me = await staff_member(request)
    async with deps.store(request).engine.begin() as conn:
        about = await _reported(conn, report_id)
        await _mark(conn, report_id, body.state, me.id)
        await audit.write(conn, me.id, body.state, about, body.reason.strip(),
                          report_id=report_id)
    return {"id": report_id, "state": body.state}


async def _reported(conn: AsyncConnection, report_id: str) -> str | None:
    """The player a report is about (None: a seat nobody held as a player), or 404."""
    r = schema.reports
    row = (await conn.execute(_reports_query().where(r.c.id == report_id))).mappings().first()
    if row is None:
        raise LobbyError(404, "no_such_report", "there is no such report")
    about: str | None = row["about_id"]
    return about


async def _mark(conn: AsyncConnection, report_id: str, state: str, by: str) -> None:
    """A report's state (the newest decision stands)."""
    st = schema.report_states
    await conn.execute(st.delete().where(st.c.report_id == report_id))
    await conn.execute(st.insert().values(report_id=report_id, state=state, by_id=by,
                                          at=time.time()))


async def _target(request: Request, player_id: str) -> dict[str, Any]:
    p = schema.players
    async with deps.store(request).engine.connect() as conn:
        row = (await conn.execute(select(p.c.id, p.c.name, p.c.kind, p.c.login,
                                         p.c.created_at).where(
            p.c.id == player_id, p.c.deleted.is_(False)))).mappings().first()
        if row is None:
            raise LobbyError(404, "no_such_player", "there is no such player")
        return (await _with_facts(conn, [dict(row)]))[0]


async def _with_facts(conn: AsyncConnection, players: list[dict[str, Any]]
                      ) -> list[dict[str, Any]]:
    """What tells two players of one name apart (two guests called Rex): `kind` (an account
    is `account`), `created_at`, `last_table_at` (the newest table they sat at or hosted:
    the server keeps no other trace of a visit) and `games` (games played to the end)."""
    ids = [x["id"] for x in players]
    t, s, gp = schema.tables, schema.seats, schema.game_players
    last: dict[str, float] = {}
    games: dict[str, int] = {}
    if ids:
        for query in (select(s.c.player_id, func.max(t.c.created_at)).join(
                          t, t.c.id == s.c.table_id).where(s.c.player_id.in_(ids))
                      .group_by(s.c.player_id),
                      select(t.c.host_id, func.max(t.c.created_at)).where(
                          t.c.host_id.in_(ids)).group_by(t.c.host_id)):
            for who, at in (await conn.execute(query)).all():
                if at is not None:
                    last[who] = max(float(at), last.get(who, 0.0))
        games = {who: int(n) for who, n in (await conn.execute(
            select(gp.c.player_id, func.count()).where(gp.c.player_id.in_(ids))
            .group_by(gp.c.player_id))).all()}
    for x in players:
        if x.pop("login", None) is not None:
            x["kind"] = "account"
        x["last_table_at"] = last.get(x["id"])
        x["games"] = games.get(x["id"], 0)
    return players


@router.get("/moderation/players")
async def find(request: Request, name: str = Query(..., min_length=1, max_length=64)
               ) -> dict[str, Any]:
    """Players by exact name (an account's, or guests'), for the page's search box, newest
    first, each with what tells it apart from another of the same name (`_with_facts`)."""
    await staff_member(request)
    p = schema.players
    async with deps.store(request).engine.connect() as conn:
        rows = await conn.execute(select(p.c.id, p.c.name, p.c.kind, p.c.login,
                                         p.c.created_at).where(
            or_(p.c.login == name.casefold(), p.c.name == name), p.c.deleted.is_(False),
            p.c.kind != "program").order_by(p.c.created_at.desc()).limit(20))
        return {"players": await _with_facts(conn, [dict(r) for r in rows.mappings()])}


@router.get("/moderation/players/{player_id}")
async def player_record(player_id: str, request: Request) -> dict[str, Any]:
    """A player's recent reports (about them), sanctions and staff roles."""
    await staff_member(request)
    target = await _target(request, player_id)
    engine = deps.store(request).engine
    r, seat, gp = schema.reports, schema.seats, schema.game_players
    query = _reports_query().where(func.coalesce(
        r.c.reported_id, seat.c.player_id, gp.c.player_id) == player_id).limit(20)
    return {"player": target, "roles": sorted(await staff.roles_of(engine, player_id)),
            "reports": await _list(request, query),
            "sanctions": await sanctions.of_player(engine, player_id),
            "muted_until": await mutes.muted_until(engine, player_id),
            "banned": await sanctions.active(engine, player_id, "ban") is not None}


@router.post("/moderation/players/{player_id}/sanctions", status_code=201)
async def sanction(player_id: str, body: SanctionIn, request: Request) -> dict[str, Any]:
    """A warning, a mute (`minutes` required) or a ban (`minutes`, or none: no end)."""
    me = await staff_member(request)
    await _target(request, player_id)
    engine = deps.store(request).engine
    await _may_sanction(request, me, player_id)
    if body.kind == "mute" and body.minutes is None:
        raise LobbyError(422, "needs_duration", "a mute needs a duration in minutes",
                         field="minutes")
    until = None if body.minutes is None or body.kind == "warning" else \
        time.time() + body.minutes * 60.0
    reason = _reason(body.reason)
    at = time.time()
    async with engine.begin() as conn:
        if body.report is not None:  # given from a report's "Their record" (D54)
            if await _reported(conn, body.report) != player_id:
                raise LobbyError(422, "report_not_about_player", "this report is about "
                                 "someone else", field="report")
            await _mark(conn, body.report, "acted", me.id)
        sanction_id = await sanctions.give(conn, player_id, body.kind, reason, me.id, until,
                                           body.report, at)
        if body.kind == "ban":
            await sanctions.keep_banned_tokens(conn, player_id, until)
        await audit.write(conn, me.id, body.kind, player_id, reason, until, body.report)
    if body.kind == "ban":  # every token ends, every connection closes, seats go to bots
        await deps.sessions(request).revoke(player_id, ban=sanctions.BanFacts(
            until=until, reason=reason))
    elif body.kind == "warning":  # to the open pages at once, on every process (D53)
        await deps.hub(request).warned(player_id, sanctions.WarningFacts(
            id=sanction_id, reason=reason, at=at))
    return {"id": sanction_id, "kind": body.kind, "until": until}


async def _may_sanction(request: Request, me: Player, player_id: str) -> None:
    """D36: nobody sanctions themself, and only an admin a moderator or an admin — nor
    lifts such a sanction, which would undo what they could not give."""
    engine = deps.store(request).engine
    if player_id == me.id:
        raise LobbyError(409, "own_sanction", "you cannot sanction yourself, nor lift your "
                         "own sanction")
    if await staff.roles_of(engine, player_id) and "admin" not in await staff.roles_of(
            engine, me.id):
        raise LobbyError(403, "not_admin", "only an admin can sanction a moderator or an "
                         "admin, or lift their sanctions", role="admin")


def _reason(text: str) -> str:
    """A moderator's reason, cleaned as a chat line is (D9): one of invisible characters
    only (U+200B, U+2060) says nothing, and is refused as an empty one."""
    reason = clean_line(text) or ""
    if not reason:
        raise LobbyError(422, "needs_reason", "say why", field="reason")
    return reason


@router.delete("/moderation/sanctions/{sanction_id}")
async def lift(sanction_id: str, request: Request,
               reason: str = Query("", max_length=1000)) -> dict[str, Any]:
    """End a mute or a ban before its time, saying why (`?reason=`), as a sanction does:
    the audit log's line is `lift_mute` or `lift_ban`, with that reason."""
    me = await staff_member(request)
    why = _reason(reason)
    engine = deps.store(request).engine
    s = schema.sanctions
    async with engine.connect() as conn:
        whose = (await conn.execute(select(s.c.player_id).where(s.c.id == sanction_id))
                 ).scalar_one_or_none()
    if whose is not None:  # D36: a lift undoes what only the same hands could give
        await _may_sanction(request, me, str(whose))
    async with engine.begin() as conn:
        was = await sanctions.lift(conn, sanction_id)
        if was is None:
            raise LobbyError(404, "no_such_sanction", "no mute or ban in force has this id")
        action: audit.AuditAction = "lift_ban" if was["kind"] == "ban" else "lift_mute"
        await audit.write(conn, me.id, action, was["player_id"], why)
    return {"id": sanction_id, "lifted": True, "kind": was["kind"]}


@router.get("/moderation/audit")
async def audit_log(request: Request, limit: int = Query(100, ge=1, le=500),
                    player: str | None = Query(None, max_length=32)) -> dict[str, Any]:
    await staff_member(request)
    log = await audit.read(deps.store(request).engine, limit, player)
    missing = {x["report_id"] for x in log if x["target_id"] is None and x["report_id"]}
    if missing:  # decisions written before they named the reported player
        r = schema.reports
        async with deps.store(request).engine.connect() as conn:
            about = {row["id"]: row for row in (await conn.execute(
                _reports_query().where(r.c.id.in_(missing)))).mappings()}
        for x in log:
            if x["target_id"] is None and (row := about.get(x["report_id"])) is not None:
                x["target_id"], x["target_name"] = row["about_id"], row["about_name"]
    return {"log": log}


@router.get("/staff")
async def staff_list(request: Request) -> dict[str, Any]:
    """Your own roles (anyone signed in), and every holder's for staff."""
    player = await deps.identity(request).player(request)
    engine = deps.store(request).engine
    mine = sorted(await staff.roles_of(engine, player.id))
    return {"roles": mine, "staff": await staff.staff(engine) if mine else []}


@router.post("/staff")
async def set_role(body: RoleIn, request: Request) -> dict[str, Any]:
    """An admin grants or revokes a role from the page, as `trusis admin grant` does."""
    me = await staff_member(request, "admin")
    p = schema.players
    async with deps.store(request).engine.connect() as conn:
        row = (await conn.execute(select(p.c.id).where(
            p.c.login == body.name.strip().casefold(), p.c.deleted.is_(False)))).first()
    if row is None:
        raise LobbyError(404, "no_such_account", "no account has this name", name=body.name)
    engine = deps.store(request).engine
    if not body.grant and row[0] == me.id and body.role == "admin":
        raise LobbyError(409, "own_admin", "an admin cannot take their own admin role away")
    changed = (await staff.grant(engine, row[0], body.role, by=me.id) if body.grant
               else await staff.revoke(engine, row[0], body.role))
    if changed:
        async with engine.begin() as conn:
            action: audit.AuditAction = (
                ("grant_admin" if body.grant else "revoke_admin") if body.role == "admin"
                else ("grant_moderator" if body.grant else "revoke_moderator"))
            await audit.write(conn, me.id, action, row[0], body.reason.strip())
    return {"id": row[0], "role": body.role, "held": body.grant, "changed": changed}


@router.get("/me/warnings")
async def my_warnings(request: Request) -> dict[str, Any]:
    """Warnings not yet read; the page shows each once, then marks it read."""
    player = await deps.identity(request).player(request)
    return {"warnings": await sanctions.unseen_warnings(deps.store(request).engine, player.id)}


@router.post("/me/warnings/{sanction_id}/seen")
async def seen(sanction_id: str, request: Request) -> dict[str, Any]:
    player = await deps.identity(request).player(request)
    if not await sanctions.mark_seen(deps.store(request).engine, player.id, sanction_id):
        raise LobbyError(404, "no_such_warning", "no unread warning has this id")
    return {"id": sanction_id, "seen": True}
