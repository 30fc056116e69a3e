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
and each frame costs far more to compress and write than its view to build. A `table`
message is the table's lobby facts as a whole, so a newer one drops the one still waiting
(`send_table`): a host changing seats in a loop queues one, not one per change.

What waits for a client is bounded — QUEUE_LIMIT messages, `send_queue_bytes` bytes, and
`send_stall_seconds` without its socket taking any (limits/settings.py) — and a client past a bound
is cut at once (`cut`): its queue dropped, its connection closed without waiting for the
network, its place freed and its seat's grace begun (api/websocket.py). A goodbye queued behind 500
frames for a client that never reads never left, and the client, its queue and its seat's
"connected" lasted as long as its TCP connection (one address held 1.2 GB that way).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

from starlette.websockets import WebSocket

from trusis.server.connections.frames import FrameBytes, events_bytes
from trusis.server.connections.inflow import GOODBYE_SECONDS
from trusis.server.connections.transport import DirectFrames
from trusis.server.limits.settings import Limits
from trusis.server.monitoring import metrics

QUEUE_LIMIT = 500
"""Messages waiting for one client before it is cut as too slow."""
TOO_SLOW = (1013, "too slow: reconnect to catch up")
ENVELOPE = 48
"""Bytes of an `events` message besides its parts (`Events.frame`), counted as waiting."""
LIMITS = Limits()
"""`send_queue_bytes` and `send_stall_seconds`: set once at start-up from the server's
settings (app.lifespan), as the other limits read where a request is not at hand."""


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

    def frame(self) -> FrameBytes:
        """An `EventsFrame` (frames.py), from its parts."""
        return events_bytes(self.seq, self.events, self.view, self.clock)

    def size(self) -> int:
        return len(self.events) + len(self.view) + len(self.clock) + ENVELOPE


@dataclass(slots=True)
class TableState:
    """A `table` message waiting to be sent: the table's lobby facts whole (room.info), which
    the next one makes useless (`Client.send_table`)."""

    data: FrameBytes

    def frame(self) -> FrameBytes:
        return self.data

    def size(self) -> int:
        return len(self.data)


Message = FrameBytes | Events | TableState
"""What a client's queue takes: a frame made by frames.py (`serialise`), or one of the two
kinds of waiting message that the next one of its kind may fold or replace."""


def size(message: Message) -> int:
    """The bytes a waiting message holds (counted against `send_queue_bytes`)."""
    return len(message) if isinstance(message, bytes) else message.size()


@dataclass(eq=False, slots=True)
class Client:
    websocket: WebSocket
    player_id: str
    name: str
    seat: int | None
    lang: str = "en"
    seq: int = 0  # the last stream number sent to this client
    queue: list[Message | None] = field(default_factory=list)
    """Lists, not deques: a deque costs 770 bytes empty, a list 64, and 5,000 clients'
    queues hold next to nothing most of the time (a front pop is a short move)."""
    queued_at: list[float] = field(default_factory=list)
    """When each message of `queue` was queued (a merged one keeps the first's time)."""
    queued_bytes: int = 0
    """What the messages of `queue` hold (`size`), bounded by `send_queue_bytes`."""
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
    staff: bool = False
    """Its player is a moderator or an admin: reads the lines a moderator hid (D71)."""
    goodbye: tuple[int, str] = TOO_SLOW
    direct: DirectFrames | None = None
    """This server's own transport (transport.py): a frame with nothing queued before it
    is written at once, without the writer task and ASGI's chain of coroutines. The
    queue is for a client the network holds back (its transport's buffer is full) and
    for a goodbye; without `direct` (a test client, another server) every frame queues."""

    def send(self, message: Message) -> None:
        if self.closed:
            return
        if not self.queue and not self.sending and self.direct is not None:
            data = message if isinstance(message, bytes) else message.frame()
            if self.direct.write(data):
                if (figures := metrics.FIGURES) is not None:
                    figures.broadcast.observe(0.0)
                return
        held = size(message)
        if len(self.queue) >= QUEUE_LIMIT or (
                self.queue and self.queued_bytes + held > LIMITS.send_queue_bytes > 0):
            self.cut(*TOO_SLOW)  # one message may always wait, whatever its size
        else:
            self._enqueue(message, held)

    def send_table(self, data: FrameBytes) -> None:
        """Send a `table` message: one still waiting is dropped, since this one says all it
        said (the lobby's state, not events), and this one is queued last."""
        if self.queue and not self.closed:
            for index, waiting in enumerate(self.queue):
                if isinstance(waiting, TableState):
                    del self.queue[index], self.queued_at[index]
                    self.queued_bytes -= waiting.size()
                    break
        self.send(TableState(data))

    def shut(self, code: int, reason: str) -> None:
        """Close with `code` once what is queued before is sent (its session ended)."""
        if self.closed:
            return
        self.goodbye = (code, reason)
        self.closed = True
        self._enqueue(None, 0)

    def cut(self, code: int, reason: str) -> None:
        """Close now: what waits is dropped, and with `direct` the connection is closed
        without waiting for the network — the close frame behind what its transport holds,
        the app's read ended at once, the transport dropped if that has not left within
        GOODBYE_SECONDS (`DirectFrames.cut`). Without it (a test client) the goodbye is
        all that is left queued."""
        self.queue.clear()
        self.queued_at.clear()
        self.queued_bytes = 0
        self.goodbye = (code, reason)
        self.closed = True
        if self.direct is None:
            self._enqueue(None, 0)
            return
        writer, self.writer = self.writer, None
        if writer is not None and writer is not asyncio.current_task():
            writer.cancel()  # it waits for a network that does not take its frame
        self.waiter = None
        self.direct.cut(code, reason)

    def _enqueue(self, message: Message | None, held: int) -> None:
        """The one way into the queue: `queued_at` stays beside it, item for item."""
        self.queue.append(message)
        self.queued_at.append(time.perf_counter())
        self.queued_bytes += held
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
            held = last.size()
            last.seq = seq
            last.events = b",".join(part for part in (last.events, events) if part)
            last.view = view
            last.clock = clock
            self.queued_bytes += last.size() - held
            if self.queued_bytes > LIMITS.send_queue_bytes > 0:
                self.cut(*TOO_SLOW)  # events keep coming to a client that takes none
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
        (its view, frame and text: 5 KB a client, 50 KB a table at rest). A message the
        network does not take within `send_stall_seconds` cuts the client."""
        message = self.queue.pop(0)
        since = self.queued_at.pop(0)
        stall = LIMITS.send_stall_seconds or None
        if message is None:
            try:
                async with asyncio.timeout(stall):
                    await self.websocket.close(*self.goodbye)
            except TimeoutError:
                if self.direct is not None:
                    self.cut(*self.goodbye)
            except Exception:
                pass
            return False
        self.queued_bytes -= size(message)
        data = message if isinstance(message, bytes) else message.frame()
        self.sending = True
        try:
            async with asyncio.timeout(stall):
                await self.websocket.send_text(data.decode("utf-8"))  # text frames: JSON
        except TimeoutError:
            self.cut(*TOO_SLOW)
            return self.direct is None  # without it, the goodbye `cut` queued comes next
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
        why) if the network takes it within GOODBYE_SECONDS, anything else still queued is
        dropped, and a connection whose writer is still held by the network is cut rather
        than left holding its transport's buffer."""
        shut = self.closed  # by `shut` or a full queue: the writer is sending its goodbye
        self.closed = True
        writer = self.writer
        if writer is None:  # none started, or `cut` let it go
            return
        if shut and not writer.done():
            with contextlib.suppress(TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(writer), GOODBYE_SECONDS)
        if not writer.done():
            writer.cancel()
            if self.direct is not None:
                self.direct.cut(*self.goodbye)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
