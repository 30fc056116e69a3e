"""One connected client: who it is, which seat's stream it reads, and its send queue.

Sends never wait on the network inside a room: each client has its own queue
and writer task, so one slow phone cannot hold up a table. A client that falls
too far behind is closed, and catches up by stream number when it reconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from starlette.websockets import WebSocket

QUEUE_LIMIT = 500
"""Messages waiting for one client before it is dropped as too slow."""


@dataclass(eq=False)
class Client:
    websocket: WebSocket
    player_id: str
    name: str
    seat: int | None
    lang: str = "en"
    seq: int = 0  # the last stream number sent to this client
    queue: asyncio.Queue[bytes | None] = field(default_factory=asyncio.Queue)
    writer: asyncio.Task[None] | None = None
    closed: bool = False

    def start(self) -> None:
        self.writer = asyncio.create_task(self._write(), name=f"client {self.player_id}")

    def send(self, message: bytes) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= QUEUE_LIMIT:
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(message)

    async def _write(self) -> None:
        while True:
            message = await self.queue.get()
            if message is None:
                with contextlib.suppress(Exception):
                    await self.websocket.close(1013, "too slow: reconnect to catch up")
                return
            try:
                await self.websocket.send_text(message.decode("utf-8"))  # text frames: JSON
            except Exception:
                self.closed = True
                return

    async def stop(self) -> None:
        self.closed = True
        if self.writer is not None:
            self.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.writer
