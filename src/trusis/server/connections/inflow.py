"""What one WebSocket connection sends, taken a little per turn of the event loop.

uvicorn's websockets-sansio protocol parses whatever one read of the socket brings (up to
256 KiB) and queues every message in it at once, and answers every ping the moment it is
parsed. One client that wrote 60,000 pings at once held every other connection 0.3-0.5 s
per read; compressed frames of 58 bytes that each inflate to 16 KiB queued megabytes; and a
client that pings without reading made the server's write buffer grow for as long as it
kept on (docs/architecture.md, "The server"). `PacedProtocol` keeps uvicorn's protocol and
bounds each of these:

- at most PIECE bytes of input, and about DECODED bytes of messages, are parsed per turn,
  fed to the parser FEED bytes at a time (a read of at most CHUNK bytes with nothing
  unread before it, the usual command, is parsed as it comes);
- the next piece only once the app has taken every message of the last (its `receive`),
  reading paused meanwhile, so a client holds at most one read and one piece's messages;
- while the peer does not read (the transport's buffer is over its high-water mark), its
  pings are owed one pong, sent when it reads again (RFC 6455, 5.5.3: a pong may answer
  only the latest ping);
- every frame it sends, of any kind, spends one of its budget (`frames_burst` at once, then
  `frames_per_second`), and a message comes in `fragments_most` frames at most: past
  either it is closed with TOO_MANY (`_refuse`). Pacing bounds how much a connection is
  served per turn, not for how long: an endless message of empty continuation frames, or
  pings without end, were 5.4 million frames in 15 s, most of a core, every one accepted.

A connection that is lost drops what it had not parsed: nothing of it was acknowledged,
and a client sends its commands again, with the same ids, when it reconnects.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from typing import Any

from uvicorn._types import ASGIReceiveEvent, ASGISendEvent
from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import Event

log = logging.getLogger("trusis.server")

KEYS_KEPT = 100_000
"""Addresses whose frame budget is remembered at once (the oldest forgotten first)."""

PIECE = 16 * 1024
"""Bytes of a connection's input parsed in one turn of the event loop, at most."""
CHUNK = 1024
"""A read this small, with nothing unread before it, is parsed as it comes."""
FEED = 256
"""Bytes handed to the parser at a time by `_feed`: 4 compressed frames that inflate to
16 KiB each, at most, between two checks of DECODED."""
PONG = b"\x8a"
"""The first byte of a pong frame from a server (FIN, opcode 0xA, unmasked)."""
DECODED = 64 * 1024
"""Bytes of messages (after inflating) parsed in one turn: a piece's worth of compressed
frames can hold 16 KiB each."""
TOO_MANY = 4429
"""The close code of a connection over its frame budget (docs/protocol.md)."""
GOODBYE_SECONDS = 2.0
"""How long a connection closed by the server has for its close to leave (and be answered)
before its transport is dropped: a peer that reads nothing would keep it, and its buffer,
for good (`transport.close` waits for the buffer to drain)."""
MESSAGE_STARTS = (Opcode.TEXT, Opcode.BINARY)


class AddressFrames:
    """The frames budget the connections of each address share: `burst` at once, then
    `burst` / 10 a second (`frames_per_address_10s`). Each connection's own budget bounds
    one connection; 296 of one address, each under its own at 90 frames a second, were
    26,640 frames a second and made another visitor wait a median 135 ms."""

    def __init__(self, burst: float) -> None:
        self.burst = burst
        self.tokens: OrderedDict[str, tuple[float, float]] = OrderedDict()
        """Address -> (tokens, when last counted); the oldest forgotten past KEYS_KEPT."""

    def spend(self, address: str, frames: int, now: float) -> bool:
        """Spend `frames` of `address`'s budget: False when it is spent."""
        tokens, stamp = self.tokens.get(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - stamp) * self.burst / 10) - frames
        self.tokens[address] = (tokens, now)
        self.tokens.move_to_end(address)
        while len(self.tokens) > KEYS_KEPT:
            self.tokens.popitem(last=False)
        return tokens >= 0


class PacedProtocol(WebSocketsSansIOProtocol):
    """uvicorn's protocol, with its input paced and budgeted and its pongs bounded (above)."""

    frames_burst = 0.0
    """Frames a connection may send at once (0: no budget); the subclass made by
    `transport.protocol` sets these from the server's limits (limits/settings.py)."""
    frames_per_second = 0.0
    fragments_most = 0
    """Frames one message may come in (0: any number)."""
    address_frames: AddressFrames | None = None
    """The budget of the connections of each address (None: none), set as `frames_burst`."""

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.unread = bytearray()
        """Read from the socket and not yet parsed."""
        self.feed_due: asyncio.Handle | None = None
        """The next `_feed`, when one is scheduled."""
        self.decoded = 0  # bytes of messages queued by this turn's `_feed`
        self.owed_pong: bytes | None = None
        self.frame_tokens = self.frames_burst
        self.frame_stamp = self.loop.time()
        self.fragments = 0  # frames of the message being received
        self.address: str | None = None
        """The address whose budget its frames spend (`count_address`); None: a trusted
        proxy's, which bounds its own."""
        self.heard_at = self.loop.time()
        """When the peer last sent anything: proof enough that it is there."""

    def send_keepalive_ping(self) -> None:
        """A ping only to a peer silent for the whole interval (`silent_socket_seconds`):
        anything it sent since proves it is there, so a lost connection is still found
        within the interval and the pong's wait after it last spoke. Pinging every
        connection every 20 s was a tenth of the event loop at 1,000 tables (a write and
        a pong each; issue 39)."""
        quiet = self.loop.time() - self.heard_at
        if self.ping_interval is not None and quiet < self.ping_interval:
            self.ping_timer = self.loop.call_later(self.ping_interval - quiet,
                                                   self.send_keepalive_ping)
            return
        super().send_keepalive_ping()

    def data_received(self, data: bytes) -> None:
        self.heard_at = self.loop.time()
        if self.unread:  # a piece is pending: its turn comes (`_feed_soon`, `receive`)
            self.unread += data
        elif len(data) <= CHUNK:  # the usual read: a command or two
            super().data_received(data)
        else:
            self.unread += data
            self._feed()

    def _feed(self) -> None:
        """Parse one piece of what was read, then wait for the app to take its messages."""
        self.feed_due = None
        self.decoded = wire = 0
        while self.unread and wire < PIECE and self.decoded < DECODED and not self._over():
            chunk = bytes(self.unread[:FEED])
            del self.unread[:FEED]
            super().data_received(chunk)
            wire += len(chunk)
        if self._over():  # lost, closed, or a bad frame closed it
            self.unread.clear()
        elif not self.unread:
            if not self.read_paused:  # nothing queued for the app: read on
                self.transport.resume_reading()
        else:
            self.transport.pause_reading()
            # Nothing queued (control frames, part of a frame), or the app closed and takes
            # nothing more (the client's close reply is still to be found): go on.
            if self.queue.empty() or self.close_sent:
                self._feed_soon()

    def _over(self) -> bool:
        return self.disconnected or self.transport.is_closing()

    def _feed_soon(self) -> None:
        if self.feed_due is None:
            self.feed_due = self.loop.call_soon(self._feed)

    def send_receive_event_to_app(self) -> None:
        self.decoded += sum(len(frame) for frame in self.frames)
        super().send_receive_event_to_app()

    async def receive(self) -> ASGIReceiveEvent:
        """uvicorn's, except that what was read and not yet parsed comes before more
        reading."""
        message = await self.queue.get()
        if self.queue.empty():  # what uvicorn paused reading for is taken
            paused, self.read_paused = self.read_paused, False
            if self.unread:  # still paused by `_feed`, which reads on once it is parsed
                self._feed_soon()
            elif paused:
                self.transport.resume_reading()
        return message

    async def send(self, message: ASGISendEvent) -> None:
        await super().send(message)
        if self.close_sent and self.unread and not self._over():
            self._feed_soon()  # the app takes nothing more: the client's close reply is
            # somewhere in what is left

    def handle_events(self) -> None:
        """uvicorn's, after the frames are counted against the budget (`_refusal`)."""
        events = self.conn.events_received()
        if not events:
            return
        refused = self._refusal(events)
        if refused is not None:
            self._refuse(refused)
            return
        for event in events:
            if isinstance(event, Request):
                self.handle_connect(event)
            elif not isinstance(event, Frame):
                continue  # a server receives no responses
            elif event.opcode is Opcode.TEXT:
                self.handle_text(event)
            elif event.opcode is Opcode.CONT:
                self.handle_cont(event)
            elif event.opcode is Opcode.BINARY:
                self.handle_bytes(event)
            elif event.opcode is Opcode.PING:
                self.handle_ping()
            elif event.opcode is Opcode.PONG:
                self.handle_pong(event)
            elif event.opcode is Opcode.CLOSE:
                self.handle_close(event)

    def _refusal(self, events: list[Event]) -> str | None:
        """Why these frames are one too many (None: they are not): each spends one of the
        budget, and a message may come in `fragments_most` frames."""
        frames = 0
        most = self.fragments_most
        for event in events:
            if not isinstance(event, Frame):
                continue
            frames += 1
            if event.opcode in MESSAGE_STARTS:
                self.fragments = 1
            elif event.opcode is Opcode.CONT:
                self.fragments += 1
            else:
                continue  # a control frame, between the fragments of a message or not
            if self.fragments > most > 0:
                return f"a message in more than {most} frames"
            if event.fin:
                self.fragments = 0
        burst = self.frames_burst
        if frames and burst > 0:
            now = self.loop.time()
            self.frame_tokens = min(burst, self.frame_tokens + (now - self.frame_stamp)
                                    * self.frames_per_second) - frames
            self.frame_stamp = now
            if self.frame_tokens < 0:
                return (f"too many frames: {burst:.0f} at once, then "
                        f"{self.frames_per_second:g} a second")
        shared = self.address_frames
        if frames and shared is not None and self.address is not None \
                and not shared.spend(self.address, frames, self.loop.time()):
            return (f"too many frames from this address: {shared.burst:.0f} at once, then "
                    f"{shared.burst / 10:g} a second, all its connections together")
        return None

    def count_address(self, address: str) -> None:
        """Its frames spend `address`'s budget too (limits/connections.py, at the upgrade)."""
        self.address = address

    def _refuse(self, reason: str) -> None:
        """Close with TOO_MANY now: nothing more of the connection is read, its app reads
        that it ended, and its transport is dropped unless it is gone within
        GOODBYE_SECONDS. Said once in the log: a connection is refused once."""
        client = (self.scope.get("client") if self.handshake_complete else None) or self.client
        log.warning("a WebSocket from %s was closed (%d): %s",
                    client[0] if client else "?", TOO_MANY, reason)
        self.conn.fail(TOO_MANY, reason)
        self.transport.write(b"".join(self.conn.data_to_send()))
        if not self.close_sent:
            self.close_sent = True
            self.queue.put_nowait({"type": "websocket.disconnect", "code": TOO_MANY,
                                   "reason": reason})
        self.transport.close()
        if self.close_timer is not None:
            self.close_timer.cancel()
        self.close_timer = self.loop.call_later(GOODBYE_SECONDS, self.transport.abort)

    def handle_ping(self) -> None:
        if self.writable.is_set():
            super().handle_ping()
            return
        # The peer does not read: one pong owed, for the latest ping. The parser answered
        # every ping of its chunk at once: one frame each, in order.
        output = self.conn.data_to_send()
        pongs = [frame for frame in output if frame[:1] == PONG]
        if pongs:
            self.owed_pong = pongs[-1]
        if len(pongs) < len(output):  # anything else (a close reply) goes as ever
            self.transport.write(b"".join(frame for frame in output if frame[:1] != PONG))

    def resume_writing(self) -> None:
        super().resume_writing()
        owed, self.owed_pong = self.owed_pong, None
        if owed and not self._over():
            self.transport.write(owed)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self.unread.clear()
        self.owed_pong = None
        if self.feed_due is not None:
            self.feed_due.cancel()
            self.feed_due = None
