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

import time
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from trusis.server import deps, schema
from trusis.server.errors import LobbyError
from trusis.server.room import Room

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
async def remove(table_id: str, seat: int, request: Request) -> dict[str, Any]:
    """The host removes a person from the waiting room: the seat is freed and that person
    cannot sit here again (D34); their open pages of the table are told and closed, and
    it no longer opens for them until the start (D55). Only before the start; run by the
    table's writer (seating.py `_remove`)."""
    player = await deps.identity(request).player(request)
    hub = deps.hub(request)
    room = await hub.room(table_id, player.id)
    await hub.remove(room, player, seat)
    return room.info(player.id)


@router.post("/tables/{table_id}/blocks", status_code=201)
async def block(table_id: str, body: BlockIn, request: Request) -> dict[str, Any]:
    """Block the person at a seat of this table (the page knows seats, not player ids)."""
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id)
    target = _person_at(room, body.seat)
    if target == player.id:
        raise LobbyError(409, "own_block", "you cannot block yourself")
    b = schema.blocks
    async with deps.store(request).engine.begin() as conn:
        held = (await conn.execute(select(b.c.blocked_id).where(b.c.player_id == player.id)
                                   )).scalars().all()
        if target not in held:
            if len(held) >= MAX_BLOCKS:
                raise LobbyError(409, "too_many_blocks", f"you block {MAX_BLOCKS} players "
                                 "already: unblock one first", limit=MAX_BLOCKS)
            await conn.execute(insert(b).values(player_id=player.id, blocked_id=target,
                                                at=time.time()))
    return {"blocked": {"id": target, "name": room.lobby.seats[body.seat].name}}


@router.get("/tables/{table_id}/blocked")
async def blocked_here(table_id: str, request: Request,
                       invite: str | None = Query(None, max_length=64)) -> dict[str, Any]:
    """The seats of this table held by people you block: their chat is hidden for you (a
    private table's page asks with its invite, as it reads the table)."""
    player = await deps.identity(request).player(request)
    room = await deps.hub(request).room(table_id, player.id, invite)
    ids = await blocked_ids(deps.store(request).engine, player.id)
    return {"seats": sorted(n for n, s in room.lobby.seats.items() if s.player_id in ids)}


async def blocked_ids(engine: AsyncEngine, player_id: str) -> set[str]:
    b = schema.blocks
    async with engine.connect() as conn:
        rows = await conn.execute(select(b.c.blocked_id).where(b.c.player_id == player_id))
        return {str(r[0]) for r in rows}


@router.get("/me/blocks")
async def my_blocks(request: Request) -> dict[str, Any]:
    player = await deps.identity(request).player(request)
    b, p = schema.blocks, schema.players
    async with deps.store(request).engine.connect() as conn:
        rows = await conn.execute(select(b.c.blocked_id.label("id"), p.c.name, b.c.at)
                                  .join(p, p.c.id == b.c.blocked_id)
                                  .where(b.c.player_id == player.id).order_by(b.c.at.desc()))
        return {"blocks": [dict(r) for r in rows.mappings()]}


@router.delete("/me/blocks/{player_id}")
async def unblock(player_id: str, request: Request) -> dict[str, Any]:
    player = await deps.identity(request).player(request)
    b = schema.blocks
    async with deps.store(request).engine.begin() as conn:
        done = await conn.execute(b.delete().where(b.c.player_id == player.id,
                                                   b.c.blocked_id == player_id))
    if not done.rowcount:
        raise LobbyError(404, "not_blocked", "you do not block this player")
    return {"unblocked": player_id}
