"""The rematch over HTTP (docs/protocol.md, "Play again"; docs/rules.md D19).

`POST /api/tables/{id}/rematch` proposes the rematch of a finished table; the new
table's `…/rematch/accept` and `…/rematch/decline` answer it; `…/series` lists a
series' games and who won them. A program's seat token of the game before may
accept its own kept seat, and only that: the answer carries a new seat token,
for the new table's seat (the one handed out before, if it asks again, ends).
"""

from __future__ import annotations

from fastapi import APIRouter, Query, Request

from trusis.server.api import deps, replies
from trusis.server.data.store import Player
from trusis.server.errors import LobbyError
from trusis.server.tables.rematch.seats import link_of
from trusis.server.tables.rematch.series import Series, series_of

router = APIRouter(prefix="/api")


async def _caller(request: Request, table_id: str, previous: bool) -> tuple[Player, bool]:
    """Who asks, and whether with a program's seat token. A seat token plays its one
    seat: here it may act for its own table, or (`previous`) accept at that table's
    rematch."""
    owner = await deps.identity(request).owner(request)
    if owner is None:
        raise LobbyError(401, "not_signed_in", "choose a name first (POST /api/guest)")
    if not previous:  # proposing, at the finished table itself
        if owner.table_id is not None and owner.table_id != table_id:
            raise LobbyError(403, "token_elsewhere", "this seat token plays another table")
        return owner.player, owner.table_id is not None
    link = await link_of(deps.store(request), table_id)
    if link is None or link.previous_id is None:  # only a rematch keeps seats to answer
        raise LobbyError(404, "not_a_rematch", "this table is no rematch: there is no kept "
                         "seat to accept or decline here")
    if owner.table_id is not None and link.previous_id != owner.table_id:
        # A seat token answers the rematch of its own table only — never at its own table
        # again, which would mint it a fresh token for ever.
        raise LobbyError(403, "token_elsewhere", "this seat token plays another table")
    return owner.player, owner.table_id is not None


@router.post("/tables/{table_id}/rematch")
async def propose(table_id: str, request: Request,
                  invite: str | None = Query(None, max_length=64)) -> replies.TableAnswer:
    """Propose to play the finished game again (D19): the new table."""
    player, _ = await _caller(request, table_id, previous=False)
    hub = deps.hub(request)
    room = await hub.room(table_id, player.id, invite)
    new_id = await hub.propose_rematch(room, player)
    new = await hub.room(new_id, player.id, room.lobby.invite)
    return {"table": replies.table_info(new, player.id)}


@router.post("/tables/{table_id}/rematch/accept")
async def accept(table_id: str, request: Request,
                 invite: str | None = Query(None, max_length=64)) -> replies.AcceptAnswer:
    """Take the seat this rematch keeps for you; a program also gets its new seat token."""
    player, program = await _caller(request, table_id, previous=True)
    hub = deps.hub(request)
    room = await hub.room(table_id, player.id, invite)
    seat = await hub.answer_rematch(room, player, "accept")
    assert seat is not None
    data: replies.AcceptAnswer = {"seat": seat, "table": replies.table_info(room, player.id)}
    if program:
        data["token"] = await _seat_token(request, player.id, room.id, seat)
    return data


async def _seat_token(request: Request, program: str, table_id: str, seat: int) -> str:
    """The program's new seat token. Asking again (a lost answer) replaces the one handed
    out before — its connections close — so a program holds one token at the new table
    however often it accepts: a loop of accepts stored one more token each."""
    store = deps.store(request)
    for family in await store.accounts.seat_token_families(program, table_id):
        await deps.sessions(request).revoke(program, family=family)
    return await store.new_token(program, "seat", table_id, seat)


@router.post("/tables/{table_id}/rematch/decline")
async def decline(table_id: str, request: Request,
                  invite: str | None = Query(None, max_length=64)) -> replies.TableAnswer:
    """Not this time: the kept seat is free for anyone at once."""
    player, _ = await _caller(request, table_id, previous=True)
    hub = deps.hub(request)
    room = await hub.room(table_id, player.id, invite)
    await hub.answer_rematch(room, player, "decline")
    return {"table": replies.table_info(room, player.id)}


@router.get("/tables/{table_id}/series")
async def series(table_id: str, request: Request,
                 invite: str | None = Query(None, max_length=64)) -> Series:
    """The table's series: each game, its winning team and winners, and the counts."""
    viewer = await deps.viewer(request)
    room = await deps.hub(request).room(table_id, viewer, invite)
    return await series_of(deps.store(request), room.id, viewer)
