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
from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode

from trusis.server.connections.inflow import DECODED, FEED, PIECE
from trusis.server.connections.transport import protocol
from trusis.server.limits.settings import Limits

UNBUDGETED = Limits(frames_per_socket_10s=0)
"""The pacing is tested here with thousands of frames, far past the frame budget, which
the last test (and tests/test_server_frame_budget.py) tests on its own."""


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


def masked_text(payload: bytes, opcode: int = 0x1) -> bytes:
    """One masked frame (text by default), as a client sends it (RFC 6455; a payload under
    126 bytes)."""
    mask = os.urandom(4)
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + bytes(
        byte ^ mask[i % 4] for i, byte in enumerate(payload))


def keeper(taken: list[str], close_after: int | None = None) -> Any:
    """An app that keeps every text it receives (and closes after `close_after` of them,
    as api/websocket.py does after 20 malformed frames)."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while True:
            await asyncio.sleep(0)  # one message a turn, as ws._serve
            message = await receive()
            if message["type"] != "websocket.receive":
                return
            taken.append(message["text"])
            if len(taken) == close_after:
                await send({"type": "websocket.close", "code": 4429})
                return

    return app


async def connected(taken: list[str], app: Any = None, compression: str = "off",
                    budget: Limits = UNBUDGETED) -> tuple[Any, FakeTransport]:
    """A connection that has been accepted by `app` (by default `keeper(taken)`); with
    compression, the client offered permessage-deflate as browsers do."""
    config = Config(app or keeper(taken), ws_max_size=16 * 1024, log_level="warning")
    config.load()
    made = protocol(compression, budget)(config, ServerState(), {},
                                         asyncio.get_running_loop())
    transport = FakeTransport()
    made.connection_made(transport)
    key = base64.b64encode(os.urandom(16)).decode()
    offer = ("Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
             if compression != "off" else "")
    made.data_received(
        f"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{offer}\r\n".encode())
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


def test_the_clients_close_reply_is_found_when_the_app_closes_with_messages_waiting() -> None:
    """A burst of commands and the client's own close in one write; the app closes after 20
    of them (4429), with the rest waiting: what is left unread is parsed on without the app,
    so the close handshake ends at once, not after uvicorn's 10 s close timer."""

    async def run() -> None:
        taken: list[str] = []
        made, transport = await connected(taken, keeper(taken, close_after=20))
        command = masked_text(b'{"type":"act"}')
        made.data_received(command * 2000 + masked_text(b"\x03\xe8", opcode=0x8))
        for _ in range(2000):
            if transport.closed:
                break
            await asyncio.sleep(0)
        assert len(taken) == 20
        assert transport.closed, "the client's close reply was never parsed"
        made.connection_lost(None)

    asyncio.run(run())


def test_compressed_frames_are_parsed_by_what_they_inflate_to() -> None:
    """Frames of 58 bytes on the wire that inflate to 16 KiB each: one piece of them queued
    282 messages (4.6 MB). A turn parses at most DECODED bytes of messages."""

    async def run() -> None:
        taken: list[str] = []

        async def idle(scope: Any, receive: Any, send: Any) -> None:
            await receive()
            await send({"type": "websocket.accept"})
            await asyncio.sleep(3600)

        made, transport = await connected(taken, idle, compression="deflate")
        assert b"permessage-deflate" in transport.out
        deflate = PerMessageDeflate(False, True, 12, 12)  # the client's side of the offer
        payload = b'{"type":"ping"' + b" " * (16 * 1024 - 16) + b"}"
        frame = Frame(Opcode.TEXT, payload).serialize(mask=True, extensions=[deflate])
        assert len(frame) < 100
        made.data_received(frame * (4 * PIECE // len(frame)))
        queued = made.queue.qsize()
        assert 1 <= queued <= (DECODED + FEED // len(frame) * len(payload)) // len(payload) + 1, \
            queued  # a turn stops after the chunk of FEED bytes that passed DECODED
        made.connection_lost(None)

    asyncio.run(run())


def test_a_client_that_pings_and_does_not_read_is_owed_one_pong() -> None:
    """uvicorn answers every ping at once: a client that pings and never reads made the
    server's write buffer grow without end. While the peer does not read, one pong is owed
    for the latest ping (RFC 6455, 5.5.3), and sent when it reads again."""

    async def run() -> None:
        taken: list[str] = []
        made, transport = await connected(taken)
        made.pause_writing()  # the transport's buffer is over its high-water mark
        before = len(transport.out)
        pings = b"".join(masked_text(b"%04d" % n, opcode=0x9) for n in range(3000))
        made.data_received(pings)
        for _ in range(200):
            await asyncio.sleep(0)
        assert len(transport.out) == before  # nothing more written while it does not read
        assert not made.unread and transport.reading
        made.resume_writing()
        pong = bytes(transport.out[before:])
        assert pong == bytes([0x8A, 4]) + b"2999"  # one pong, for the last ping
        made.connection_lost(None)

    asyncio.run(run())


def test_a_connection_may_send_its_budget_of_frames_at_once_and_not_one_more() -> None:
    """`frames_per_socket_10s` frames at once, of any kind, are read; a frame past them
    closes the connection (4429), and nothing after it reaches the app."""

    async def run() -> None:
        taken: list[str] = []
        made, transport = await connected(taken, budget=Limits(frames_per_socket_10s=100))
        ping = masked_text(b'{"type":"ping"}')
        control = masked_text(b"", opcode=0x9)
        made.data_received(ping * 60 + control * 40)  # 100: the budget
        await settle(taken, 60)
        assert len(taken) == 60 and not transport.closed
        made.data_received(ping * 20)  # a few milliseconds later: about nothing earned
        await settle(taken, 61)
        assert transport.closed and len(taken) == 60
        assert b"\x88" in transport.out and b"too many frames" in transport.out
        assert made.close_sent  # the app was told the connection ended (it returned)
        made.connection_lost(None)

    asyncio.run(run())
