"""Accounts, profiles, ratings, replays, reports and a player's own data, over HTTP.

Everything here reads finished games only, or the caller's own data: a running
game's record, another player's private messages or anyone's reports (but a
table's host reading the reports of their tables) are never served.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, insert, select

from trusis.rules.i18n import LANGUAGES
from trusis.server import deps, schema
from trusis.server.address import client_address
from trusis.server.endcache import ends, version
from trusis.server.errors import LobbyError
from trusis.server.history import leaderboard, profile
from trusis.server.personal import forget_player, player_data
from trusis.server.quota import quota
from trusis.server.room import Room
from trusis.server.store import new_id
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
async def register(body: LoginIn, request: Request, response: Response) -> dict[str, Any]:
    """Register a name and a password; a signed-in guest keeps their games."""
    player = await deps.accounts(request).register(body.name, body.password, request, response)
    return {"player": {"id": player.id, "name": player.name, "kind": player.kind}}


@router.post("/login")
async def login(body: LoginIn, request: Request, response: Response) -> dict[str, Any]:
    player = await deps.accounts(request).login(body.name, body.password, _address(request),
                                            request, response)
    return {"player": {"id": player.id, "name": player.name, "kind": player.kind}}


@router.get("/players/{player_id}")
async def player_profile(player_id: str, request: Request,
                         lang: str = Query("en", max_length=5)) -> dict[str, Any]:
    """A player's finished games, wins by team and by role, statistics (R63), rating."""
    data = await profile(deps.store(request), player_id,
                         lang if lang in LANGUAGES else "en")
    if data is None:
        raise LobbyError(404, "no_such_player", "there is no such player")
    return data


@router.get("/leaderboard")
async def board(request: Request) -> dict[str, Any]:
    return {"players": await leaderboard(deps.store(request))}


@router.get("/tables/{table_id}/replay")
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
    key = ("replay", room.id, version(room), mine, seat, step)
    found = ends(request).hit(key)
    if found is None:  # built once, in a thread (endcache.py)
        # Refuses a running game; a seat's whispers only for their sender and recipient (R50).
        record = await hub.players_record(room, viewer)
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
async def report(table_id: str, body: ReportIn, request: Request) -> dict[str, Any]:
    """R51: report a seat, during or after the game; kept with the chat lines the
    reporter could read around that moment, for the table's host. Each is up to ~11 KB
    kept for good, so a reporter reports a person at a table once, and a player and an
    address a few an hour (quota.py): one guest filed 760 in 5 s."""
    identity = deps.identity(request)
    player = await identity.player(request)
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
        if await _reported(request, room.id, player.id, body.seat, reported):
            raise _already_reported(body.seat)
        quota(request).new_report(player.id, client_address(request))
        mine = room.lobby.seat_of(player.id)
        chat: Sequence[Any] = []
        phase = ""
        if room.host is not None:  # what the reporter saw
            chat = room.host.table.snapshot(mine)["chat"][-CHAT_AROUND:]
            phase = room.host.phase_key()
        report_id = new_id(12)
        async with deps.store(request).engine.begin() as conn:
            await conn.execute(insert(schema.reports).values(
                id=report_id, table_id=room.id, reporter_id=player.id, reporter_seat=mine,
                seat=body.seat, reason=body.reason.strip(), chat=json.dumps(chat),
                phase=phase, at=time.time(), reported_id=reported))
    finally:
        _filing.discard(key)
    return {"id": report_id}


def _already_reported(seat: int) -> LobbyError:
    return LobbyError(409, "already_reported", f"you have reported seat {seat} at this "
                      "table already: the host and the moderators have it", seat=seat)


async def _reported(request: Request, table_id: str, reporter: str, seat: int,
                    reported: str | None) -> bool:
    """Whether `reporter` has reported the person at `seat` of this table already."""
    r = schema.reports
    async with deps.store(request).engine.connect() as conn:
        found = (await conn.execute(select(r.c.id).where(
            r.c.table_id == table_id, r.c.reporter_id == reporter, r.c.seat == seat,
            r.c.reported_id.is_not_distinct_from(reported)).limit(1))).first()
    return found is not None


@router.get("/tables/{table_id}/reports")
async def reports(table_id: str, request: Request,
                  limit: int = Query(REPORTS_LISTED, ge=1, le=500)) -> dict[str, Any]:
    """The newest `limit` reports of a table (oldest first) and how many it has, for its
    host only, with no line the host could not read."""
    player = await deps.identity(request).player(request)
    hub = deps.hub(request)
    room = await hub.room(table_id, player.id)
    if player.id != room.lobby.host_id:
        raise LobbyError(403, "not_host", "only the table's host reads its reports")
    r = schema.reports
    async with deps.store(request).engine.connect() as conn:
        total = (await conn.execute(select(func.count()).select_from(r)
                                    .where(r.c.table_id == room.id))).scalar_one()
        rows = (await conn.execute(select(r).where(r.c.table_id == room.id)
                                   .order_by(r.c.at.desc(), r.c.id.desc()).limit(limit))
                ).mappings().all()
    seat = room.lobby.seat_of(player.id)
    return {"reports": [{**dict(row), "chat": _readable_by(seat, json.loads(row["chat"]))}
                        for row in reversed(rows)], "total": total}


def _readable_by(seat: int | None, chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines of a report's excerpt that `seat` could read itself (R50): the host is a
    player of the game, and a reporter's whispers with a third seat are for moderators
    only (D35)."""
    return [line for line in chat if "to" not in line or seat in (line["from"], line["to"])]


@router.get("/me/data")
async def my_data(request: Request) -> Response:
    """Everything kept about you, as one JSON download."""
    player = await deps.identity(request).player(request)
    data = await player_data(deps.store(request).engine, player.id)
    return Response(json.dumps(data, ensure_ascii=False, indent=1), media_type="application/json",
                    headers={"Content-Disposition": 'attachment; filename="my-trusis-data.json"'})


@router.delete("/me")
async def delete_me(request: Request, response: Response) -> dict[str, Any]:
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
