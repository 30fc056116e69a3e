"""Accounts, profiles, ratings, replays, reports and a player's own data, over HTTP.

Everything here reads finished games only, or the caller's own data: a running
game's record, another player's private messages or anyone's reports (but a
table's host reading the reports of their tables) are never served.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from trusis.rules.i18n import LANGUAGES
from trusis.server.api import deps, documents, replies
from trusis.server.data import hidden
from trusis.server.data.history import Profile, leaderboard, profile
from trusis.server.data.personal import PersonalData, forget_player, player_data
from trusis.server.data.store import new_id
from trusis.server.errors import LobbyError
from trusis.server.limits.address import client_address
from trusis.server.players.texts import free_text
from trusis.server.tables import finished_records
from trusis.server.tables.endcache import ends, version
from trusis.server.tables.quota import quota
from trusis.server.tables.room import Room
from trusis.table.excerpt import chat_excerpt
from trusis.table.hiding import HIDDEN_TEXT, Hide
from trusis.table.record import Record
from trusis.table.replayer import replay_step

router = APIRouter(prefix="/api")

CHAT_AROUND = 20
REPORTS_LISTED = 100
"""A table's newest reports its host reads at once (`limit`, at most 500)."""

_filing: set[tuple[str, str, int]] = set()
"""Reports being stored by this process, (table, reporter, seat): a burst of the same
report sent at once is refused as filed already, not stored several times."""


class LoginIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(max_length=200)]
    password: Annotated[str, Field(max_length=400)]


class ReportIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: Annotated[int, Field(ge=1, le=100)]
    reason: Annotated[str, Field(min_length=1, max_length=1000)]


def _address(request: Request) -> str:
    return client_address(request)


@router.post("/accounts", status_code=201)
async def register(body: LoginIn, request: Request, response: Response) -> replies.PlayerAnswer:
    """Register a name and a password; a signed-in guest keeps their games."""
    player = await deps.accounts(request).register(body.name, body.password, request, response)
    return {"player": {"id": player.id, "name": player.name, "kind": player.kind}}


@router.post("/login")
async def login(body: LoginIn, request: Request, response: Response) -> replies.PlayerAnswer:
    player = await deps.accounts(request).login(body.name, body.password, _address(request),
                                            request, response)
    return {"player": {"id": player.id, "name": player.name, "kind": player.kind}}


@router.get("/players/{player_id}")
async def player_profile(player_id: str, request: Request,
                         lang: str = Query("en", max_length=5)) -> Profile:
    """A player's finished games, wins by team and by role, statistics (R63), rating; a
    private table's game only to those who sat at it (D68)."""
    data = await profile(deps.store(request), player_id,
                         lang if lang in LANGUAGES else "en", await deps.viewer(request))
    if data is None:
        raise LobbyError(404, "no_such_player", "there is no such player")
    return data


@router.get("/leaderboard")
async def board(request: Request) -> replies.LeaderboardAnswer:
    return {"players": await leaderboard(deps.store(request))}


@router.get("/tables/{table_id}/replay", responses=documents.described(
    documents.ReplayStep, "A step of the replay, from its cache (tables/endcache.py)."))
async def replay(table_id: str, request: Request, step: int = Query(0, ge=0, le=10**6),
                 seat: int | None = Query(None, ge=1, le=100),
                 invite: str | None = Query(None, max_length=64)) -> Response:
    """A finished game as `seat` saw it after its `step`-th event, or (no seat) with
    everything revealed, one action per step."""
    hub = deps.hub(request)
    owner = await deps.identity(request).owner(request)
    room = await hub.room(table_id, owner.player.id if owner else None, invite)
    viewer = owner.player.id if owner else None
    mine = tuple(sorted(n for n, s in room.lobby.seats.items()
                        if viewer is not None and s.player_id == viewer))
    if seat is not None and seat > room.lobby.options.seats:
        raise LobbyError(422, "no_such_seat", f"there is no seat {seat}", seat=seat)
    step = _clamped(room, seat, step)  # before keying: each step past the end was a build
    # D71: a hidden line reads as its placeholder
    hides = await finished_records.hidden_lines(hub.store, room)
    masked = tuple(sorted(n for n, h in hides.items() if viewer is None or h.writer != viewer))
    key = ("replay", room.id, version(room), mine, seat, step, masked)
    found = ends(request).hit(key)
    if found is None:  # built once, in a thread (endcache.py)
        # Refuses a running game; a seat's whispers only for their sender and recipient (R50).
        record = await finished_records.players_record(hub.store, room, viewer, hides)
        found = await ends(request).build(key, lambda: replay_step(record, seat, step))
    return found


def _clamped(room: Room, seat: int | None, step: int) -> int:
    """`step`, or the game's last step if past it: the seat's whole stream (seat None: the
    record's actions) in the game as played. A viewer's own record may hold fewer (the
    whispers of others left out, R50); replay_step clamps again to those."""
    if room.host is None:
        return step
    table = room.host.table
    last = len(table.record.actions) if seat is None else table.stream_length(seat)
    return min(step, last)


@router.post("/tables/{table_id}/reports", status_code=201)
async def report(table_id: str, body: ReportIn, request: Request) -> replies.IdAnswer:
    """R51: report a seat, during or after the game; kept with the chat lines the
    reporter could read around that moment, for the table's host. Each is up to ~11 KB
    kept for good, so a reporter reports a person at a table once, and a player and an
    address a few an hour (quota.py): one guest filed 760 in 5 s."""
    identity = deps.identity(request)
    player = await identity.player(request)
    reason = free_text(body.reason, "reason", required=True)  # D9, D20: as names are
    hub = deps.hub(request)
    room = await hub.room(table_id, player.id)
    if body.seat > room.lobby.options.seats:
        raise LobbyError(422, "no_such_seat", f"there is no seat {body.seat}", seat=body.seat)
    held = room.lobby.seats.get(body.seat)  # the person reported, whoever holds the seat later
    reported = held.player_id if held is not None else None
    key = (room.id, player.id, body.seat)
    if key in _filing:  # the same report, sent again before the first is stored
        raise _already_reported(body.seat)
    _filing.add(key)
    try:
        if await deps.store(request).reports.filed(room.id, player.id, body.seat, reported):
            raise _already_reported(body.seat)
        quota(request).new_report(player.id, client_address(request))
        mine = room.lobby.seat_of(player.id)
        chat: Sequence[Any] = []
        phase = ""
        if room.host is not None:  # what the reporter saw
            # Each line with its writer's name then, its time and its replay step (issue 38),
            # replayed in a thread from a copy of the record as it stands.
            kept = room.host.table.record
            copy = Record(kept.players, kept.seed, kept.custom, kept.deal, list(kept.actions),
                          {}, list(kept.times))
            chat = await asyncio.to_thread(chat_excerpt, copy, mine, CHAT_AROUND)
            phase = room.host.phase_key()
        report_id = new_id(12)
        await deps.store(request).reports.file(report_id, room.id, player.id, mine, body.seat,
                                               reason, chat, phase, reported)
    finally:
        _filing.discard(key)
    return {"id": report_id}


def _already_reported(seat: int) -> LobbyError:
    return LobbyError(409, "already_reported", f"you have reported seat {seat} at this "
                      "table already: the host and the moderators have it", seat=seat)


@router.get("/tables/{table_id}/reports")
async def reports(table_id: str, request: Request,
                  limit: int = Query(REPORTS_LISTED, ge=1, le=500)) -> replies.TableReportsAnswer:
    """The newest `limit` reports of a table (oldest first) and how many it has, for its
    host only, with no line the host could not read."""
    player = await deps.identity(request).player(request)
    hub = deps.hub(request)
    room = await hub.room(table_id, player.id)
    if player.id != room.lobby.host_id:
        raise LobbyError(403, "not_host", "only the table's host reads its reports")
    total, rows = await deps.store(request).reports.of_table(room.id, limit)
    seat = room.lobby.seat_of(player.id)
    hides = await finished_records.hidden_lines(hub.store, room)
    return {"reports": [replies.TableReport(
        id=row["id"], table_id=row["table_id"], reporter_id=row["reporter_id"],
        reporter_seat=row["reporter_seat"], seat=row["seat"], reason=row["reason"],
        chat=_masked(_readable_by(seat, json.loads(row["chat"])), hides, player.id),
        phase=row["phase"], at=row["at"],
        reported_id=row["reported_id"]) for row in reversed(rows)], "total": total}


def _readable_by(seat: int | None, chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines of a report's excerpt that `seat` could read itself (R50): the host is a
    player of the game, and a reporter's whispers with a third seat are for moderators
    only (D35)."""
    return [line for line in chat if "to" not in line or seat in (line["from"], line["to"])]


def _masked(chat: list[dict[str, Any]], hides: dict[int, Hide],
            reader: str) -> list[dict[str, Any]]:
    """The excerpt's lines a moderator hid read as the placeholder, but by their writer
    (D71): the host is a player, not staff."""
    out = []
    for line in chat:
        hide = hides.get(line.get("step", 0))
        if hide is not None and hide.writer != reader:
            line = {**line, "text": HIDDEN_TEXT, "hidden": True}
        out.append(line)
    return out


@router.get("/me/data", responses=documents.described(
    PersonalData, "Everything kept about you (data/personal.py), as a download."))
async def my_data(request: Request) -> Response:
    """Everything kept about you, as one JSON download."""
    player = await deps.identity(request).player(request)
    engine = deps.store(request).engine
    data = await player_data(engine, player.id)
    if data is not None and data["reports_filed"]:  # D71: the excerpts' hidden lines
        hides = await hidden.of_tables(engine, sorted({r["table_id"]
                                                       for r in data["reports_filed"]}))
        for row in data["reports_filed"]:
            kept = {x["number"]: Hide(x["reason"], x["writer_id"])
                    for x in hides[row["table_id"]] if x["place"] == "game"}
            if kept:
                row["chat"] = json.dumps(_masked(json.loads(row["chat"]), kept, player.id),
                                         ensure_ascii=False)
    return Response(json.dumps(data, ensure_ascii=False, indent=1), media_type="application/json",
                    headers={"Content-Disposition": 'attachment; filename="my-trusis-data.json"'})


@router.delete("/me")
async def delete_me(request: Request, response: Response) -> replies.DeletedAnswer:
    """Delete your account: your name is replaced in stored games, which stay playable
    as replays for the others; your sessions and tokens end."""
    identity = deps.identity(request)
    player = await identity.player(request)
    await forget_player(deps.store(request).engine, player.id)
    # Its seats show "Deleted player", its connections close and its seats go as a ban's
    # do, on every process (hub.py, D53).
    await deps.sessions(request).revoke(player.id, deleted=True)
    await identity.sign_out(request, response)
    return {"deleted": True}
