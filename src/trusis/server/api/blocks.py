"""Blocks between players, and removals from a waiting room (issue 18).

A player who blocks another no longer sees that player's chat — hidden by their page,
which asks which seats of a table it blocks (the game's events are untouched) — and
the blocked player cannot sit at, or claim a seat of, a table they host (D33). A host
who removes a person from the waiting room frees their seat, and that person cannot
sit at that table again (D34), and is told so at once: their pages of the table close
and it does not open for them again until its game starts (D55, barred.py). Both live
in the database, read by the process that owns the table, so they hold on every process.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from trusis.server.api import deps, replies
from trusis.server.data.blocks import Blocked
from trusis.server.errors import LobbyError
from trusis.server.tables.room import Room

router = APIRouter(prefix="/api")

MAX_BLOCKS = 500
"""Blocks one player may hold: beyond it, 409 `too_many_blocks`."""


class BlockIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seat: Annotated[int, Field(ge=1, le=100)]


def _person_at(room: Room, seat: int) -> str:
    held = room.lobby.seats.get(seat)
    if held is None or held.kind != "person" or held.player_id is None:
        raise LobbyError(409, "not_a_person", f"no person holds seat {seat}", seat=seat)
    return held.player_id


@router.post("/tables/{table_id}/seats/{seat}/remove")
async def remove(table_id: str, seat: int, request: Request) -> replies.TableInfo:
    """The host removes a person from the waiting room: the seat is freed and that person
    cannot sit here again (D34); their open pages of the table are told and closed, and
    it no longer opens for them until the start (D55). Only before the start; run by the
    table's writer (seating.py `Seating.remove`)."""
    player = await deps.identity(request).player(request)
    hub = deps.hub(request)
    room = await hub.room(table_id, player.id)
    await hub.remove(room, player, seat)
    return replies.table_info(room, player.id)


@router.post("/tables/{table_id}/blocks", status_code=201)
async def block(table_id: str, body: BlockIn, request: Request) -> replies.BlockAnswer:
    """Block the person at a seat of this table (the page knows seats, not player ids)."""
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id)
    target = _person_at(room, body.seat)
    if target == player.id:
        raise LobbyError(409, "own_block", "you cannot block yourself")
    if await deps.store(request).blocks.block(player.id, target, MAX_BLOCKS) is Blocked.FULL:
        raise LobbyError(409, "too_many_blocks", f"you block {MAX_BLOCKS} players "
                         "already: unblock one first", limit=MAX_BLOCKS)
    return {"blocked": {"id": target, "name": room.lobby.seats[body.seat].name}}


@router.get("/tables/{table_id}/blocked")
async def blocked_here(table_id: str, request: Request,
                       invite: str | None = Query(None, max_length=64)) -> replies.SeatsAnswer:
    """The seats of this table held by people you block: their chat is hidden for you (a
    private table's page asks with its invite, as it reads the table)."""
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id, invite)
    ids = await deps.store(request).blocks.blocked_ids(player.id)
    return {"seats": sorted(n for n, s in room.lobby.seats.items() if s.player_id in ids)}


@router.get("/me/blocks")
async def my_blocks(request: Request) -> replies.BlocksAnswer:
    player = await deps.identity(request).player(request)
    return {"blocks": await deps.store(request).blocks.blocks_of(player.id)}


@router.delete("/me/blocks/{player_id}")
async def unblock(player_id: str, request: Request) -> replies.UnblockAnswer:
    player = await deps.identity(request).player(request)
    if not await deps.store(request).blocks.unblock(player.id, player_id):
        raise LobbyError(404, "not_blocked", "you do not block this player")
    return {"unblocked": player_id}
