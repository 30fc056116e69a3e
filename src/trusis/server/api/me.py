"""The signed-in player's own name and games: `PATCH /api/me` (D46, D47; renaming.py) and
`GET /api/me/tables` ("Your games", D48)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import HTTPConnection

from trusis.server.api import deps, replies
from trusis.server.data.reads import reads_of
from trusis.server.errors import LobbyError
from trusis.server.players.names import player_name
from trusis.server.tables.seats.renaming import Renames, rename, tables_of
from trusis.server.tables.yourgames import yours

router = APIRouter(prefix="/api")


class RenameIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(max_length=200, description="1 to 32 characters once cleaned")]


def renames(connection: HTTPConnection) -> Renames:
    """The process's count of renames, made with the server's limit on first use."""
    state = connection.app.state
    found: Renames | None = getattr(state, "renames", None)
    if found is None:
        found = state.renames = Renames(state.settings.limits.renames_per_player_hour)
    return found


@router.patch("/me")
async def change_name(body: RenameIn, request: Request) -> replies.PlayerAnswer:
    """The same player with a new name (D46): their seats, tables and account stay theirs;
    an account signs in by its new name (D47)."""
    player = await deps.identity(request).player(request)
    name = player_name(body.name)  # D9, D20
    hub = deps.hub(request)
    renamed = await rename(hub.store, hub.room, hub.owner.lobby, renames(request), player, name)
    return {"player": {"id": renamed.id, "name": renamed.name, "kind": renamed.kind}}


@router.get("/me/tables")
async def my_tables(request: Request) -> replies.MyTablesAnswer:
    """Your games (D48): every open or running table where you hold a seat — yours, or
    one a bot plays while you are away and that you get back by opening it (D29) — or
    which you host, newest first, as `GET /api/tables/{id}` shows it to you. A private
    table needs no invite to be opened by its host or its seated players, and its invite
    is in it for its host only, as everywhere. Each says, in `yours`, where the game stands
    for you (D64): its phase and deadline, whether your seat still has something to do,
    and the chat lines and private messages that reached it since your last page of it
    closed; `waiting` counts the games where you have something to do."""
    player = await deps.identity(request).player(request)
    hub = deps.hub(request)
    found: list[replies.MyTable] = []
    ids = list(reversed(await tables_of(deps.store(request), player.id)))
    read = await reads_of(deps.store(request).engine, player.id, ids)
    for table_id in ids:
        try:
            room = await hub.room(table_id, player.id)
        except LobbyError:  # closed meanwhile
            continue
        if room.status not in ("open", "running"):
            continue
        info = replies.table_info(room, player.id)
        seated = any((s.get("you") or s.get("yours_away")) and s.get("yours_away") != "left"
                     for s in info["seats"])
        if seated or info["you_host"]:  # a seat left on purpose is not yours to open (D31)
            found.append(replies.MyTable(**info, yours=yours(room, player.id,
                                                             read.get(table_id))))
    return {"tables": found, "waiting": sum(1 for t in found if t["yours"]["to_do"])}
