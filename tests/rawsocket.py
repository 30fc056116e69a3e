"""A WebSocket client of bare sockets, for tests that must send what no library sends (a
message of endless fragments, pings without end) or never read what the server sends.

`connect` makes the upgrade and (by default) sends `hello`; `frame` builds one masked
frame, as a client must send it (RFC 6455); `close_code` reads the server's frames until
its close frame, or the end of the connection.
"""

from __future__ import annotations

import base64
import os
import socket
import struct
import time
from collections.abc import Callable, Iterator

from serverproc import ServerProcess, hello

TEXT, CONT, PING = 0x1, 0x0, 0x9


def frame(payload: bytes, opcode: int = TEXT, fin: bool = True) -> bytes:
    """One masked frame."""
    mask = os.urandom(4)
    first = (0x80 if fin else 0) | opcode
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", first, 0x80 | size)
    elif size < 65536:
        head = struct.pack("!BBH", first, 0x80 | 126, size)
    else:
        head = struct.pack("!BBQ", first, 0x80 | 127, size)
    return head + mask + bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))


def connect(server: ServerProcess, table_id: str, token: str, receive_buffer: int = 0,
            send_hello: bool = True, source: str | None = None,
            host: str | None = None) -> socket.socket:
    """An upgraded connection (no compression offered), `hello` sent; `receive_buffer`: a
    small SO_RCVBUF, for a client that reads nothing and should hold little; `source`: the
    loopback address it comes from (127.0.0.1, the default, is a trusted proxy's); `host`:
    the Host header (the server's address by default)."""
    sock = socket.socket()
    if source is not None:
        sock.bind((source, 0))
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", server.port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws/tables/{table_id} HTTP/1.1\r\n"
                  f"Host: {host or f'127.0.0.1:{server.port}'}\r\n"
                  "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                  f"Authorization: Bearer {token}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: nothing after the head is taken from the socket
        if not chunk:
            raise ConnectionError("closed during the upgrade")
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    if send_hello:
        sock.sendall(frame(hello().encode()))
    return sock


def next_frame(data: bytes) -> tuple[int, bytes, bytes] | None:
    """The first whole frame the server sent in `data` (unmasked): its opcode, its payload
    and what follows it; None until it has all come."""
    if len(data) < 2:
        return None
    opcode, size, start = data[0] & 0x0F, data[1] & 0x7F, 2
    if size == 126:
        if len(data) < 4:
            return None
        size, start = struct.unpack("!H", data[2:4])[0], 4
    elif size == 127:
        if len(data) < 10:
            return None
        size, start = struct.unpack("!Q", data[2:10])[0], 10
    if len(data) < start + size:
        return None
    return opcode, data[start:start + size], data[start + size:]


ENDED = -1
"""The opcode of `frames`' last item when the connection ended without a close frame, or
the time ran out: its payload says which (b"eof", b"reset", b"open")."""


def frames(sock: socket.socket, seconds: float,
           idle: Callable[[], float] | None = None) -> Iterator[tuple[int, bytes]]:
    """(opcode, payload) of each frame the server sends within `seconds`, until its close
    frame (the last one given) or an `ENDED` item. `idle`, when given, is called whenever
    nothing is waiting to be read and says how long to wait before calling it again (a
    client that sends something now and then)."""
    deadline = time.monotonic() + seconds
    data = b""
    while True:
        while (found := next_frame(data)) is not None:
            opcode, payload, data = found
            yield opcode, payload
            if opcode == 0x8:
                return
        left = deadline - time.monotonic()
        if left <= 0:
            yield ENDED, b"open"
            return
        sock.settimeout(max(0.01, min(left, idle()) if idle is not None else left))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            continue
        except ConnectionResetError:
            yield ENDED, b"reset"
            return
        if not chunk:
            yield ENDED, b"eof"
            return
        data += chunk


def close_code(sock: socket.socket, timeout: float = 10.0) -> int | str:
    """The code of the server's close frame; "eof" or "reset" if the connection ended
    without one, "open" if nothing ended it within `timeout`."""
    deadline = time.monotonic() + timeout
    data = b""
    while True:
        while (found := next_frame(data)) is not None:
            opcode, payload, data = found
            if opcode == 0x8:
                code: int = struct.unpack("!H", payload[:2])[0]
                return code
        left = deadline - time.monotonic()
        if left <= 0:
            return "open"
        sock.settimeout(left)
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            return "open"
        except ConnectionResetError:
            return "reset"
        if not chunk:
            return "eof"
        data += chunk
