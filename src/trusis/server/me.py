"""The signed-in player's own name and games: `PATCH /api/me` (D46, D47; renaming.py) and
`GET /api/me/tables` ("Your games", D48)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import HTTPConnection

from trusis.server import deps
from trusis.server.errors import LobbyError
from trusis.server.names import player_name
from trusis.server.renaming import Renames, rename, tables_of

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
async def change_name(body: RenameIn, request: Request) -> dict[str, Any]:
    """The same player with a new name (D46): their seats, tables and account stay theirs;
    an account signs in by its new name (D47)."""
    player = await deps.identity(request).player(request)
    name = player_name(body.name)  # D9, D20
    renamed = await rename(deps.hub(request), renames(request), player, name)
    return {"player": {"id": renamed.id, "name": renamed.name, "kind": renamed.kind}}


@router.get("/me/tables")
async def my_tables(request: Request) -> dict[str, Any]:
    """Your games (D48): every open or running table where you hold a seat — yours, or
    one a bot plays while you are away and that you get back by opening it (D29) — or
    which you host, newest first, as `GET /api/tables/{id}` shows it to you. A private
    table needs no invite to be opened by its host or its seated players, and its invite
    is in it for its host only, as everywhere."""
    player = await deps.identity(request).player(request)
    hub = deps.hub(request)
    found = []
    for table_id in reversed(await tables_of(deps.store(request), player.id)):
        try:
            room = await hub.room(table_id, player.id)
        except LobbyError:  # closed meanwhile
            continue
        if room.status not in ("open", "running"):
            continue
        info = room.info(player.id)
        seated = any((s.get("you") or s.get("yours_away")) and s.get("yours_away") != "left"
                     for s in info["seats"])
        if seated or info["you_host"]:  # a seat left on purpose is not yours to open (D31)
            found.append(info)
    return {"tables": found}
