"""Keepalive pings go only to a silent peer (`silent_socket_seconds`, inflow.PacedProtocol).

A connection lost with no close (a phone out of signal) must still be found: a WebSocket
that has sent nothing for the interval is pinged, and closed (1011) when no pong comes within
as long again. One that was heard from meanwhile is not pinged — at 1,000 tables the pings
of 10,000 connections were about a tenth of the event loop (issue 39). Played over bare
sockets, which answer no ping unless told to.
"""

from __future__ import annotations

import json
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rawsocket import ENDED, PING, connect, frame, frames
from serverproc import Guest, ServerProcess, running_server

INTERVAL = 1.0
CLOSE, PONG = 0x8, 0xA


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder: Path = tmp_path_factory.mktemp("keepalive")
    with running_server("sqlite", folder,
                        extra=["--limit", f"silent_socket_seconds={INTERVAL}"]) as proc:
        yield proc


def read_frames(sock: socket.socket, seconds: float,
                every: float | None = None) -> list[tuple[int, bytes]]:
    """(opcode, payload) of every frame the server sent within `seconds` (until its close);
    with `every`, an application `ping` message is sent that often, as a page does."""
    next_ping = [time.monotonic()]

    def idle() -> float:
        if every is None:
            return 3600.0
        now = time.monotonic()
        if now >= next_ping[0]:
            sock.sendall(frame(json.dumps({"type": "ping"}).encode()))
            next_ping[0] = now + every
        return next_ping[0] - now

    return [(opcode, payload) for opcode, payload in frames(sock, seconds, idle)
            if opcode != ENDED]


@pytest.fixture()
def table(server: ServerProcess) -> tuple[str, str]:
    host = Guest(server.url, "Host")
    return host.create(seats=5)["id"], host.token


def test_a_silent_connection_is_pinged_and_closed_when_no_pong_comes(
        server: ServerProcess, table: tuple[str, str]) -> None:
    table_id, token = table
    sock = connect(server, table_id, token)
    try:
        frames = read_frames(sock, INTERVAL * 6)
    finally:
        sock.close()
    opcodes = [opcode for opcode, _ in frames]
    assert PING in opcodes, opcodes
    assert opcodes[-1] == CLOSE, opcodes  # no pong: the connection is lost
    code = struct.unpack("!H", frames[-1][1][:2])[0]
    assert code == 1011, code


def test_a_connection_heard_from_is_not_pinged(
        server: ServerProcess, table: tuple[str, str]) -> None:
    """The page sends a `ping` message when it has heard nothing for a while: that is proof
    enough. Over four intervals, no protocol ping, and the connection stays open."""
    table_id, token = table
    sock = connect(server, table_id, token)
    try:
        frames = read_frames(sock, INTERVAL * 4, every=INTERVAL / 3)
    finally:
        sock.close()
    opcodes = [opcode for opcode, _ in frames]
    assert PING not in opcodes and CLOSE not in opcodes, opcodes
    pongs = [json.loads(payload) for opcode, payload in frames
             if opcode == 0x1 and b'"pong"' in payload]
    assert len(pongs) >= 6  # the application's pings were answered all along


def test_a_pinged_connection_that_answers_stays_open(
        server: ServerProcess, table: tuple[str, str]) -> None:
    """A pong is being heard from too: the next ping comes an interval after it."""
    table_id, token = table
    sock = connect(server, table_id, token)
    pinged = 0
    try:
        deadline = time.monotonic() + INTERVAL * 6
        while time.monotonic() < deadline:
            for opcode, payload in read_frames(sock, INTERVAL / 2):
                assert opcode != CLOSE, payload
                if opcode == PING:
                    pinged += 1
                    sock.sendall(frame(payload, opcode=PONG))
    finally:
        sock.close()
    assert 2 <= pinged <= 6, pinged
