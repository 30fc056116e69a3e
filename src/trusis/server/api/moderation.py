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

from trusis.server.api import deps
from trusis.server.api.moderation_replies import (
    AuditAnswer,
    DecisionAnswer,
    LiftAnswer,
    ModerationReport,
    MuteAnswer,
    PlayerRecord,
    PlayersFound,
    ReportsAnswer,
    RoleAnswer,
    SanctionAnswer,
    SeenAnswer,
    StaffAnswer,
    WarningsAnswer,
)
from trusis.server.data import audit, hidden, lookup, mutes, reports, staff
from trusis.server.data import sanctions as sanction_rows
from trusis.server.data.lookup import PlayerFacts
from trusis.server.data.reports import ListedReport
from trusis.server.data.store import Player, Store
from trusis.server.errors import LobbyError
from trusis.server.moderation import sanctions
from trusis.server.players.texts import free_text, looked_up

router = APIRouter(prefix="/api")

ReportState = Literal["open", "acted", "dismissed"]


class DecisionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    state: Literal["acted", "dismissed"]
    reason: Annotated[str, Field(max_length=1000)] = ""


class SanctionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: sanction_rows.SanctionKind
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


def _report(row: ListedReport) -> ModerationReport:
    """One report as the page shows it: names, never a role (R51, D35)."""
    names = row["seat_names"]
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


@router.get("/moderation/reports")
async def all_reports(request: Request, state: ReportState | Literal["all"] = "all",
                      limit: int = Query(100, ge=1, le=500)) -> ReportsAnswer:
    """Every report from every table, newest first, with its state."""
    await staff_member(request)
    engine = deps.store(request).engine
    return {"reports": await _reports(engine, await reports.listed(engine, state, limit))}


async def _reports(engine: Any, rows: list[ListedReport]) -> list[ModerationReport]:
    """Reports as the page shows them, each saying whether it is about staff
    (`about_staff`: only an admin who is not involved decides it, D36)."""
    staffed = {x["player_id"] for x in await staff.staff(engine)}
    shown = [_report(x) for x in rows]
    hides = await hidden.of_tables(engine, sorted({x["table_id"] for x in rows}))
    for report in shown:  # each line a moderator hid says so, and why (D71)
        why = {x["number"]: x["reason"] for x in hides.get(str(report["table"]["id"]), [])
               if x["place"] == "game"}
        for line in report["chat"]:
            if isinstance(line, dict) and line.get("step") in why:
                line["hidden"], line["hidden_reason"] = True, why[line["step"]]
    return [{**x, "about_staff": rows[i]["about_id"] in staffed} for i, x in enumerate(shown)]


@router.post("/moderation/reports/{report_id}")
async def decide(report_id: str, body: DecisionIn, request: Request) -> DecisionAnswer:
    """Mark a report acted on or dismissed (again: the newest decision stands)."""
    me = await staff_member(request)
    reason = free_text(body.reason, "reason")
    engine = deps.store(request).engine
    about = await _reported(deps.store(request), report_id)
    await _may_decide(engine, me, report_id, about)
    await reports.decide(engine, report_id, body.state, me.id, about, reason)
    return {"id": report_id, "state": body.state}


async def _may_decide(engine: Any, me: Player, report_id: str, about: str | None) -> None:
    """D36 for reports: nobody decides a report about themself or one they filed, and only
    an admin one about a moderator or an admin — someone not involved, as for sanctions."""
    filed = (await reports.by_ids(engine, {report_id})).get(report_id)
    reporter = filed["reporter_id"] if filed is not None else None
    if me.id in (about, reporter):
        raise LobbyError(409, "own_report", "you cannot decide a report about you or one "
                         "you filed: another moderator or an admin decides it")
    if about is not None and await staff.roles_of(engine, about) and \
            "admin" not in await staff.roles_of(engine, me.id):
        raise LobbyError(403, "not_admin", "only an admin can decide a report about a "
                         "moderator or an admin", role="admin")


async def _reported(store: Store, report_id: str) -> str | None:
    """The player a report is about (None: a seat nobody held as a player), or 404."""
    found, about = await reports.about(store.engine, report_id)
    if not found:
        raise LobbyError(404, "no_such_report", "there is no such report")
    return about


async def _target(request: Request, player_id: str) -> PlayerFacts:
    found = await lookup.player(deps.store(request).engine, player_id)
    if found is None:
        raise LobbyError(404, "no_such_player", "there is no such player")
    return found


@router.get("/moderation/players")
async def find(request: Request, name: str = Query(..., min_length=1, max_length=64)
               ) -> PlayersFound:
    """Players by exact name (an account's, or guests'), for the page's search box, newest
    first, each with what tells it apart from another of the same name (data/lookup.py)."""
    await staff_member(request)
    return {"players": await lookup.named(deps.store(request).engine, looked_up(name))}


@router.get("/moderation/players/{player_id}")
async def player_record(player_id: str, request: Request) -> PlayerRecord:
    """A player's recent reports (about them), sanctions and staff roles."""
    await staff_member(request)
    target = await _target(request, player_id)
    engine = deps.store(request).engine
    return {"player": target, "roles": sorted(await staff.roles_of(engine, player_id)),
            "reports": await _reports(engine, await reports.about_player(engine, player_id, 20)),
            "sanctions": await sanction_rows.of_player(engine, player_id),
            "muted_until": await mutes.muted_until(engine, player_id),
            "banned": await sanction_rows.active(engine, player_id, "ban") is not None}


@router.post("/moderation/players/{player_id}/sanctions", status_code=201)
async def sanction(player_id: str, body: SanctionIn, request: Request) -> SanctionAnswer:
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
    # given from a report's "Their record" (D54): the report is marked acted on with it
    if body.report is not None and await _reported(deps.store(request), body.report) != player_id:
        raise LobbyError(422, "report_not_about_player", "this report is about "
                         "someone else", field="report")
    sanction_id = await sanction_rows.sanction(engine, player_id, body.kind, reason, me.id,
                                               until, body.report, at)
    if body.kind == "ban":  # every token ends, every connection closes, seats go to bots
        await deps.sessions(request).revoke(player_id, ban=sanctions.BanFacts(
            until=until, reason=reason))
    elif body.kind == "warning":  # to the open pages at once, on every process (D53)
        await deps.hub(request).warned(player_id, sanctions.WarningFacts(
            id=sanction_id, reason=reason, at=at))
    elif until is not None:  # a mute: told at once too, with its end and reason (D53)
        await deps.hub(request).warned(player_id, sanctions.WarningFacts(
            id=sanction_id, reason=reason, at=at, kind="mute", until=until))
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
    """A moderator's reason, cleaned as a name is (D9, D20; texts.py): one of invisible
    characters only (U+200B, U+2060) says nothing, and is refused as an empty one."""
    return free_text(text, "reason", required=True)


@router.delete("/moderation/sanctions/{sanction_id}")
async def lift(sanction_id: str, request: Request,
               reason: str = Query("", max_length=1000)) -> LiftAnswer:
    """End a mute or a ban before its time, saying why (`?reason=`), as a sanction does:
    the audit log's line is `lift_mute` or `lift_ban`, with that reason."""
    me = await staff_member(request)
    why = _reason(reason)
    engine = deps.store(request).engine
    whose = await sanction_rows.whose(engine, sanction_id)
    if whose is not None:  # D36: a lift undoes what only the same hands could give
        await _may_sanction(request, me, whose)
    was = await sanction_rows.lift_with_line(engine, sanction_id, me.id, why)
    if was is None:
        raise LobbyError(404, "no_such_sanction", "no mute or ban in force has this id")
    if was["kind"] == "ban" and await sanction_rows.active(engine, was["player_id"],
                                                          "ban") is None:
        await deps.hub(request).ban_lifted(was["player_id"])  # seats it freed (D72)
    return {"id": sanction_id, "lifted": True, "kind": was["kind"]}


@router.get("/moderation/audit")
async def audit_log(request: Request, limit: int = Query(100, ge=1, le=500),
                    player: str | None = Query(None, max_length=32)) -> AuditAnswer:
    await staff_member(request)
    log = await audit.read(deps.store(request).engine, limit, player)
    missing = {x["report_id"] or "" for x in log if x["target_id"] is None and x["report_id"]}
    if missing:  # decisions written before they named the reported player
        about = await reports.by_ids(deps.store(request).engine, missing)
        for x in log:
            if x["target_id"] is None and (row := about.get(x["report_id"] or "")) is not None:
                x["target_id"], x["target_name"] = row["about_id"], row["about_name"]
    return {"log": log}


@router.get("/staff")
async def staff_list(request: Request) -> StaffAnswer:
    """Your own roles (anyone signed in), and every holder's for staff."""
    player = await deps.identity(request).player(request)
    engine = deps.store(request).engine
    mine = sorted(await staff.roles_of(engine, player.id))
    return {"roles": mine, "staff": await staff.staff(engine) if mine else []}


@router.post("/staff")
async def set_role(body: RoleIn, request: Request) -> RoleAnswer:
    """An admin grants or revokes a role from the page, as `trusis admin grant` does."""
    me = await staff_member(request, "admin")
    reason = free_text(body.reason, "reason")
    engine = deps.store(request).engine
    found = await lookup.account_id(engine, looked_up(body.name).casefold())
    if found is None:
        raise LobbyError(404, "no_such_account", "no account has this name", name=body.name)
    if not body.grant and found == me.id and body.role == "admin":
        raise LobbyError(409, "own_admin", "an admin cannot take their own admin role away")
    changed = await (staff.grant if body.grant else staff.revoke)(
        engine, found, body.role, me.id, reason)  # with its audit line (D37)
    return {"id": found, "role": body.role, "held": body.grant, "changed": changed}


@router.get("/me/warnings")
async def my_warnings(request: Request) -> WarningsAnswer:
    """Warnings not yet read; the page shows each once, then marks it read."""
    player = await deps.identity(request).player(request)
    return {"warnings": await sanction_rows.unseen_warnings(deps.store(request).engine, player.id)}


@router.get("/me/mute")
async def my_mute(request: Request) -> MuteAnswer:
    """The player's own chat mute in force (the longest), with its end and reason: every
    page asks, so that a mute is told on pages with no game socket too (D53, issue 38)."""
    player = await deps.identity(request).player(request)
    found = await sanction_rows.active(deps.store(request).engine, player.id, "mute")
    if found is None:
        return {"mute": None}
    return {"mute": {"id": found["id"], "reason": found["reason"], "at": found["at"],
                     "until": found["until"]}}


@router.post("/me/warnings/{sanction_id}/seen")
async def seen(sanction_id: str, request: Request) -> SeenAnswer:
    player = await deps.identity(request).player(request)
    if not await sanction_rows.mark_seen(deps.store(request).engine, player.id, sanction_id):
        raise LobbyError(404, "no_such_warning", "no unread warning has this id")
    return {"id": sanction_id, "seen": True}
