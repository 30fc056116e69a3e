"""The WebSocket transport's compression: what per-message deflate a server accepts.

uvicorn's websockets-sansio protocol accepts permessage-deflate whenever a client offers it
(every browser does), with a 4 KiB window and context takeover: each connection keeps a
compressor and a decompressor alive for its whole life. On a game server whose frames are
small JSON that costs more server CPU and memory per connection than it saves on the wire
(docs/architecture.md, "Capacity"), so `trusis serve --ws-compression` chooses, and the
bench's bare server (bench/bare.py) takes the same setting, so both are measured alike.
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

Compression = Literal["off", "deflate", "light"]
"""off: frames go uncompressed; deflate: uvicorn's own permessage-deflate
(4 KiB windows, context kept between messages); light: 512-byte windows and no context
takeover, so a connection holds no compressor between messages."""
COMPRESSIONS: tuple[Compression, ...] = get_args(Compression)
DEFAULT_COMPRESSION: Compression = "deflate"


def extensions(compression: Compression) -> list[ServerExtensionFactory]:
    """The server's permessage-deflate offer for one setting (none when off)."""
    if compression == "deflate":  # as uvicorn's websockets-sansio protocol has it
        return [ServerPerMessageDeflateFactory(
            server_max_window_bits=12, client_max_window_bits=12,
            compress_settings={"memLevel": 5})]
    if compression == "light":
        return [ServerPerMessageDeflateFactory(
            server_no_context_takeover=True, client_no_context_takeover=True,
            server_max_window_bits=9, client_max_window_bits=9,
            compress_settings={"memLevel": 1})]
    return []


def protocol(compression: Compression) -> type[asyncio.Protocol]:
    """uvicorn's websockets-sansio protocol with this compression (uvicorn's `ws` option)."""
    chosen = extensions(compression)

    class Protocol(WebSocketsSansIOProtocol):
        def __init__(self, config: Config, server_state: ServerState,
                     app_state: dict[str, Any],
                     _loop: asyncio.AbstractEventLoop | None = None) -> None:
            super().__init__(config, server_state, app_state, _loop)
            self.conn = ServerProtocol(extensions=chosen, max_size=config.ws_max_size,
                                       logger=self.conn.logger)

    Protocol.__name__ = Protocol.__qualname__ = f"WebSocketsSansIO_{compression}"
    return Protocol
