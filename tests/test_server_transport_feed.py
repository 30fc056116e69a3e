"""The protocol's input, a piece a turn (transport.py, `_feed`), in-process over a fake
transport: exact reads, which a real socket does not promise, and the reading state after
each. tests/test_server_fairness.py drives the same code over a real server."""

from __future__ import annotations

import asyncio
import base64
import os
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from trusis.server.transport import PIECE, protocol


class FakeTransport(asyncio.Transport):
    """What the protocol writes, and whether it reads."""

    def __init__(self) -> None:
        super().__init__()
        self.out = bytearray()
        self.reading = True
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.out += data

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True


def masked_text(payload: bytes) -> bytes:
    """One masked text frame, as a client sends it (RFC 6455; payload under 126 bytes)."""
    mask = os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(
        byte ^ mask[i % 4] for i, byte in enumerate(payload))


async def connected(taken: list[str]) -> tuple[Any, FakeTransport]:
    """A connection that has been accepted by an app that keeps every text it receives."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] != "websocket.receive":
                return
            taken.append(message["text"])

    config = Config(app, ws_max_size=16 * 1024, log_level="warning")
    config.load()
    made = protocol("off")(config, ServerState(), {}, asyncio.get_running_loop())
    transport = FakeTransport()
    made.connection_made(transport)
    key = base64.b64encode(os.urandom(16)).decode()
    made.data_received(
        f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    while b"101 Switching Protocols" not in transport.out:
        await asyncio.sleep(0)
    return made, transport


async def settle(taken: list[str], count: int) -> None:
    for _ in range(10_000):
        if len(taken) >= count:
            break
        await asyncio.sleep(0)
    for _ in range(10):  # and whatever the last message sets off
        await asyncio.sleep(0)


@pytest.mark.parametrize("tail", [0, 5], ids=["whole frames", "a frame cut after a piece"])
def test_everything_read_is_parsed_and_then_reading_goes_on(tail: int) -> None:
    """Whole frames filling exactly one piece, then (or not) the first bytes of one more:
    once the app has every whole frame, the connection reads again. With the cut frame
    the last piece queues nothing for the app; reading stayed paused once, and the frame's
    rest was never read."""

    async def run() -> None:
        taken: list[str] = []
        made, transport = await connected(taken)
        ping = masked_text(b'{"type":"ping"}')
        frames = [ping] * ((PIECE - 100) // len(ping))  # and one of 16-125 bytes to end it
        used = sum(len(frame) for frame in frames)
        frames.append(masked_text(b'{"type":"ping"' + b" " * (PIECE - used - 6 - 15) + b"}"))
        data = b"".join(frames)
        assert len(data) == PIECE
        made.data_received(data + ping[:tail])
        await settle(taken, len(frames))
        assert len(taken) == len(frames)
        assert transport.reading, "everything read is parsed: the socket must be read again"
        made.data_received(ping[tail:] if tail else ping)
        await settle(taken, len(frames) + 1)
        assert len(taken) == len(frames) + 1
        assert transport.reading

    asyncio.run(run())


def test_a_read_of_several_pieces_is_parsed_one_piece_a_turn() -> None:
    """A read of 64 KiB: the app gets the first piece's frames before the rest is parsed,
    and reading stays paused until everything read is parsed and taken."""

    async def run() -> None:
        taken: list[str] = []
        made, transport = await connected(taken)
        ping = masked_text(b'{"type":"ping"}')
        count = 4 * PIECE // len(ping)
        made.data_received(ping * count)
        assert not transport.reading
        assert made.queue.qsize() <= PIECE // len(ping) + 1  # one piece's frames at most
        await settle(taken, count)
        assert len(taken) == count
        assert transport.reading

    asyncio.run(run())
