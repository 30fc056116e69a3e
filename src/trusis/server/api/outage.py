"""503 with a sentence, never 500 with a traceback, while the database (or Redis) is away.

Two ways a request meets an unreachable link (issue 41):

- the process knows (its heartbeats: monitoring/outage.py): `OutageGuard` answers every
  request that needs the link at once — 503 `unavailable` with a sentence and
  `Retry-After` — and refuses a new WebSocket the same way before its upgrade, so that a
  proxy tries another process (deploy/nginx.conf: `proxy_next_upstream … http_503`);
  the health check, the page and the files that need no database still answer;
- it does not know yet (the first seconds of a cut, or a refused connection):
  `database_error` answers the error a query raised the same way, when the error says
  the link is down (`unreachable`); any other error stays a 500, as a bug should.
"""

from __future__ import annotations

import logging

from fastapi import Request, WebSocket
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketState

from trusis.server.data.heartbeat import unreachable
from trusis.server.errors import LobbyError
from trusis.server.monitoring.outage import RECONNECT_CODE, SAID, Link, Outage

log = logging.getLogger("trusis.server")

RETRY_SECONDS = 2
"""What `Retry-After` says: a cut process notices the link back within a beat or two."""
ANSWERED_ANYWAY = ("/api/health", "/api/protocol.schema.json", "/api/view.schema.json",
                   "/api/i18n/", "/api/bots")
"""What needs neither the database nor Redis: answered as ever."""


def unavailable(link: Link) -> LobbyError:
    return LobbyError(503, "unavailable", SAID[link], retry_after=RETRY_SECONDS)


def _answer(error: LobbyError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers)


def needs_links(scope: Scope) -> bool:
    path: str = scope.get("path", "")
    if scope["type"] == "websocket":
        return True
    return path.startswith("/api/") and not path.startswith(ANSWERED_ANYWAY)


class OutageGuard:
    """Refuse at once, with 503 and a sentence, what this process cannot serve now."""

    def __init__(self, app: ASGIApp, outage: Outage) -> None:
        self.app = app
        self.outage = outage

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and needs_links(scope) and (
                link := self.outage.down()) is not None:
            if scope["type"] == "http":
                await _answer(unavailable(link))(scope, receive, send)
            else:
                await refuse_socket(WebSocket(scope, receive, send), unavailable(link))
            return
        await self.app(scope, receive, send)


async def refuse_socket(websocket: WebSocket, error: LobbyError) -> None:
    """A WebSocket this process cannot serve now: before its upgrade, an HTTP 503 (a proxy
    may try another process); once open, closed with RECONNECT_CODE."""
    if websocket.application_state == WebSocketState.CONNECTING:
        if "websocket.http.response" in websocket.scope.get("extensions", {}):
            await websocket.send_denial_response(_answer(error))
            return
        await websocket.accept()
    if websocket.application_state == WebSocketState.CONNECTED:
        await websocket.close(RECONNECT_CODE, error.code)


async def database_error(request: Request, exc: Exception) -> Response | None:
    """A query that found the database unreachable: 503 with a sentence, and one line in
    the log rather than a traceback. Any other error is raised again (a 500). Starlette
    hands a WebSocket's error here too, as `request`: it is refused or closed here, and
    nothing is returned (Starlette would send a returned answer as well)."""
    if not unreachable(exc):
        raise exc
    log.warning("database unreachable (%s): answered 503", type(exc).__name__)
    error = unavailable("database")
    connection: object = request
    if isinstance(connection, WebSocket):
        await refuse_socket(connection, error)
        return None
    return _answer(error)
