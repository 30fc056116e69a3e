"""Requests from other sites: the Origin check, `Secure` cookies, the page's CSP.

A page of another site can make a browser send a request with the player's
cookie. `SameSite=Lax` keeps the cookie off most of them, but not off a request
from a sibling subdomain, nor in every browser; so a state-changing request
(POST, PUT, PATCH, DELETE) whose `Origin` is not this server's own — scheme,
host and port — or one of `--origin`, is refused with 403 `cross_site`, and so
is one a browser marks `Sec-Fetch-Site: cross-site` without an Origin. Programs
send neither header and are not concerned: they sign in with a bearer token,
which no other site can make a browser send.

"This server's own" origin is the scheme and Host the browser used: behind a
trusted proxy uvicorn has already taken the scheme from `X-Forwarded-Proto`.
The same request tells whether cookies must be `Secure`: always with
`--secure-cookies`, and whenever the request came over https.
"""

from __future__ import annotations

import json
import re

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trusis.server.errors import LobbyError
from trusis.server.httponly import HttpOnly

HOST = re.compile(r"[A-Za-z0-9.-]+(:\d{1,5})?|\[[0-9A-Fa-f:.]+\](:\d{1,5})?")
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SECURE_SCHEMES = frozenset({"https", "wss"})


def own_origin(connection: HTTPConnection) -> str:
    """The origin of this server's pages as the browser sees them: `https://host:port`."""
    scheme = "https" if connection.url.scheme in SECURE_SCHEMES else "http"
    return f"{scheme}://{connection.headers.get('host', '')}"


def same_origin(connection: HTTPConnection, extra: tuple[str, ...]) -> bool:
    """Whether the request's Origin (when it has one) is ours or configured."""
    origin = connection.headers.get("origin")
    if origin is None:
        return connection.headers.get("sec-fetch-site", "same-origin") in (
            "same-origin", "none")
    return origin == own_origin(connection) or origin in extra


def csp(connection: HTTPConnection) -> str:
    """The page's Content-Security-Policy: it connects to its own origin only, the
    WebSocket included (`ws:`/`wss:` of the same host, not of any host)."""
    connect = "'self'"
    if HOST.fullmatch(connection.headers.get("host", "")):  # else a Host no browser sends
        connect += " " + own_origin(connection).replace("http", "ws", 1)
    return ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            f"connect-src {connect}; frame-ancestors 'none'; base-uri 'none'; "
            "form-action 'self'")


class Guard(HttpOnly):
    """ASGI middleware: refuses cross-site state changes, marks cookies `Secure`."""

    def __init__(self, app: ASGIApp, origins: tuple[str, ...] = (),
                 secure_cookies: bool = False) -> None:
        self.app = app
        self.origins = origins
        self.secure_cookies = secure_cookies

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        connection = HTTPConnection(scope)
        if scope["method"] in UNSAFE and not same_origin(connection, self.origins):
            refusal = LobbyError(403, "cross_site", "this request comes from another site",
                                 origin=connection.headers.get("origin", "")[:200])
            await _json(send, refusal)
            return
        secure = self.secure_cookies or scope.get("scheme") in SECURE_SCHEMES
        if not secure:
            await self.app(scope, receive, send)
            return

        async def send_secure(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [(k, _secured(v) if k == b"set-cookie" else v)
                                      for k, v in message.get("headers", [])]
            await send(message)

        await self.app(scope, receive, send_secure)


class PageHeaders(HttpOnly):
    """ASGI middleware: the headers every answer carries unless it set its own — the
    CSP, no sniffing, no framing, the referrer policy, and `no-store` under /api/.

    Plain ASGI, not `@app.middleware("http")`: Starlette's BaseHTTPMiddleware runs each
    request through a task group and memory streams, a cost every lobby request paid
    (docs/architecture.md, "Capacity")."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                wanted = [(b"content-security-policy", csp(HTTPConnection(scope)).encode()),
                          *_FIXED]
                if scope["path"].startswith("/api/"):
                    wanted.append((b"cache-control", b"no-store"))
                headers += [(name, value) for name, value in wanted if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


_FIXED = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
          (b"x-frame-options", b"DENY"))


def _secured(cookie: bytes) -> bytes:
    attributes = [a.strip().lower() for a in cookie.split(b";")[1:]]
    return cookie if b"secure" in attributes else cookie + b"; Secure"


async def _json(send: Send, error: LobbyError) -> None:
    body = json.dumps(error.body()).encode()
    await send({"type": "http.response.start", "status": error.status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})
