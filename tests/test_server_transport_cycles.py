"""A closed WebSocket's transport objects are freed at once, not by the collector.

websockets' sans-I/O protocol keeps its frame parser as a generator whose frame refers to
the protocol: a reference cycle, so every closed connection's protocol, with its
compressor and buffers (about 60 KiB), waited for a full collection — which this server
makes rare (docs/architecture.md, "The collector"). In a saturated load run, where games end
and their ten clients reconnect to the next, 960 closed connections were still in memory
out of 1,005. transport.py closes the parser when the connection is lost; this runs a real
uvicorn server with that protocol, in this process with the collector off, and counts the
protocols still alive after connections open and close.
"""

from __future__ import annotations

import asyncio
import gc

import pytest
import uvicorn
from starlette.types import Receive, Scope, Send
from websockets.asyncio.client import connect
from websockets.server import ServerProtocol

from trusis.server.connections.transport import COMPRESSIONS, protocol


async def echo(scope: Scope, receive: Receive, send: Send) -> None:
    """One WebSocket: accept, answer each text message with itself, until it closes."""
    assert scope["type"] == "websocket"
    while True:
        message = await receive()
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
        elif message["type"] == "websocket.receive":
            await send({"type": "websocket.send", "text": message.get("text") or ""})
        else:
            return


@pytest.mark.asyncio
@pytest.mark.parametrize("compression", COMPRESSIONS)
async def test_closed_connections_leave_nothing_for_the_collector(compression: str) -> None:
    server = uvicorn.Server(uvicorn.Config(echo, host="127.0.0.1", port=0, lifespan="off",
                                           ws=protocol(compression),  # type: ignore[arg-type]
                                           log_level="warning"))
    gc.collect()
    gc.disable()
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        for number in range(30):
            async with connect(f"ws://127.0.0.1:{port}/") as ws:
                await ws.send(f"hello {number}")
                assert await ws.recv() == f"hello {number}"
        await asyncio.sleep(0.3)  # the server sees the last close
        alive = [o for o in gc.get_objects() if type(o) is ServerProtocol]
        assert len(alive) <= 1, f"{len(alive)} of 30 closed connections still in memory"
    finally:
        gc.enable()
        server.should_exit = True
        await serving
