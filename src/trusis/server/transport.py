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
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal, get_args

from uvicorn.config import Config
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.extensions.base import ServerExtensionFactory
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.server import ServerProtocol

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


def _uncycle(conn: ServerProtocol) -> None:
    """Close websockets' frame parser: a generator whose frame refers to its protocol, so
    the two form a cycle, and a closed connection's protocol (its compressor and buffers,
    about 60 KiB) would wait for a full collection, which this server makes rare
    (docs/architecture.md, "The collector"). Closed, the generator lets it go at once."""
    conn.parser.close()


def protocol(compression: Compression) -> type[asyncio.Protocol]:
    """uvicorn's websockets-sansio protocol with this compression (uvicorn's `ws` option)."""
    chosen = extensions(compression)

    class Protocol(WebSocketsSansIOProtocol):
        def __init__(self, config: Config, server_state: ServerState,
                     app_state: dict[str, Any],
                     _loop: asyncio.AbstractEventLoop | None = None) -> None:
            super().__init__(config, server_state, app_state, _loop)
            made = self.conn  # uvicorn's, replaced: freed at once (`_uncycle`)
            self.conn = ServerProtocol(extensions=chosen, max_size=config.ws_max_size,
                                       logger=made.logger)
            _uncycle(made)

        def connection_lost(self, exc: Exception | None) -> None:
            super().connection_lost(exc)
            _uncycle(self.conn)  # nothing reads from a lost connection

    Protocol.__name__ = Protocol.__qualname__ = f"WebSocketsSansIO_{compression}"
    return Protocol
