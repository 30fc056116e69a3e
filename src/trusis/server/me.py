"""The signed-in player's own name: `PATCH /api/me` (D46, D47; renaming.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import HTTPConnection

from trusis.server import deps
from trusis.server.names import player_name
from trusis.server.renaming import Renames, rename

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
