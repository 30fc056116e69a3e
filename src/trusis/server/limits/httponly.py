"""ASGI middleware that acts on HTTP requests only, and lets a WebSocket go straight on.

A middleware that awaits the app it wraps stays on the stack as long as the app runs:
for a WebSocket, the connection's whole life — a suspended frame per layer and per
connection (memory), resumed with every message the connection waits for. One that has
nothing to do for a WebSocket hands it the app's own coroutine instead
(docs/architecture.md, "Capacity").
"""

from __future__ import annotations

from collections.abc import Awaitable

from starlette.types import ASGIApp, Receive, Scope, Send


class HttpOnly:
    """Subclasses act in `http`; anything but an HTTP request is the wrapped app's."""

    app: ASGIApp

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if scope["type"] != "http":
            return self.app(scope, receive, send)  # no frame of this layer for it
        return self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError
