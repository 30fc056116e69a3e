"""The lobby over HTTP: guests, tables, seats, bots, the start, and finished games.

Every route answers JSON; refusals are `{code, params, message}` with a 4xx
status (errors.LobbyError), and those that come from the rules carry the
engine's own codes (`setup.*`), which the clients render in their language.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from trusis.bots.registry import DEFAULT_BOT
from trusis.rules.errors import SetupError
from trusis.rules.i18n import LANGUAGES
from trusis.server.api import deps, documents, replies
from trusis.server.api.bodies import (
    BotIn,
    ClaimIn,
    GuestIn,
    ProgramIn,
    ReplaceIn,
    SeatIn,
    SetCheckIn,
    TableIn,
)
from trusis.server.errors import LobbyError
from trusis.server.limits.address import client_address
from trusis.server.moderation import sanctions
from trusis.server.monitoring.outage import Outage
from trusis.server.players.names import player_name, table_name
from trusis.server.tables import finished_records
from trusis.server.tables.endcache import ends, version
from trusis.server.tables.hub import bot_kinds
from trusis.server.tables.options import TableOptions
from trusis.server.tables.quota import quota
from trusis.server.tables.room import Room
from trusis.server.tables.seats.seating import setup_refusal
from trusis.server.tables.slowseats import check_slow_seats
from trusis.stats.scoring import score
from trusis.table.record import Record
from trusis.table.summary import summary
from trusis.table.table import Table

router = APIRouter(prefix="/api")


@router.get("/health", responses=documents.HEALTH_RESPONSES)
async def health(request: Request) -> Response:
    """Liveness, and the figures that say whether this process is loaded (docs/deploy.md):
    503 when it cannot do its part (its database or Redis does not answer its heartbeat,
    its leases not renewed)."""
    hub = deps.hub(request)
    outage: Outage = request.app.state.outage
    rooms = list(hub.rooms.values())
    clients = [c for r in rooms for c in r.clients]
    data: dict[str, Any] = {
        "tables": len(rooms),
        "running": sum(1 for r in rooms if r.status == "running"), "clients": len(clients),
        "loop_lag_ms": round(request.app.state.lag.worst_ms(), 1),
        "commit_queue": deps.store(request).queued(),
        "send_queue": sum(len(c.queue) for c in clients),
        "send_queue_bytes": sum(c.queued_bytes for c in clients), **hub.owner.health(),
        "database": outage.state("database")}
    data["ok"] = data["ok"] and outage.down() is None
    return JSONResponse(data, status_code=200 if data["ok"] else 503)


@router.post("/guest")
async def guest(body: GuestIn, request: Request, response: Response) -> replies.GuestAnswer:
    """Sign in as a guest with a name: a cookie for the browser, a token for programs."""
    quota(request).new_guest(client_address(request))
    identity = deps.identity(request)  # no new guest from a banned player's browser
    await sanctions.refuse_banned(identity.store, request,
                                  identity.presented_token(request))
    player, token = await deps.identity(request).new_guest(body.name, response)
    return {"player": {"id": player.id, "name": player.name, "kind": player.kind},
            "token": token}


@router.get("/me")
async def me(request: Request) -> replies.PlayerAnswer:
    player = await deps.identity(request).player(request)
    return {"player": {"id": player.id, "name": player.name, "kind": player.kind}}


@router.get("/session")
async def session(request: Request) -> replies.SessionAnswer:
    """Who you are, or `null` for a visitor who has not chosen a name yet: the page asks it
    on every first visit, where a visitor with no account is no error (unlike `/me`).
    A browser whose session a ban ended is told the ban's end and reason (D53)."""
    identity = deps.identity(request)
    owner = await identity.owner(request)
    if owner is None:
        banned = await identity.banned(request)
        return {"player": None} if banned is None else {"player": None, "banned": banned}
    player = owner.player
    return {"player": {"id": player.id, "name": player.name, "kind": player.kind}}


@router.get("/bots")
async def bots() -> replies.BotsAnswer:
    """The bot kinds this server offers: the built-in ones and `trusis.bots` plug-ins."""
    return {"kinds": bot_kinds(), "default": DEFAULT_BOT}


@router.post("/sets/check")
async def check_set(body: SetCheckIn) -> replies.SetCheckAnswer:
    """Whether a set can be dealt at a table size (R1, R4–R6), and the roles it deals."""
    options = TableOptions(seats=body.seats, custom=body.set.counts())
    try:
        options.check()
    except SetupError as err:
        refusal = setup_refusal(err)
        return {"ok": False, "code": refusal.code, "params": refusal.params,
                "message": refusal.message}
    return {"ok": True, "roles": options.composition()}


@router.get("/tables", responses={200: {"model": replies.TablesAnswer}})
async def tables(request: Request) -> Response:
    """The public tables that are open or running. Every lobby page asks every 5 s, so the
    listing is serialised by orjson at once, not walked again by FastAPI's response model
    (a fifth of its CPU at 200 tables)."""
    viewer = await deps.viewer(request)
    listing = {"tables": [r.info(viewer) for r in await deps.hub(request).public()]}
    return Response(orjson.dumps(listing), media_type="application/json")


@router.post("/tables", status_code=201)
async def create_table(body: TableIn, request: Request) -> replies.TableInfo:
    player = await deps.identity(request).player(request)
    name = table_name(body.name)  # D9, D20
    address = client_address(request)
    with quota(request).opening(player.id, address):
        room = await deps.hub(request).create(player, name, body.options())
        quota(request).table_created(room, address)
    return replies.table_info(room, player.id)


async def _room(request: Request, table_id: str, invite: str | None) -> tuple[Room, str | None]:
    viewer = await deps.viewer(request)
    return await deps.hub(request).room(table_id, viewer, invite), viewer


@router.get("/tables/{table_id}")
async def table(table_id: str, request: Request,
                invite: str | None = Query(None, max_length=64)) -> replies.TableInfo:
    viewer = await deps.viewer(request)  # 403 `removed` while it waits (D55)
    room = await deps.hub(request).open_to(table_id, viewer, invite)
    return replies.table_info(room, viewer)


@router.post("/tables/{table_id}/seats")
async def sit(table_id: str, body: SeatIn, request: Request,
              invite: str | None = Query(None, max_length=64)) -> replies.SeatAnswer:
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id, invite)
    await _slow_seats(request, room, player.id)
    seat = await deps.hub(request).sit(room, player, body.seat)
    return {"seat": seat, "table": replies.table_info(room, player.id)}


async def _slow_seats(request: Request, room: Room, player_id: str) -> None:
    """D62: a seat at a slow table counts against `slow_games_per_player`."""
    limit = request.app.state.settings.limits.slow_games_per_player
    await check_slow_seats(deps.hub(request), room, player_id, limit)


@router.delete("/tables/{table_id}/seats/mine")
async def stand(table_id: str, request: Request) -> replies.TableInfo:
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id)
    await deps.hub(request).stand(room, player)
    return replies.table_info(room, player.id)


@router.post("/tables/{table_id}/bots")
async def add_bot(table_id: str, body: BotIn, request: Request) -> replies.SeatAnswer:
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id)
    seat = await deps.hub(request).add_bot(room, player, body.kind, body.seat)
    return {"seat": seat, "table": replies.table_info(room, player.id)}


@router.delete("/tables/{table_id}/seats/{seat}")
async def free_seat(table_id: str, seat: int, request: Request) -> replies.TableInfo:
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id)
    await deps.hub(request).free(room, player, seat)
    return replies.table_info(room, player.id)


@router.post("/tables/{table_id}/seats/{seat}/program")
async def program_seat(table_id: str, seat: int, body: ProgramIn,
                       request: Request) -> replies.ProgramSeatAnswer:
    """The host hands a seat to a program: the token it plays that seat with."""
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id)
    name = player_name(body.name)  # D9, D20
    number, token = await deps.hub(request).program_seat(room, player, seat, name)
    return {"seat": number, "token": token, "table": replies.table_info(room, player.id)}


@router.post("/tables/{table_id}/seats/{seat}/replace")
async def replace(table_id: str, seat: int, body: ReplaceIn,
                  request: Request) -> replies.ReplaceAnswer:
    """R53: the host hands a departed seat (left, or its grace period over: R52, D18) to a
    bot (`by: bot`), or to a new person (`by: person`): the answer's `claim` link seats
    whoever opens it, once. The code rides in the link's fragment, which no browser
    sends, so no access log ever holds it."""
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id)
    code = await deps.hub(request).replace(room, player, seat, body.by, body.kind)
    data: replies.ReplaceAnswer = {"table": replies.table_info(room, player.id)}
    if code is not None:
        data["claim"] = code
        data["link"] = f"/t/{room.id}" + (
            f"?invite={room.lobby.invite}" if room.lobby.options.private else "") + f"#claim={code}"
    return data


@router.post("/tables/{table_id}/claim")
async def claim(table_id: str, body: ClaimIn, request: Request,
                invite: str | None = Query(None, max_length=64)) -> replies.SeatAnswer:
    """Take the departed seat that the host's claim link names (R53)."""
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id, invite)
    await _slow_seats(request, room, player.id)
    seat = await deps.hub(request).claim(room, player, body.code)
    return {"seat": seat, "table": replies.table_info(room, player.id)}


@router.post("/tables/{table_id}/start")
async def start(table_id: str, request: Request) -> replies.TableInfo:
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id)
    address = client_address(request)
    with quota(request).starting(player.id, address):
        await deps.hub(request).start(room, player)
        quota(request).table_started(room, address)
    return replies.table_info(room, player.id)


@router.post("/tables/{table_id}/close")
async def close_table(table_id: str, request: Request) -> replies.TableInfo:
    """D51: the host calls off a table that has not started. Everyone connected is told
    and sent back to the lobby; the table leaves every list, its seats are free, and its
    address answers 410 `table_closed` from now on. The answer is the table, `closed`."""
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id)
    await deps.hub(request).close_table(room, player)
    return replies.table_info(room, player.id)


@router.get("/tables/{table_id}/record", responses=documents.described(
    documents.RecordDocument, "The game record (docs/record.md), as a download."))
async def record(table_id: str, request: Request,
                 invite: str | None = Query(None, max_length=64)) -> Response:
    """The finished game's record (docs/record.md), as a download.

    The whole game, but a private message only for its sender and its recipient
    (R50: nothing about it reaches anyone else, not even that it was sent; D16).
    """
    room, viewer = await _room(request, table_id, invite)
    data = (await finished_records.players_record(deps.store(request), room, viewer)).to_dict()
    return JSONResponse(data, headers={
        "Content-Disposition": f'attachment; filename="trusis-{room.id}.json"'})


@router.get("/tables/{table_id}/summary", responses=documents.described(
    documents.EndScreen, "The end screen, from its cache (tables/endcache.py)."))
async def end_screen(table_id: str, request: Request,
                     invite: str | None = Query(None, max_length=64),
                     lang: str = Query("en", max_length=5)) -> Response:
    """The end screen: roles, vote grid, night timeline and statistics (R62 order, "-")."""
    room, _viewer_id = await _room(request, table_id, invite)
    lang = lang if lang in LANGUAGES else "en"
    key = ("summary", room.id, version(room), lang)
    found = ends(request).hit(key)
    if found is None:  # built once, in a thread (endcache.py)
        record_ = await finished_records.record(deps.store(request), room)
        found = await ends(request).build(key, lambda: _end_screen(record_, lang))
    return found


def _end_screen(record_: Record, lang: str) -> dict[str, Any]:
    table_ = Table.from_record(record_)
    stats = score(record_)
    data = summary(table_)
    players = sorted(stats.players)
    columns = [{"name": r.name, "label": r.label}
               for r in stats.players[players[0]].rows(lang, limited=False)] if players else []
    data["stats"] = {
        "table": [{"name": r.name, "label": r.label, "value": r.text}
                  for r in stats.table.rows(lang, limited=False)],
        "players": {"columns": columns, "rows": [
            {"seat": s, "values": [r.text for r in stats.players[s].rows(lang, limited=False)]}
            for s in players]},
    }
    return data


def lobby_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LobbyError)
    return JSONResponse(exc.body(), status_code=exc.status, headers=exc.headers or None)
