"""How many HTTP requests one address may make: a budget per address, before anything else.

Each request costs the server about a millisecond of CPU (the framework's layers, a sign-in
looked up), and a listing more. A connection gets its turn beside every other one
(inflow.py, limits/connections.py), but an address with hundreds of connections asking as fast as
it can took the server's CPU for itself (5,000 pipelined requests answered in a second on one
connection). So each address has a bucket of `requests_per_address_10s` requests (2,000: a
class of thirty behind one school's address each loading a page of about fifty files at
once), refilled at as many per 10 s; a request over it is answered 429 `too_many_requests`
with `Retry-After`, before any other layer reads it. The address is the client's, behind a
trusted proxy too (address.py). 127.0.0.1 and ::1 are the machine's own (its operator's
tools, the test suite, the bench), and are not counted. WebSockets are bounded by their own
limits (quota.py).
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from trusis.server.errors import LobbyError
from trusis.server.limits.address import address_key
from trusis.server.limits.httponly import HttpOnly
from trusis.server.limits.settings import PerAddress
from trusis.server.monitoring import metrics

PERIOD_SECONDS = 10.0


OWN = frozenset({"127.0.0.1", "::1"})
"""The machine's own addresses: not counted."""


class RequestBudget(HttpOnly):
    """The outermost layer: counts each HTTP request against its address's bucket."""

    def __init__(self, app: ASGIApp, per_10s: int) -> None:
        self.app = app
        self.buckets = PerAddress(per_10s, PERIOD_SECONDS)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        host = client[0] if client else ""
        wait = 0.0 if host in OWN else self.buckets.take(address_key(host))
        if wait <= 0:
            await self.app(scope, receive, send)
            return
        if (figures := metrics.FIGURES) is not None:
            figures.rate_limited("requests")
        retry = max(1, round(wait))
        refusal = LobbyError(429, "too_many_requests", "too many requests from your address: "
                             f"try again in {retry} s", retry_after=retry)
        answer = JSONResponse(refusal.body(), status_code=refusal.status,
                              headers=refusal.headers)  # as the app answers a LobbyError
        await answer(scope, receive, send)
