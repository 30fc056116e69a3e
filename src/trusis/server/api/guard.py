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

DNS rebinding (issue 38): a page of another site whose name is made to resolve to this
server's address sends requests with its own name as the Host — and its own Origin, so
the Origin check alone passes it. So every request and WebSocket names a Host this server
answers to (`host_allowed`), else 421 `host_not_allowed` (a WebSocket: 4403): an address
(127.0.0.1, [::1], 192.0.2.7: no name to rebind), `localhost`, the names of `--public-url`
and `--origin`, and those of `--allowed-host` (docs/deploy.md, "Host names").
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trusis.server.errors import LobbyError
from trusis.server.limits.httponly import HttpOnly

HOST = re.compile(r"[A-Za-z0-9.-]+(:\d{1,5})?|\[[0-9A-Fa-f:.]+\](:\d{1,5})?")
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SECURE_SCHEMES = frozenset({"https", "wss"})


ANY_HOST = "*"


def allowed_hosts(names: Iterable[str], urls: Iterable[str]) -> frozenset[str]:
    """The host names a server answers to besides addresses and `localhost`: `names`
    (`--allowed-host`; "*": any, ".example.org": it and every name under it) and the hosts
    of `urls` (`--public-url`, `--origin`)."""
    found = {n.strip().lower().rstrip(".") if n.strip() != "." else "" for n in names}
    found |= {(urlsplit(u).hostname or "").lower() for u in urls}
    return frozenset(n for n in found if n)


def host_allowed(host: str | None, allowed: frozenset[str]) -> bool:
    """Whether a request's Host header names this server (see the module's docstring). A
    request with no Host (HTTP/1.0, a health check) is no browser's: allowed."""
    if host is None or ANY_HOST in allowed:
        return True
    name = host.strip().lower()
    if name.startswith("["):  # [::1]:8000
        name = name[1:name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.split(":", 1)[0]
    name = name.rstrip(".")
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    if name == "localhost" or name.endswith(".localhost") or name in allowed:
        return True
    return any(entry.startswith(".") and (name.endswith(entry) or name == entry[1:])
               for entry in allowed)


def host_refusal(host: str) -> LobbyError:
    return LobbyError(421, "host_not_allowed", "this server does not answer to this name: "
                      "its operator can allow it with --allowed-host (docs/deploy.md)",
                      host=host[:200])


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


class HostGuard(HttpOnly):
    """ASGI middleware: 421 `host_not_allowed` for a request whose Host this server does not
    answer to (DNS rebinding; see the module's docstring). Inside `PageHeaders`, so that the
    refusal carries the page's headers as every answer does."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.hosts = hosts

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = HTTPConnection(scope).headers.get("host")
        if not host_allowed(host, self.hosts):
            await _json(send, host_refusal(host or ""))
            return
        await self.app(scope, receive, send)


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
