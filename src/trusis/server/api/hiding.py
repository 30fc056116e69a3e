"""Hiding a chat line (issue 38, D71): a moderator or an admin hides a line a player wrote
at a table — a public line of the game, a line of its waiting room (D45), or a whisper that
was reported (a report's excerpt holds it) — saying why, and shows it again.

The line is stored as hidden with its audit line (data/hidden.py), and every page open at
the table is told at once, on every process (hub.py `line_hidden`): what a seat reads of the
line from then on is a placeholder, built where every byte to a seat is built (the view
code, tables/masking.py), never here.
"""

from __future__ import annotations

import json
import time
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from trusis.server.api import deps
from trusis.server.api.moderation import staff_member
from trusis.server.api.moderation_replies import (
    HiddenLineAnswer,
)
from trusis.server.data import hidden, staff
from trusis.server.data.hidden import HiddenLine, Place
from trusis.server.data.store import Player
from trusis.server.errors import LobbyError
from trusis.server.players.texts import free_text

router = APIRouter(prefix="/api")


class HideIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, Field(min_length=1, max_length=1000)]


async def _line(request: Request, table_id: str, place: Place, number: int
                ) -> tuple[int, str | None]:
    """The line's seat and writer (the player who sent it, if a person), or 404."""
    store = deps.store(request)
    if await store.table_row(table_id) is None:
        raise LobbyError(404, "no_such_table", f"there is no table {table_id!r}")
    if place == "waiting":
        return await _waiting_line(request, table_id, number)
    said = await hidden.said_at(store.engine, table_id, number)
    if said is None:
        raise _no_line()
    if said["to"] is not None and not await _reported(request, table_id, number):
        raise LobbyError(403, "whisper_not_reported", "a whisper is hidden only from a "
                         "report that holds it: moderators read no other whisper (R50, D35)")
    return said["seat"], said["writer_id"]


async def _reported(request: Request, table_id: str, step: int) -> bool:
    """Whether a report of the table holds the line of `step` in its excerpt."""
    _total, rows = await deps.store(request).reports.of_table(table_id, 500)
    return any(line.get("step") == step for row in rows for line in json.loads(row["chat"]))


async def _waiting_line(request: Request, table_id: str, number: int
                        ) -> tuple[int, str | None]:
    """A waiting-room line (D45) is in memory only: among the room's last lines, or 404."""
    room = deps.hub(request).rooms.get(table_id) or deps.hub(request).finished.get(table_id)
    for line in room.waiting_chat if room is not None else ():
        if line.get("n") == number:
            held = room.lobby.seats.get(line["seat"]) if room is not None else None
            return line["seat"], held.player_id if held is not None else None
    raise _no_line()


async def _may_act(request: Request, me: Player, writer: str | None) -> None:
    """D36 for lines (D71): nobody hides their own line or shows it again, and only an
    admin a moderator's or an admin's — someone not involved, as for sanctions."""
    if writer is None:
        return
    if writer == me.id:
        raise LobbyError(409, "own_line", "you cannot hide your own line, nor show it "
                         "again: another moderator or an admin does")
    engine = deps.store(request).engine
    if await staff.roles_of(engine, writer) and "admin" not in await staff.roles_of(
            engine, me.id):
        raise LobbyError(403, "not_admin", "only an admin can hide a moderator's or an "
                         "admin's line, or show it again", role="admin")


def _no_line() -> LobbyError:
    return LobbyError(404, "no_such_line", "this table has no such chat line")


def _answer(line: HiddenLine, shown: bool) -> HiddenLineAnswer:
    return {"table": line["table_id"], "place": line["place"], "number": line["number"],
            "seat": line["seat"], "hidden": not shown, "reason": line["reason"],
            "at": line["at"]}


@router.post("/moderation/tables/{table_id}/chat/{place}/{number}", status_code=201)
async def hide(table_id: Annotated[str, Path(max_length=16)], place: Place,
               number: Annotated[int, Path(ge=1, le=10**7)], body: HideIn,
               request: Request) -> HiddenLineAnswer:
    """Hide a line: from now on nobody but staff and its writer reads its text (D71)."""
    me = await staff_member(request)
    reason = free_text(body.reason, "reason", required=True)  # D9, D20: as every reason
    seat, writer = await _line(request, table_id, place, number)
    await _may_act(request, me, writer)
    line = HiddenLine(table_id=table_id, place=place, number=number, seat=seat,
                      writer_id=writer, reason=reason, by_id=me.id, at=time.time())
    if not await hidden.hide(deps.store(request).engine, line):
        raise LobbyError(409, "line_hidden", "this line is hidden already")
    await deps.hub(request).line_hidden(line, True)
    return _answer(line, False)


@router.delete("/moderation/tables/{table_id}/chat/{place}/{number}")
async def unhide(table_id: Annotated[str, Path(max_length=16)], place: Place,
                 number: Annotated[int, Path(ge=1, le=10**7)], request: Request,
                 reason: str = Query("", max_length=1000)) -> HiddenLineAnswer:
    """Show a hidden line again, saying why (`?reason=`): everyone reads it as before."""
    me = await staff_member(request)
    why = free_text(reason, "reason", required=True)
    if await deps.store(request).table_row(table_id) is None:
        raise LobbyError(404, "no_such_table", f"there is no table {table_id!r}")
    engine = deps.store(request).engine
    held = next((x for x in await hidden.of_table(engine, table_id)
                 if (x["place"], x["number"]) == (place, number)), None)
    if held is not None:
        await _may_act(request, me, held["writer_id"])
    was = await hidden.unhide(engine, table_id, place, number, me.id, why)
    if was is None:
        raise LobbyError(409, "line_not_hidden", "this line is not hidden")
    await deps.hub(request).line_hidden(was, False)
    return _answer(was, True)
