"""`POST /api/admin/tables/{table}/draw`: an admin ends a stuck game as a draw (D38).

Admins only (the operator's role; staff.py): neither a host nor a player, nor a
moderator, can end a game. The draw is played where the game is owned — this
process, or the one a cluster gave it to (owner.py) — so it reaches
every connected client at once, and the audit log keeps who did it and why.
`trusis admin draw --server` calls this route (cli/draw.py).
"""

from __future__ import annotations

from typing import Annotated, cast

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from trusis.server.api import deps
from trusis.server.api.moderation import staff_member
from trusis.server.api.moderation_replies import (
    DrawAnswer,
)
from trusis.server.errors import LobbyError
from trusis.server.tables.stuck import Ended, no_such_table, not_running, note, refused

router = APIRouter(prefix="/api")


class DrawIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, Field(max_length=1000)] = ""


@router.post("/admin/tables/{table_id}/draw")
async def end_as_draw(request: Request, table_id: str,
                      body: DrawIn | None = None) -> DrawAnswer:
    """End the running game of `table_id` as a draw, for everyone at the table."""
    me = await staff_member(request, "admin")
    store = deps.store(request)
    row = await store.table_row(table_id)
    if row is None:
        raise no_such_table(table_id)
    if row["status"] != "running":
        raise not_running(table_id, str(row["status"]))
    hub = deps.hub(request)
    room = await hub.room(table_id, me.id, row["invite"])  # a private table's too
    await note(store, me.id, table_id, body.reason if body is not None else "")  # D37: first
    try:
        count = await hub.draw(room, me)  # the lobby's way to the game's writer
    except LobbyError as err:  # it ended by itself meanwhile: the line says so (issue 38)
        await refused(store, me.id, table_id, err)
        raise
    await hub.reached(room, count)  # this process's copy has ended too
    return cast(DrawAnswer, Ended(table_id, count).as_json())
