"""The ASGI app: start-up (migrations, restoring games), routes, the page and its headers."""

from __future__ import annotations

import gc
import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any

from fastapi import Depends, FastAPI, Query, Request, Response
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from trusis.rules.errors import SetupError
from trusis.rules.i18n import LANGUAGES, catalogue
from trusis.rules.roles import ROLES
from trusis.server import (
    blocks,
    chatcap,
    clients,
    deps,
    lobby,
    logs,
    me,
    metrics,
    metrics_live,
    moderation,
    passwords,
    people,
    rematch_api,
    sessions,
    stuck_api,
    ws,
)
from trusis.server.accounts import Accounts
from trusis.server.address import client_address
from trusis.server.balance import Balance
from trusis.server.bodylimit import BodyLimit
from trusis.server.budget import RequestBudget
from trusis.server.cluster.owner import ClusterOwner
from trusis.server.config import Settings, private_sqlite, secret_key
from trusis.server.deletions import DeletedCheck
from trusis.server.endcache import EndCache
from trusis.server.errors import LobbyError
from trusis.server.guard import Guard, PageHeaders
from trusis.server.hub import Hub
from trusis.server.identity import Identity
from trusis.server.lag import LoopLag
from trusis.server.options import TableOptions
from trusis.server.protocol import schema, view_schema
from trusis.server.quota import Quota
from trusis.server.revocation import Sessions
from trusis.server.seating import setup_refusal
from trusis.server.store import Store
from trusis.stats.display import _words

log = logging.getLogger("trusis.server")

def web_folder() -> str:
    return str(resources.files("trusis").joinpath("web"))


def bad_request(_request: Request, exc: Exception) -> JSONResponse:
    """A request body or query that does not fit its model, in the shape of every other
    refusal of the API (docs/protocol.md): `bad_request`, the field, and its limits."""
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    first: dict[str, Any] = dict(errors[0]) if errors else {}
    field = ".".join(str(p) for p in first.get("loc", ()) if p not in ("body", "query"))
    params: dict[str, Any] = {"field": field}
    for key, value in (first.get("ctx") or {}).items():
        if isinstance(value, (int, float, str)) and not isinstance(value, bool):
            params[key] = value
    message = f"{field or 'the request'}: {first.get('msg', 'is not valid')}"
    return JSONResponse({"code": "bad_request", "params": params, "message": message},
                        status_code=422)


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (an unknown route, a wrong method) in the API's shape."""
    assert isinstance(exc, StarletteHTTPException)
    if not request.url.path.startswith("/api/"):
        return await http_exception_handler(request, exc)
    if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
        # FastAPI's answer to JSON it could not read but for a syntax error: nested too
        # deep for the parser (RecursionError). A body that does not fit, as any other.
        return JSONResponse({"code": "bad_request", "params": {"field": "body"},
                             "message": "body: JSON nested too deeply to be read"},
                            status_code=422)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return JSONResponse({"code": code, "params": {"path": request.url.path},
                         "message": str(exc.detail)}, status_code=exc.status_code,
                        headers=getattr(exc, "headers", None))


GC_THRESHOLDS = (700, 2, 5000)
"""The collector's thresholds while serving (Python's are 700, 10, 10). A collection walks
every object of the generations it collects with the event loop stopped, and on a heap of
hundreds of tables each object costs a cache miss or two: at 500 paced tables a young pass
(a few thousand objects) took 2–10 ms and a middle one, the survivors of ten young passes,
25–68 ms, the loop's longest stalls. A middle pass after every 2 young ones walks a fifth of
that (p99 27 ms against 54); the objects walked are the same, sooner. A full pass walks every
live game (0.3–0.7 s) and finds almost nothing (the server makes few cycles): it is
considered after 5,000 middle passes (10,000 young ones, as 10 x 1,000 before) instead of 10
(docs/architecture.md, "The collector")."""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    if not settings.secret:
        settings.secret = secret_key()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # With several processes, a transaction left open past a lease would keep its
        # game from being taken over; alone, a generous bound for a very busy process.
        private_sqlite(settings.database_url)
        store = Store(settings.database_url,
                      max(2.0, settings.lease_seconds) if settings.redis_url else 60.0)
        await store.migrate()
        hub = Hub(store, settings.bot_pace, settings.limits)
        if settings.redis_url:
            hub.owner = ClusterOwner(hub, settings.node, settings.redis_url,
                                     settings.lease_seconds)
        app.state.lag = LoopLag()
        app.state.lag.start()
        app.state.store = store
        app.state.hub = hub
        app.state.identity = Identity(store, settings.secret, settings.secure_cookies,
                                      settings.token_days)
        app.state.accounts = Accounts(store, app.state.identity)
        app.state.sessions = Sessions(store, hub)
        app.state.balance = Balance(settings.balance_games, settings.limits)
        app.state.quota = Quota(settings.limits, hub)
        chatcap.LIMITS = clients.LIMITS = settings.limits
        passwords.share(settings.limits.password_jobs_per_address)
        app.state.ends = EndCache(settings.limits.summaries_cached)
        if settings.metrics_port is not None or settings.metrics_token:
            app.state.figures = metrics_live.start(hub, store, app.state.lag)
        began = time.perf_counter()
        await hub.restore()
        restored = time.perf_counter() - began
        app.state.quota.start()
        app.state.deletions = DeletedCheck(store, hub)  # `trusis admin delete` (D53)
        app.state.deletions.start()
        # What start-up built lives as long as the process: keep it out of the collector's
        # full passes, whose pauses set the p99 of acknowledgements under load (bench/load.py);
        # and make those passes rare (GC_THRESHOLDS).
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        log.info("trusis serve: %d tables restored in %.2f s", len(hub.rooms), restored)
        if settings.ready_message and settings.log_json:
            log.info("%s", settings.ready_message)
        elif settings.ready_message:
            print(settings.ready_message, flush=True)
        try:
            yield
        finally:
            metrics.stop()
            await app.state.lag.stop()
            await app.state.quota.stop()
            await app.state.deletions.stop()
            await hub.close()
            app.state.balance.close()
            await store.close()

    app = FastAPI(title="Trusis", version="1", lifespan=lifespan,
                  dependencies=[Depends(deps.seat_token_scope)],  # what a seat token may do
                  description="The Trusis game server: lobby over HTTP, play over one "
                              "WebSocket per client (docs/protocol.md).",
                  # A body is JSON only when it says so: a page of another site can send
                  # text/plain without asking, never application/json (guard.py).
                  strict_content_type=True)
    app.state.settings = settings
    app.add_middleware(BodyLimit, limit=settings.limits.body_bytes)
    app.include_router(lobby.router)
    app.include_router(people.router)
    app.include_router(me.router)
    app.include_router(sessions.router)
    app.include_router(rematch_api.router)
    app.include_router(moderation.router)
    app.include_router(stuck_api.router)
    app.include_router(blocks.router)
    app.router.add_websocket_route(ws.PATH, ws.play)  # on the app itself (ws.play says why)
    app.add_exception_handler(LobbyError, lobby.lobby_error)
    app.add_exception_handler(RequestValidationError, bad_request)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_route("/metrics", metrics.scrape, include_in_schema=False)

    app.add_middleware(PageHeaders)  # the CSP and the rest, unless an answer set its own
    app.add_middleware(metrics.MetricsPortOnly, port=settings.metrics_port)
    app.add_middleware(logs.LogContext)  # every line of a request has its id
    # Outermost: a cross-site request is refused before anything reads it.
    app.add_middleware(Guard, origins=settings.origins, secure_cookies=settings.secure_cookies)
    # Before even that: an address over its budget of requests costs one answer (budget.py).
    app.add_middleware(RequestBudget, per_10s=settings.limits.requests_per_address_10s)

    @app.get("/api/protocol.schema.json")
    async def protocol_schema() -> dict[str, Any]:
        """The JSON Schema of every WebSocket message, generated from the models."""
        return schema()

    @app.get("/api/view.schema.json")
    async def view_schema_json() -> dict[str, Any]:
        """The JSON Schema of a seat's view and of an event (rules/formats.py)."""
        return view_schema()

    @app.get("/api/i18n/{lang}")
    async def i18n(lang: str) -> dict[str, Any]:
        """The catalogues a client renders codes with: messages, role names, statistics."""
        if lang not in LANGUAGES:
            raise LobbyError(404, "no_such_language", f"no catalogue for {lang!r}",
                             languages=list(LANGUAGES))
        words = {k: v.get(lang, v["en"]) for k, v in _words().items()}
        return {"lang": lang, "messages": dict(catalogue(lang)),
                "roles": {r: {"name": ROLES[r].name(lang), "team": ROLES[r].team}
                          for r in ROLES},
                "stats": words}

    @app.get("/api/balance")
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

    folder = web_folder()
    app.mount("/static", StaticFiles(directory=folder, check_dir=False), name="static")

    async def page() -> FileResponse:
        return FileResponse(f"{folder}/index.html", media_type="text/html")

    # The client routes on the path: every page of it is the same document.
    for path in ("/", "/t/{table_id}", "/t/{table_id}/replay", "/p/{player_id}",
                 "/leaderboard", "/moderation"):
        # HEAD too: link checkers and uptime monitors ask it, and expect 200 like GET.
        app.api_route(path, methods=["GET", "HEAD"], include_in_schema=False)(page)
    return app
