"""A request body larger than `Limits.body_bytes` is refused with 413 before it is read
whole: the app's own limit, behind nginx's or with no proxy at all.

The lobby's bodies are small (the largest real one is a custom set, under 2 KiB), so
the middleware reads a body up to the limit and hands it on in one piece; past the
limit it stops reading and answers 413 in the API's shape (docs/protocol.md).
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from trusis.server.limits.httponly import HttpOnly


def _gone(message: Message) -> Receive:
    async def receive() -> Message:
        return message
    return receive


class BodyLimit(HttpOnly):
    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.limit <= 0:
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: the app
                await self.app(scope, _gone(message), send)  # sees it as without the limit
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        given = False

        async def replay() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        payload = json.dumps({
            "code": "body_too_large", "params": {"limit": self.limit},
            "message": f"the request is too large: at most {self.limit} bytes"}).encode()
        await send({"type": "http.response.start", "status": 413, "headers": [
            (b"content-type", b"application/json"), (b"connection", b"close"),
            (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})
