"""The ASGI app: its routers, its middleware (outermost last: the request budget, then the
cross-site guard), the error shapes and the page. What it does at start-up and shutdown is
lifecycle.py's."""

from __future__ import annotations

from importlib import resources
from typing import Any, cast

from fastapi import Depends, FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from trusis.server.api import (
    blocks,
    deps,
    hiding,
    lobby,
    me,
    moderation,
    notifications,
    people,
    reference,
    rematch,
    sessions,
    stuck,
    websocket,
)
from trusis.server.api.guard import Guard, HostGuard, PageHeaders, allowed_hosts
from trusis.server.api.outage import OutageGuard, database_error
from trusis.server.api.refusals import bad_request, http_error
from trusis.server.config import Settings, secret_key
from trusis.server.data.heartbeat import DatabaseUnreachable
from trusis.server.data.store import StoreError
from trusis.server.errors import LobbyError
from trusis.server.lifecycle import lifespan_of
from trusis.server.limits.body_size import BodyLimit
from trusis.server.limits.http_budget import RequestBudget
from trusis.server.monitoring import logs, metrics
from trusis.server.monitoring.outage import Outage

DATABASE_ERRORS: tuple[type[Exception], ...] = (OSError, StoreError, DatabaseUnreachable)
"""Where an unreachable database shows itself in a request (SQLAlchemy wraps the driver's
errors; api/outage.py tells which of them say it is unreachable)."""


def web_folder() -> str:
    return str(resources.files("trusis").joinpath("web"))


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    if not settings.secret:
        settings.secret = secret_key()

    app = FastAPI(title="Trusis", version="1", lifespan=lifespan_of(settings),
                  dependencies=[Depends(deps.seat_token_scope)],  # what a seat token may do
                  description="The Trusis game server: lobby over HTTP, play over one "
                              "WebSocket per client (docs/protocol.md).",
                  # A body is JSON only when it says so: a page of another site can send
                  # text/plain without asking, never application/json (guard.py).
                  strict_content_type=True)
    app.state.settings = settings
    app.state.outage = Outage()  # its links are watched from the start-up on (lifespan)
    app.add_middleware(BodyLimit, limit=settings.limits.body_bytes)
    app.add_middleware(OutageGuard, outage=app.state.outage)
    app.include_router(lobby.router)
    app.include_router(reference.router)
    app.include_router(people.router)
    app.include_router(me.router)
    app.include_router(sessions.router)
    app.include_router(rematch.router)
    app.include_router(moderation.router)
    app.include_router(hiding.router)
    app.include_router(stuck.router)
    app.include_router(blocks.router)
    app.include_router(notifications.router)
    # on the app itself (websocket.play says why)
    app.router.add_websocket_route(websocket.PATH, websocket.play)
    app.add_exception_handler(LobbyError, lobby.lobby_error)
    app.add_exception_handler(RequestValidationError, bad_request)
    app.add_exception_handler(StarletteHTTPException, http_error)
    for kind in DATABASE_ERRORS:  # an HTTP request's handler, and a WebSocket's (None)
        app.add_exception_handler(kind, cast(Any, database_error))
    app.add_route("/metrics", metrics.scrape, include_in_schema=False)

    app.state.hosts = allowed_hosts(settings.allowed_hosts, (
        *settings.origins, *((settings.public_url,) if settings.public_url else ())))
    app.add_middleware(HostGuard, hosts=app.state.hosts)  # DNS rebinding: guard.py
    app.add_middleware(PageHeaders)  # the CSP and the rest, unless an answer set its own
    app.add_middleware(metrics.MetricsPortOnly, port=settings.metrics_port)
    app.add_middleware(logs.LogContext)  # every line of a request has its id
    # Outermost: a cross-site request is refused before anything reads it.
    app.add_middleware(Guard, origins=settings.origins, secure_cookies=settings.secure_cookies)
    # Before even that: an address over its budget of requests costs one answer
    # (limits/http_budget.py).
    app.add_middleware(RequestBudget, per_10s=settings.limits.requests_per_address_10s)

    folder = web_folder()
    app.mount("/static", StaticFiles(directory=folder, check_dir=False), name="static")

    async def page() -> FileResponse:
        return FileResponse(f"{folder}/index.html", media_type="text/html")

    # The client routes on the path: every page of it is the same document.
    for path in ("/", "/t/{table_id}", "/t/{table_id}/replay", "/p/{player_id}",
                 "/leaderboard", "/moderation", "/settings/notifications", "/games"):
        # HEAD too: link checkers and uptime monitors ask it, and expect 200 like GET.
        app.api_route(path, methods=["GET", "HEAD"], include_in_schema=False)(page)
    return app
