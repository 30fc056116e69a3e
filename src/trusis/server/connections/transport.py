"""The WebSocket transport's compression: what per-message deflate a server accepts.

uvicorn's websockets-sansio protocol accepts permessage-deflate whenever a client offers it
(every browser does), keeping a compressor and a decompressor per connection for its whole
life: about 49 KiB. A game frame (a seat's events and view, about 2 KB) is mostly the frame
before it, so the compressor's context is what makes deflate pay (38x smaller with it, under
4x without); its hash tables and the decompressor of the clients' small commands are not:
`deflate` keeps the 4 KiB window and context, with memLevel 2 and no client context takeover
(the decompressor lives for one message) — the same bytes and CPU in half the memory
(docs/architecture.md, "Capacity"). `trusis serve --ws-compression` chooses; the bench's
bare server (bench/bare.py) takes the same setting, so that both are measured alike.
Nothing a client reads changes: compression is negotiated per connection, and a client
that offered it reads uncompressed frames when the server declines.

The same protocol writes the game's frames at once (`DirectFrames`), takes what a
connection sends a piece per turn of the event loop and within a budget of frames
(`inflow.PacedProtocol`), and drops a connection that its app has closed but that reads
nothing (`DirectFrames.cut`, `run_asgi`), which asyncio's `close` would keep for good.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Literal, get_args

from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.exceptions import InvalidState
from websockets.extensions.base import ServerExtensionFactory
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from trusis.server.connections.framing import TextFrames
from trusis.server.connections.inflow import GOODBYE_SECONDS, AddressFrames, PacedProtocol
from trusis.server.limits.settings import Limits

Compression = Literal["deflate", "off", "wide"]
"""deflate: the default (above); off: frames go uncompressed (no memory, about 12 % less
CPU per action, 20x the bytes); wide: uvicorn's own settings (memLevel 5, a decompressor
kept per connection), for comparison."""
COMPRESSIONS: tuple[Compression, ...] = get_args(Compression)
DEFAULT_COMPRESSION: Compression = "deflate"


def extensions(compression: Compression) -> list[ServerExtensionFactory]:
    """The server's permessage-deflate offer for one setting (none when off)."""
    if compression == "deflate":
        return [ServerPerMessageDeflateFactory(
            server_max_window_bits=12, client_max_window_bits=12,
            client_no_context_takeover=True, compress_settings={"memLevel": 2})]
    if compression == "wide":  # as uvicorn's websockets-sansio protocol has it
        return [ServerPerMessageDeflateFactory(
            server_max_window_bits=12, client_max_window_bits=12,
            compress_settings={"memLevel": 5})]
    return []


DIRECT = "trusis.direct_frames"
"""The ASGI scope extension by which this server's own protocol offers `DirectFrames`
(as ASGI's extensions are, a dict: {"frames": DirectFrames})."""


class DirectFrames:
    """Writes a text frame at once, from the caller's own call: the game's frames out.

    Through ASGI a frame is a coroutine chain per frame (Starlette's `send_text` and its
    exception wrapper, uvicorn's `send` waiting on `writable`, the text decoded and encoded
    again) run by a writer task woken for it; at an action's ten frames that chain and the
    task switches were a tenth of the server's CPU (docs/architecture.md, "Frames written
    at once"). This does what uvicorn's `send` does for a text frame — websockets frames
    and deflates it, the transport takes the bytes — whenever that would not have waited:
    the connection is open and its transport's buffer is under the high-water mark. When it
    is not, `write` says so and the caller queues the frame for the ASGI path, which waits
    or fails as it always did (clients.py)."""

    __slots__ = ("_cut", "_frames", "_protocol")

    def __init__(self, protocol: WebSocketsSansIOProtocol) -> None:
        self._protocol: WebSocketsSansIOProtocol | None = protocol
        self._cut = False
        self._frames: TextFrames | bool | None = False  # False: not looked at yet

    def write(self, data: bytes) -> bool:
        """Send `data` (UTF-8 JSON) as one text frame now; False if it cannot go now.
        The frame's bytes are framing.py's where it knows the connection's extensions
        (the same bytes, fewer objects), websockets' otherwise."""
        protocol = self._protocol
        if (protocol is None or not protocol.handshake_complete or protocol.close_sent
                or protocol.disconnected or not protocol.writable.is_set()
                or protocol.transport.is_closing()):
            return False
        conn = protocol.conn
        frames = self._frames
        if frames is False:
            frames = self._frames = TextFrames.of(conn)
        if isinstance(frames, TextFrames):
            if conn.state is not State.OPEN or conn.expect_continuation_frame:
                return False  # the client's close came first: the ASGI path says so
            frame = frames.frame(data)
            if conn.writes:  # a control frame queued before it (a pong) goes first
                frame = b"".join(conn.data_to_send()) + frame
            protocol.transport.write(frame)
            return True
        try:
            conn.send_text(data)
        except InvalidState:  # the client's close came first: the ASGI path says so
            return False
        protocol.transport.write(b"".join(conn.data_to_send()))
        return True

    def cut(self, code: int, reason: str) -> None:
        """Close now, without waiting for the network (clients.py `Client.cut`): the close
        frame goes behind what the transport holds, the app reads at once that the
        connection ended (its read loop does not wait for the client to send something),
        and the transport is dropped unless the close is answered within GOODBYE_SECONDS.
        uvicorn's close waits for the transport to take the frame first, and asyncio's
        `close` for its buffer to drain: for a client that never reads, neither comes."""
        protocol = self._protocol
        if protocol is None or protocol.disconnected or self._cut:
            return
        self._cut = True
        transport = protocol.transport
        if not protocol.close_sent and not transport.is_closing():
            with contextlib.suppress(InvalidState):
                protocol.conn.send_close(code, reason)
            transport.write(b"".join(protocol.conn.data_to_send()))
            protocol.queue.put_nowait({"type": "websocket.disconnect", "code": code,
                                       "reason": reason})
        protocol.close_sent = True
        if protocol.close_timer is not None:  # uvicorn's, which would only `close`
            protocol.close_timer.cancel()
        protocol.close_timer = protocol.loop.call_later(GOODBYE_SECONDS, transport.abort)

    def release(self) -> None:
        """The connection is lost: nothing more to write, and no cycle back to it."""
        self._protocol = None


def direct_frames(scope: Any) -> DirectFrames | None:
    """The connection's `DirectFrames`, if this server's protocol serves it (uvicorn with
    `protocol()` below; not a test client or another server)."""
    found = ((scope.get("extensions") or {}).get(DIRECT) or {}).get("frames")
    return found if isinstance(found, DirectFrames) else None


def _uncycle(conn: ServerProtocol) -> None:
    """Close websockets' frame parser: a generator whose frame refers to its protocol, so
    the two form a cycle, and a closed connection's protocol (its compressor and buffers,
    about 60 KiB) would wait for a full collection, which this server makes rare
    (docs/architecture.md, "The collector"). Closed, the generator lets it go at once."""
    conn.parser.close()


def protocol(compression: Compression, limits: Limits | None = None
             ) -> type[asyncio.Protocol]:
    """uvicorn's websockets-sansio protocol with this compression (uvicorn's `ws` option),
    and the frame budget of these limits (their defaults when None)."""
    chosen = extensions(compression)
    budget = limits or Limits()

    class Protocol(PacedProtocol):
        frames_burst = float(budget.frames_per_socket_10s)
        frames_per_second = budget.frames_per_socket_10s / 10
        fragments_most = budget.fragments_per_message
        address_frames = (AddressFrames(float(budget.frames_per_address_10s))
                          if budget.frames_per_address_10s > 0 else None)

        def __init__(self, config: Config, server_state: ServerState,
                     app_state: dict[str, Any],
                     _loop: asyncio.AbstractEventLoop | None = None) -> None:
            super().__init__(config, server_state, app_state, _loop)
            made = self.conn  # uvicorn's, replaced: freed at once (`_uncycle`)
            self.conn = ServerProtocol(extensions=chosen, max_size=config.ws_max_size,
                                       logger=made.logger)
            _uncycle(made)
            self.direct: DirectFrames | None = None
            self.release: Callable[[], None] | None = None
            self.abort_due: asyncio.TimerHandle | None = None

        def count_until_lost(self, release: Callable[[], None]) -> None:
            """Call `release` when the connection ends: its address's count of open
            connections (limits/connections.py) is handed over at the upgrade."""
            self.release = release

        def handle_connect(self, event: Request) -> None:
            super().handle_connect(event)
            if self.response.status_code == 101:  # the app runs: it may write directly
                self.direct = DirectFrames(self)
                self.scope["extensions"][DIRECT] = {"frames": self.direct}

        async def run_asgi(self) -> None:
            """uvicorn's; then a connection its app is done with is dropped if it is not
            gone once a close handshake has had its time (uvicorn's `close_timeout`): the
            transport's `close` waits for its buffer to drain, which a peer that reads
            nothing never lets happen."""
            await super().run_asgi()
            if not self.disconnected:
                self.abort_due = self.loop.call_later(self.close_timeout,
                                                      self.transport.abort)

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            if self.abort_due is not None:
                self.abort_due.cancel()
                self.abort_due = None
            _uncycle(self.conn)  # nothing reads from a lost connection
            if self.direct is not None:
                self.direct.release()  # the scope outlives us in the app's frames: no cycle
            if self.release is not None:
                release, self.release = self.release, None
                release()

    Protocol.__name__ = Protocol.__qualname__ = f"WebSocketsSansIO_{compression}"
    return Protocol
