"""The server's log lines: human-readable by default, JSON lines on request.

Every line says which request, table and seat it concerns, where that is known:
an ASGI middleware names each HTTP request and WebSocket connection (the proxy's
`X-Request-ID` if it sent a sane one, otherwise a new id, returned in the response)
and reads the table from its path; the WebSocket endpoint adds the seat once the
connection has one. Context variables carry them to every line logged on the way,
including uvicorn's own and the tasks a request starts.

What a line must never hold (docs/deploy.md, "Logs"): a token (tokens travel in
headers and cookies, which nothing logs), an invite code (URLs are logged: the
filter blanks `invite=` and `token=` values in every line, in both formats), a
private message or a role before the end (no log call is given either).
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Awaitable
from contextvars import Context, ContextVar, Token
from typing import Any, Literal

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.json import JsonFormatter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trusis.server.monitoring import logsafe

LogFormat = Literal["text", "json"]

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
table_id: ContextVar[str | None] = ContextVar("table_id", default=None)
seat: ContextVar[int | None] = ContextVar("seat", default=None)

TABLE_IN_PATH = re.compile(r"^/(?:api/tables|ws/tables|t)/([A-Za-z0-9_-]{1,64})(?:/|$)")
GIVEN_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")

TEXT_FORMAT = "%(levelname)s %(name)s: %(message)s"
JSON_FIELDS = ("asctime", "levelname", "name", "message", "request_id", "table", "seat")


class LogContext:
    """Names each request and connection, and reads its table from the path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if scope["type"] == "http":
            return self._http(scope, receive, send)
        if scope["type"] == "websocket":
            # The ASGI server runs each connection in a task of its own, whose context
            # is a copy: what is set here names that connection's lines and ends with
            # it. Nothing to undo, so no frame of this layer stays for the connection's
            # life (httponly.py).
            _name(scope)
        return self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        rid, tokens = _name(scope)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()),
                                                  (b"x-request-id", rid.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_id.reset(tokens[0])
            table_id.reset(tokens[1])
            seat.reset(tokens[2])


def _name(scope: Scope) -> tuple[str, tuple[Token[str | None], Token[str | None],
                                            Token[int | None]]]:
    """Set the request id (the proxy's `X-Request-ID` if sane), the table and no seat."""
    given = dict(scope.get("headers") or ()).get(b"x-request-id", b"").decode("latin-1")
    rid = given if GIVEN_ID.match(given) else secrets.token_hex(8)
    found = TABLE_IN_PATH.match(scope.get("path", ""))
    return rid, (request_id.set(rid), table_id.set(found.group(1) if found else None),
                 seat.set(None))


def game_context(table: str) -> Context:
    """The context of a game's own clock (its timers, absent players, bots): its lines
    name the table, and no request (not the one that happened to start the game)."""
    context = Context()
    context.run(table_id.set, table)
    return context


class ContextFilter(logging.Filter):
    """Adds the request, table and seat to every record, and blanks secrets in URLs."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id.get()
        if not hasattr(record, "table"):
            record.table = table_id.get()
        if not hasattr(record, "seat"):
            record.seat = seat.get()
        logsafe.redact_record(record)  # invite codes and credentials in URLs
        return True


def handler(log_format: LogFormat) -> logging.Handler:
    """The one handler of the process (standard error), in the chosen format."""
    out = logging.StreamHandler()
    if log_format == "json":
        out.setFormatter(JsonFormatter(list(JSON_FIELDS), rename_fields={
            "asctime": "time", "levelname": "level", "name": "logger"},
            reserved_attrs=[*RESERVED_ATTRS, "color_message"],  # uvicorn's, for terminals
            datefmt="%Y-%m-%dT%H:%M:%S%z", json_ensure_ascii=False))
    else:
        out.setFormatter(logging.Formatter(TEXT_FORMAT))
    out.addFilter(ContextFilter())
    return out


def configure(log_format: LogFormat, level: str) -> None:
    """Send every logger — the server's, uvicorn's, the libraries' — through `handler`."""
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler(log_format))
    root.setLevel(level.upper())
    logging.getLogger("alembic").setLevel(logging.WARNING)  # migrations: only if they fail


def uvicorn_config(level: str) -> dict[str, Any]:
    """uvicorn's loggers pass their lines to the root's handler, unformatted by it."""
    return {"version": 1, "disable_existing_loggers": False,
            "loggers": {name: {"handlers": [], "propagate": True, "level": level.upper()}
                        for name in ("uvicorn", "uvicorn.error", "uvicorn.access")}}
