"""The WebSocket transport's compression (`trusis serve --ws-compression`, transport.py).

A client offers permessage-deflate (every browser does); by default the server accepts it
with a 4 KiB window and tells the client to keep no context between its messages, which is
what halves the memory a connection costs (docs/architecture.md, "Capacity"); `off`
declines it. Either way a game plays the same: what a client reads does not change.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from serverplay import people
from serverproc import Guest, ServerProcess, act, hello, running_server


@pytest.fixture(scope="module", params=["default", "off"])
def server(request: pytest.FixtureRequest,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ServerProcess]]:
    extra = [] if request.param == "default" else ["--ws-compression", request.param]
    folder: Path = tmp_path_factory.mktemp(f"transport-{request.param}")
    with running_server("sqlite", folder, extra=extra) as proc:
        yield request.param, proc


def test_compression_is_negotiated_as_set_and_a_game_plays_the_same(
        server: tuple[str, ServerProcess]) -> None:
    setting, proc = server
    tab = people(proc, 5)
    try:
        for conn in tab.conns.values():
            offered = conn.ws.request.headers.get("Sec-WebSocket-Extensions", "")
            assert "permessage-deflate" in offered  # the client asks, as a browser does
            accepted = conn.ws.response.headers.get("Sec-WebSocket-Extensions", "")
            if setting == "off":
                assert accepted == ""
            else:
                assert accepted.startswith("permessage-deflate")
                assert "client_no_context_takeover" in accepted
                assert "server_max_window_bits=12" in accepted
        assert tab.play(2, do="vote", target=3)["type"] == "ack"
        tab.barrier()
        for seat, conn in tab.conns.items():
            cast = [e for e in conn.events if e["code"] == "vote_cast"]
            assert cast and cast[-1]["params"]["voter"] == 2, seat
    finally:
        tab.close()


def test_a_client_the_network_holds_back_gets_every_answer_in_order_once_it_reads_again(
        tmp_path: Path) -> None:
    """A frame goes out at once while the connection's write buffer has room and queues
    once it is full (clients.py, transport.DirectFrames); when the client reads again the
    queue drains and frames go out at once again. Nothing overtakes anything: every
    command's answer arrives, in the order the commands were sent. (The frame budget is
    off: the kernel's buffers take thousands of answers before anything queues, and this
    client sends them as fast as it can.)"""
    with running_server("sqlite", tmp_path,
                        extra=["--limit", "frames_per_socket_10s=0"]) as proc:
        held_back_then_read(proc)


def held_back_then_read(proc: ServerProcess) -> None:
    tab = people(proc, 5)
    watcher = Guest(proc.url, "Slow")
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a phone on a poor link
    sock.connect(("127.0.0.1", proc.port))
    ws = connect(f"{proc.ws_url}/ws/tables/{tab.id}", sock=sock, open_timeout=10,
                 additional_headers={"Authorization": f"Bearer {watcher.token}"},
                 max_queue=2, ping_interval=None, max_size=None,
                 compression=None)  # frames of full size: the buffers fill sooner
    try:
        ws.send(hello())
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        # Stop reading: the client's queue holds 2 frames, then its socket, then the
        # server's. Send commands until the server has to queue frames for it.
        sent = 0
        queued = 0
        # In steps far below the 500 queued messages that close a connection (1013): the
        # kernel's buffers took about 26,000 answers here, but may take far fewer.
        while queued == 0 and sent < 100_000:
            for _ in range(250):
                ws.send(act(f"c{sent}", do="pass"))
                sent += 1
            time.sleep(0.05)
            queued = health(proc)["send_queue"]
        assert queued > 0, "the connection's buffers never filled"
        # Read again: every answer, in order, then a ping's pong.
        ids: list[str] = []
        while len(ids) < sent:
            message = json.loads(ws.recv(timeout=15))
            if "id" in message:
                ids.append(message["id"])
        assert ids == [f"c{n}" for n in range(sent)]
        ws.send(json.dumps({"type": "ping"}))
        while json.loads(ws.recv(timeout=10))["type"] != "pong":
            pass
        assert health(proc)["send_queue"] == 0
    finally:
        ws.close()
        tab.close()


def health(proc: ServerProcess) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(f"{proc.url}/api/health", timeout=10).json()
    return answer
