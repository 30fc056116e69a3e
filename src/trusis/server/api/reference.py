"""What a client reads to understand the game rather than play it: the JSON Schemas of the
protocol and of a seat's view, the catalogues a page renders codes with, and the balance
lab's estimate of each team's chances for a set."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import JSONResponse

from trusis.rules.errors import SetupError
from trusis.rules.i18n import LANGUAGES, catalogue
from trusis.rules.roles import ROLES
from trusis.server.api import documents, replies
from trusis.server.connections.protocol import schema, view_schema
from trusis.server.errors import LobbyError
from trusis.server.limits.address import client_address
from trusis.server.tables.options import TableOptions
from trusis.server.tables.seats.seating import setup_refusal
from trusis.stats.display import _words

router = APIRouter()


@router.get("/api/protocol.schema.json")
async def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of every WebSocket message, generated from the models."""
    return schema()

@router.get("/api/view.schema.json")
async def view_schema_json() -> dict[str, Any]:
    """The JSON Schema of a seat's view and of an event (rules/formats.py)."""
    return view_schema()

@router.get("/api/i18n/{lang}")
async def i18n(lang: str) -> replies.Catalogue:
    """The catalogues a client renders codes with: messages, role names, statistics."""
    if lang not in LANGUAGES:
        raise LobbyError(404, "no_such_language", f"no catalogue for {lang!r}",
                         languages=list(LANGUAGES))
    words = {k: v.get(lang, v["en"]) for k, v in _words().items()}
    return {"lang": lang, "messages": dict(catalogue(lang)),
            "roles": {r: {"name": ROLES[r].name(lang), "team": ROLES[r].team}
                      for r in ROLES},
            "stats": words}

@router.get("/api/balance", responses=documents.described(
    documents.Balance, "The estimate, or `pending` while the lab computes it."))
async def balance(request: Request, players: int = Query(..., ge=1, le=100),
                  set: str = Query('{"standard": true}', max_length=2000)) -> Response:
    """Each team's chances for this set and size, by the balance lab (heuristic bots)."""
    try:
        data = json.loads(set)
        custom = data.get("custom") if isinstance(data, dict) else None
        if custom is not None and not isinstance(custom, dict):
            raise ValueError
    except (ValueError, RecursionError):  # RecursionError: JSON nested too deep
        raise LobbyError(422, "bad_set", "set is JSON: {\"standard\": true} or "
                                         "{\"custom\": {...}}", field="set") from None
    options = TableOptions(seats=players, custom=custom)
    try:
        options.check()
    except SetupError as err:
        raise setup_refusal(err) from None
    except (TypeError, ValueError, RecursionError):
        raise LobbyError(422, "bad_set", "role counts are whole numbers",
                         field="set") from None
    estimate: dict[str, Any] = request.app.state.balance.get(
        players, options.custom, client_address(request))
    return JSONResponse(estimate)
