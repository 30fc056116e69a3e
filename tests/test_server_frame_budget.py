"""Every frame a connection sends counts against its budget (inflow.py, `PacedProtocol`).

Found by an attacker's trial: one connection sent a text frame with FIN=0, then empty
continuation frames without end — 5.4 million frames accepted in 15 s, 86 % of a core, and
the message never completed, so nothing closed it; eight such connections from one address
made a bystander's `GET /api/tables` take a median 134 ms instead of 1.6 ms. Protocol-level
pings without end did the same. Pacing (16 KiB a turn) bounded how much of the loop one
connection held per turn, not for how long.

Now each frame, of any kind, spends one of the connection's budget (`frames_per_socket_10s`:
1,000 at once, then 100 a second), and a message comes in 16 frames at most
(`fragments_per_message`); past either the connection is closed with 4429 and the server
says so once in its log. A client that sends what a browser or a program sends is never
near either.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rawsocket import CONT, PING, TEXT, close_code, connect, frame
from serverproc import Guest, Player, ServerProcess, running_server

PROMPTLY = 5.0
"""Seconds within which a flood is closed (the attacker's ran for 15 s, unclosed)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("frames")
    with running_server("sqlite", folder, log=folder / "server.log") as proc:
        yield proc


@pytest.fixture(scope="module")
def table(server: ServerProcess) -> Iterator[tuple[str, Guest]]:
    host = Guest(server.url, "Flooded")
    yield host.create(seats=5)["id"], host
    host.close()


def flood(sock: socket.socket, batch: bytes) -> tuple[int | str, float, int]:
    """Send `batch` again and again while a thread reads: the close code the server sent,
    the seconds it took, and the frames sent until then."""
    result: list[int | str] = []
    reader = threading.Thread(target=lambda: result.append(close_code(sock, 15)),
                              daemon=True)
    reader.start()
    began, sent = time.monotonic(), 0
    per_batch = batch.count(batch[:2])  # every frame of a batch has the same head
    while reader.is_alive() and time.monotonic() - began < 15:
        try:
            sock.sendall(batch)
        except OSError:  # the server closed it: the reader has its code, or will
            break
        sent += per_batch
    reader.join(15)
    return (result[0] if result else "open"), time.monotonic() - began, sent


def refusals(server: ServerProcess) -> list[str]:
    assert server.log is not None
    return [line for line in server.log.read_text("utf-8", "replace").splitlines()
            if "was closed (4429)" in line]


def refused_since(server: ServerProcess, before: int, timeout: float = 15.0) -> list[str]:
    """The refusals logged after the first `before`, once there is one (the log line is
    written after the close; on a loaded machine 0.3 s was not always enough)."""
    deadline = time.monotonic() + timeout
    while not refusals(server)[before:] and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.3)  # a second line, which must not come, would come about now
    return refusals(server)[before:]


def test_an_endless_message_of_empty_fragments_is_closed(
        server: ServerProcess, table: tuple[str, Guest]) -> None:
    table_id, host = table
    before = len(refusals(server))
    player = Player(server, table_id, host.token)  # a normal client beside it
    sock = connect(server, table_id, host.token)
    try:
        sock.sendall(frame(b"[", TEXT, fin=False))
        code, took, sent = flood(sock, frame(b"", CONT, fin=False) * 2000)
        assert code == 4429 and took < PROMPTLY, (code, took, sent)
        assert player.command(do="pass")["type"] in ("refused", "ack")
        lines = refused_since(server, before)
        assert len(lines) == 1 and "message in more than 16 frames" in lines[0], lines
    finally:
        sock.close()
        player.close()


def test_pings_without_end_are_closed(server: ServerProcess,
                                      table: tuple[str, Guest]) -> None:
    table_id, host = table
    before = len(refusals(server))
    sock = connect(server, table_id, host.token)
    try:
        code, took, sent = flood(sock, frame(b"", PING) * 2000)
        assert code == 4429 and took < PROMPTLY, (code, took, sent)
        lines = refused_since(server, before)
        assert len(lines) == 1 and "too many frames" in lines[0], lines
    finally:
        sock.close()


def test_a_message_in_a_few_fragments_is_read_and_in_too_many_is_closed(
        server: ServerProcess, table: tuple[str, Guest]) -> None:
    table_id, host = table
    sock = connect(server, table_id, host.token)
    try:
        pieces = [b'{"type":', b'"ping"', b"}"]
        sock.sendall(frame(pieces[0], TEXT, fin=False) + frame(pieces[1], CONT, fin=False)
                     + frame(b"", PING)  # a control frame may come between them
                     + frame(pieces[2], CONT))
        sock.settimeout(5)
        seen = b""
        while b'"pong"' not in seen:
            chunk = sock.recv(65536)
            assert chunk, "closed"
            seen += chunk
        sixteen = frame(b"[", TEXT, fin=False) + frame(b" ", CONT, fin=False) * 14 \
            + frame(b"]", CONT)
        sock.sendall(sixteen)  # 16 frames: a malformed message, answered with an error
        seventeen = frame(b"[", TEXT, fin=False) + frame(b" ", CONT, fin=False) * 16
        sock.sendall(seventeen)
        assert close_code(sock, PROMPTLY) == 4429
    finally:
        sock.close()


def test_a_burst_that_a_program_might_send_is_answered_whole(
        server: ServerProcess, table: tuple[str, Guest]) -> None:
    """Hundreds of frames at once (a program's commands sent again after a reconnection,
    its pings as barriers) are far within the budget."""
    table_id, host = table
    player = Player(server, table_id, host.token)
    try:
        player.until(lambda p: any(m["type"] == "welcome" for m in p.messages), 10)
        for _ in range(300):
            player.ws.send(json.dumps({"type": "ping"}))
        player.until(lambda p: sum(m["type"] == "pong" for m in p.messages) == 300, 15)
    finally:
        player.close()



def test_the_connections_of_one_address_share_a_frame_budget(tmp_path: Path) -> None:
    """An attacker's third trial: 296 connections of one address, each sending 90 pings a
    second — under its own budget — were 26,640 frames a second, and another visitor's
    requests took a median 135 ms. The frames of one address's connections now spend a
    budget of the address too (`frames_per_address_10s`, set small here); a connection that
    finds it spent is closed with 4429. Another address, and a trusted proxy's (127.0.0.1:
    the proxy bounds its own), keep theirs."""
    with running_server("sqlite", tmp_path, log=tmp_path / "server.log", extra=[
            "--limit", "frames_per_address_10s=200"]) as server:
        host = Guest(server.url, "Crowded")
        table_id = host.create(seats=5)["id"]
        guests = [Guest(server.url, f"Pinger {n}") for n in range(4)]
        socks = [connect(server, table_id, g.token, source="127.0.0.2") for g in guests]
        codes: list[int | str] = []
        try:
            for sock in socks:  # 4 x 80 frames: each under its own 1,000, together over 200
                with contextlib.suppress(OSError):
                    sock.sendall(b"".join(frame(b"", PING) for _ in range(80)))
            codes = [close_code(sock, PROMPTLY) for sock in socks]
        finally:
            for sock in socks:
                sock.close()
        assert 4429 in codes, codes
        assert any("this address" in line for line in refusals(server)), refusals(server)
        other = connect(server, table_id, host.token, source="127.0.0.3")
        try:  # another address: its own budget
            other.sendall(b"".join(frame(b"", PING) for _ in range(150)))
            assert close_code(other, 2.0) == "open"
        finally:
            other.close()
        proxied = connect(server, table_id, host.token)  # the trusted proxy's address
        try:
            proxied.sendall(b"".join(frame(b"", PING) for _ in range(250)))
            assert close_code(proxied, 2.0) == "open"
        finally:
            proxied.close()
        for g in (host, *guests):
            g.close()
