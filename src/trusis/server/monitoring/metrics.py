"""The process's figures in the Prometheus text format (docs/deploy.md, "Metrics").

Off unless the operator asks (`--metrics-port` or `--metrics-token`): the figures say
how many people play here and how busy the server is, which is nobody else's business.

Two kinds of figure. What the process already knows at any moment (tables, connections,
queues, the loop's lag, leases) is read when Prometheus scrapes (`Live`), so the game's
code pays nothing for it (metrics_live.py: it reads the hub, so it stays out of this
module, which the game's own modules import). What happens (actions stored,
acknowledgements, frames sent, commits, rate-limit refusals) is counted where it happens,
through `FIGURES`: None while metrics are off, so that each of those places costs one
test of a global then.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable
from typing import Literal

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
)
from prometheus_client.exposition import generate_latest
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

RateLimit = Literal["command", "chat", "login", "connections", "requests"]

disable_created_metrics()  # type: ignore[no-untyped-call]  # `_created` series: noise here

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""From a millisecond (a quiet server on loopback) to the seconds of an overloaded one."""


class Figures:
    """The counters and histograms of one process, in a registry of its own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        # CPU seconds, resident memory, open file descriptors, the start time: what every
        # exporter serves (issue 38), read from /proc at each scrape (nothing elsewhere).
        ProcessCollector(registry=r)
        self.actions = Counter("trusis_actions", "Actions stored in game records (people's, "
                               "programs', bots' and the timer's).", registry=r)
        self.finished = Counter("trusis_tables_finished", "Games that ended here.",
                                registry=r)
        self.ack = Histogram("trusis_ack_seconds", "From a command's arrival at its game's "
                             "owner to its answer (ack or refused): applied, stored, "
                             "delivered.", ["answer"], buckets=LATENCY_BUCKETS, registry=r)
        self.broadcast = Histogram("trusis_broadcast_seconds", "How long a message waited in "
                                   "a client's send queue before its frame was written.",
                                   buckets=LATENCY_BUCKETS, registry=r)
        self.commit = Histogram("trusis_commit_seconds", "One group commit of actions.",
                                buckets=LATENCY_BUCKETS, registry=r)
        self.store_wait = Histogram("trusis_store_wait_seconds", "From an action's hand-off "
                                    "to the group commits until it is stored: the wait for "
                                    "the commit in progress, its own, and the way back.",
                                    buckets=LATENCY_BUCKETS, registry=r)
        self.loop_lag = Histogram("trusis_loop_lag_seconds", "How much later than asked the "
                                  "event loop woke a task (sampled 4 times a second).",
                                  buckets=LATENCY_BUCKETS, registry=r)
        self.refused = Counter("trusis_rate_limited", "Requests refused by a rate limit.",
                               ["limit"], registry=r)
        self.notifications = Counter("trusis_notifications", "Notifications by channel "
                                     "(email, push) and what became of a try: sent, retried "
                                     "(to be tried again), failed (given up), dropped.",
                                     ["channel", "result"], registry=r)
        self.bus_newer = Counter("trusis_bus_newer", "Messages on the cluster's bus from a "
                                 "process of a newer version: understood without the fields "
                                 "this one does not know (fields), or of a kind it does not "
                                 "know, skipped (kind). During a rolling upgrade only.",
                                 ["what"], registry=r)
        for what in ("fields", "kind"):
            self.bus_newer.labels(what)
        self.bot_decisions = Counter("trusis_bot_decisions", "Expert bots' decisions: "
                                     "thought ahead off the event loop, or degraded to "
                                     "normal because every thinking thread was busy.",
                                     ["how"], registry=r)
        for how in ("ahead", "degraded"):
            self.bot_decisions.labels(how)
        for limit in ("command", "chat", "login", "connections", "requests"):
            self.refused.labels(limit)  # present at 0 from the start
        for answer in ("ack", "refused"):
            self.ack.labels(answer)

    def rate_limited(self, limit: RateLimit) -> None:
        self.refused.labels(limit).inc()

    def text(self) -> bytes:
        return generate_latest(self.registry)


FIGURES: Figures | None = None
"""The running server's figures, or None while metrics are off (the places that count
test it). One server per process; tests that build several apps in one process see the
last one's."""


def stop() -> None:
    global FIGURES
    FIGURES = None


def metrics_port_of(scope: Scope) -> int | None:
    server = scope.get("server")
    return int(server[1]) if server and server[1] is not None else None


async def scrape(request: Request) -> Response:
    """`GET /metrics`: on the metrics port, or with the metrics token; otherwise 404
    (metrics off, or asked on the public port without a token) or 401 (a wrong token)."""
    settings = request.app.state.settings
    figures: Figures | None = getattr(request.app.state, "figures", None)
    on_port = settings.metrics_port is not None and \
        metrics_port_of(request.scope) == settings.metrics_port
    if figures is None or not (on_port or settings.metrics_token):
        return PlainTextResponse("not found\n", status_code=404)
    if not on_port:
        given = request.headers.get("authorization", "")
        if not secrets.compare_digest(given.encode(),
                                      f"Bearer {settings.metrics_token}".encode()):
            return PlainTextResponse("the metrics need their token: Authorization: Bearer "
                                     "<token>\n", status_code=401,
                                     headers={"WWW-Authenticate": "Bearer"})
    return Response(figures.text(), media_type=CONTENT_TYPE_LATEST,
                    headers={"Cache-Control": "no-store"})


class MetricsPortOnly:
    """On the metrics port, `/metrics` and nothing else: that port may be reachable by
    the monitoring network only, and the game has no business there."""

    def __init__(self, app: ASGIApp, port: int | None) -> None:
        self.app = app
        self.port = port

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if self.port is None or scope["type"] not in ("http", "websocket") or \
                metrics_port_of(scope) != self.port or scope["path"] == "/metrics":
            return self.app(scope, receive, send)  # no frame of this layer (httponly.py)
        return self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 4404, "reason": "metrics only"})
            return
        await PlainTextResponse("this port serves /metrics only\n", status_code=404)(
            scope, receive, send)
