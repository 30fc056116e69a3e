"""One connected client: who it is, which seat's stream it reads, and its send queue.

Sends never wait on the network inside a room. A frame is written at once when
the connection can take it (`DirectFrames`: its transport's buffer is not full);
otherwise it queues, and a writer task of the client's own sends it when the
network lets it, so one slow phone cannot hold up a table. A client that falls
too far behind is closed, and catches up by stream number when it reconnects.

A client that is behind does not get views that are already out of date: two
`events` messages waiting next to each other in its queue become one, with the
events of both, in order, and the newer view (`send_events`). Nothing is
delayed for this and no event is left out; a busy server sends fewer frames,
and each frame costs far more to compress and write than its view to build.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

from starlette.websockets import WebSocket

from trusis.server import metrics
from trusis.server.transport import DirectFrames

QUEUE_LIMIT = 500
"""Messages waiting for one client before it is dropped as too slow."""
GOODBYE_SECONDS = 2.0
"""How long a closing connection's goodbye (its close code) may take to leave."""


@dataclass(slots=True)
class Events:
    """An `events` message waiting to be sent, merged with the next one while it waits.

    Its parts are already JSON (`Table.events_json`, `views.view_json`): nothing of the
    game state is kept, and a message waiting holds a few byte strings, not the dicts and
    lists of every event — the collector has nothing in it to walk."""

    seq: int
    events: bytes  # the events' JSON objects, joined by commas
    view: bytes
    clock: bytes

    def frame(self) -> bytes:
        """The same bytes as `orjson.dumps` of the message as a dict (docs/protocol.md)."""
        return b'{"type":"events","seq":%d,"events":[%b],"view":%b,"clock":%b}' % (
            self.seq, self.events, self.view, self.clock)


@dataclass(eq=False, slots=True)
class Client:
    websocket: WebSocket
    player_id: str
    name: str
    seat: int | None
    lang: str = "en"
    seq: int = 0  # the last stream number sent to this client
    queue: list[bytes | Events | None] = field(default_factory=list)
    """Lists, not deques: a deque costs 770 bytes empty, a list 64, and 5,000 clients'
    queues hold next to nothing most of the time (a front pop is a short move)."""
    queued_at: list[float] = field(default_factory=list)
    """When each message of `queue` was queued (a merged one keeps the first's time)."""
    waiter: asyncio.Future[None] | None = None
    """What the writer awaits while the queue is empty: a bare future rather than an
    `asyncio.Event`, whose wait and set cost more per frame (bench/sendpath.py)."""
    writer: asyncio.Task[None] | None = None
    """Started by the first message that has to queue: a client the network never holds
    back has no task (with `direct`, most have none)."""
    sending: bool = False
    """The writer has taken a message off the queue and waits for the network to take it:
    nothing may go direct meanwhile, or it would overtake that message."""
    closed: bool = False
    family: str = ""  # the sign-in whose token opened it: closed when that ends
    goodbye: tuple[int, str] = (1013, "too slow: reconnect to catch up")
    direct: DirectFrames | None = None
    """This server's own transport (transport.py): a frame with nothing queued before it
    is written at once, without the writer task and ASGI's chain of coroutines. The
    queue is for a client the network holds back (its transport's buffer is full) and
    for a goodbye; without `direct` (a test client, another server) every frame queues."""

    def send(self, message: bytes | Events) -> None:
        if self.closed:
            return
        if not self.queue and not self.sending and self.direct is not None:
            data = message.frame() if isinstance(message, Events) else message
            if self.direct.write(data):
                if (figures := metrics.FIGURES) is not None:
                    figures.broadcast.observe(0.0)
                return
        if len(self.queue) >= QUEUE_LIMIT:
            self.closed = True
            self._enqueue(None)
        else:
            self._enqueue(message)

    def shut(self, code: int, reason: str) -> None:
        """Close with `code` once what is queued before is sent (its session ended)."""
        if self.closed:
            return
        self.goodbye = (code, reason)
        self.closed = True
        self._enqueue(None)

    def _enqueue(self, message: bytes | Events | None) -> None:
        """The one way into the queue: `queued_at` stays beside it, item for item."""
        self.queue.append(message)
        self.queued_at.append(time.perf_counter())
        if self.writer is None:
            self.writer = asyncio.create_task(self._write(), name=f"client {self.player_id}")
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():  # done: cancelled with the writer
                waiter.set_result(None)

    def send_events(self, seq: int, events: bytes, view: bytes, clock: bytes) -> None:
        """Queue an `events` message (its parts serialised: see `Events`), or fold it into
        the one still waiting last."""
        last = self.queue[-1] if self.queue else None
        if isinstance(last, Events) and not self.closed:
            last.seq = seq
            last.events = b",".join(part for part in (last.events, events) if part)
            last.view = view
            last.clock = clock
            return
        self.send(Events(seq, events, view, clock))

    async def _write(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if not self.queue:
                self.waiter = loop.create_future()
                await self.waiter
                continue
            if not await self._write_one():
                return

    async def _write_one(self) -> bool:
        """Send the first message queued; False once the connection is over. Its own
        frame, so that a writer waiting for the next message keeps nothing of the last
        (its view, frame and text: 5 KB a client, 50 KB a table at rest)."""
        message = self.queue.pop(0)
        since = self.queued_at.pop(0)
        if message is None:
            with contextlib.suppress(Exception):
                await self.websocket.close(*self.goodbye)
            return False
        data = message.frame() if isinstance(message, Events) else message
        self.sending = True
        try:
            await self.websocket.send_text(data.decode("utf-8"))  # text frames: JSON
        except Exception:
            self.closed = True
            return False
        finally:
            self.sending = False
        if (figures := metrics.FIGURES) is not None:
            figures.broadcast.observe(time.perf_counter() - since)
        return True

    async def stop(self) -> None:
        """The connection is over: a goodbye queued by `shut` still leaves (its code says
        why), anything else still queued is dropped."""
        shut = self.closed  # by `shut` or a full queue: the writer is sending its goodbye
        self.closed = True
        if self.writer is not None and shut and not self.writer.done():
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(self.writer), GOODBYE_SECONDS)
        if self.writer is not None:
            self.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.writer
