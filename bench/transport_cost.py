"""What the transport costs per frame, measured on the run's own frames (issue 39).

`bench/load.py` prints "the game's own CPU per action": the server's CPU per action less
what the transport spent on the frames of that action. The transport's part is measured
here, in the bench's process, right after the run and on the same machine: the `events`
frames a few connections received (`load_clients.py` keeps them in order, as each
connection's compressor saw them), each framed and deflated as the server does it
(websockets' per-message deflate with the server's settings, `transport.extensions`, one
compressor per connection, context kept) and written to a local socket, whose other end a
thread reads. Timed with this thread's CPU clock, best of three rounds; the socket's
reader is not counted, as the client's reading is not the server's.

It leaves out what uvicorn's protocol adds around a write (a few µs) and counts the
deflate of frames whose size matches the run's; the figure is an estimate of the
transport's floor, so the game's own part it leaves is, if anything, on the high side.
"""

from __future__ import annotations

import socket
import threading
import time

from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode

from trusis.server.connections.transport import Compression, extensions


def _drain(sock: socket.socket) -> None:
    while sock.recv(1 << 16):
        pass


def _deflater(compression: Compression) -> PerMessageDeflate | None:
    offers = extensions(compression)
    if not offers:
        return None
    factory = offers[0]
    assert hasattr(factory, "compress_settings")
    return PerMessageDeflate(factory.client_no_context_takeover,  # type: ignore[attr-defined]
                             factory.server_no_context_takeover,  # type: ignore[attr-defined]
                             factory.client_max_window_bits,  # type: ignore[attr-defined]
                             factory.server_max_window_bits,  # type: ignore[attr-defined]
                             factory.compress_settings)


def per_frame_seconds(streams: list[list[str]], compression: Compression,
                      rounds: int = 3) -> tuple[float, int]:
    """CPU seconds per frame to frame, deflate and write `streams` (one list of texts per
    connection, in order), best of `rounds`; and how many frames were timed."""
    frames = [[text.encode() for text in stream] for stream in streams if stream]
    count = sum(len(stream) for stream in frames)
    if not count:
        return 0.0, 0
    best = float("inf")
    for _ in range(rounds):
        sender, reader = socket.socketpair()
        sender.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)
        draining = threading.Thread(target=_drain, args=(reader,), daemon=True)
        draining.start()
        deflaters = [_deflater(compression) for _ in frames]
        began = time.thread_time()
        for stream, deflater in zip(frames, deflaters, strict=True):
            used = [deflater] if deflater is not None else []
            for data in stream:
                sender.sendall(Frame(Opcode.TEXT, data).serialize(mask=False,
                                                                  extensions=used))
        best = min(best, time.thread_time() - began)
        sender.close()
        draining.join(5)
        reader.close()
    return best / count, count
