"""Clients that never read are cut, and what waited for them is freed (clients.py,
transport.py `DirectFrames.cut`).

Found by an attacker's trial: 296 spectator WebSockets from one address sent `hello` and
never read again, while their host added and removed a bot in a loop. Each change sent each
of them an 8 KB `table` frame; 500 queued for each, the server's memory went from 124 MB to
1.3 GB and stayed there, and none was ever closed: the close (1013) was queued behind the
500 frames, its writer waited for a network that never took them, and the read loop noticed
nothing until the client sent something. A seated player's connection stayed "connected"
as long as its TCP connection did, so its seat's grace never began.

Now a `table` frame still waiting is replaced by the next (the lobby's state, not events),
a client whose socket takes nothing for `send_stall_seconds` (3 s here) or whose queue
overflows is cut at once, and a client that reads is served as before.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from rawsocket import close_code
from rawsocket import connect as raw_connect
from serverproc import Guest, ServerProcess, hello, running_server

STALL = 3
SEATS = 30
NEVER_READ = 16  # two watchers, 8 sockets each (`sockets_per_table`)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerProcess]:
    # Through the environment, which a server without the setting ignores: the same test
    # shows the bug there.
    monkeypatch.setenv("TRUSIS_LIMIT_SEND_STALL_SECONDS", str(STALL))
    with running_server("sqlite", tmp_path) as proc:
        yield proc


def health(server: ServerProcess) -> dict[str, Any]:
    answer: dict[str, Any] = httpx.get(f"{server.url}/api/health", timeout=10).json()
    return answer


class Reader:
    """A client that reads all the time (a thread): the last `table` it was sent."""

    def __init__(self, server: ServerProcess, table_id: str, token: str) -> None:
        self.ws: ClientConnection = connect(
            f"{server.ws_url}/ws/tables/{table_id}", open_timeout=10,
            additional_headers={"Authorization": f"Bearer {token}"}).__enter__()
        self.ws.send(hello())
        self.table: dict[str, Any] | None = None
        self.tables = 0
        self.pongs = 0
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for text in self.ws:
                message = json.loads(text)
                if message["type"] == "table":
                    self.table = message["table"]
                    self.tables += 1
                elif message["type"] == "pong":
                    self.pongs += 1
        except ConnectionClosed:
            pass

    def ping(self, timeout: float = 5.0) -> float:
        """Seconds until a `ping` is answered."""
        before, sent = self.pongs, time.monotonic()
        self.ws.send(json.dumps({"type": "ping"}))
        while self.pongs == before:
            assert time.monotonic() - sent < timeout, "no pong"
            time.sleep(0.01)
        return time.monotonic() - sent


def test_clients_that_never_read_are_cut_while_a_reader_is_served(
        server: ServerProcess) -> None:
    host = Guest(server.url, "H" + "😀" * 31)
    table_id = host.create(seats=SEATS, name="🎲" * 80)["id"]
    host.sit(table_id, 1)
    for seat in range(2, SEATS):
        assert host.http.post(f"/api/tables/{table_id}/bots",
                              json={"seat": seat}).status_code == 200
    watchers = [Guest(server.url, f"W{i}" + "😈" * 29) for i in range(NEVER_READ // 8)]
    silent = [raw_connect(server, table_id, host.token, receive_buffer=2048)]  # seat 1
    silent += [raw_connect(server, table_id, watchers[i // 8].token, receive_buffer=2048)
               for i in range(NEVER_READ)]
    reader = Reader(server, table_id, Guest(server.url, "Reader").token)
    try:
        deadline = time.monotonic() + 10
        while health(server)["clients"] < len(silent) + 1:
            assert time.monotonic() < deadline, "the clients did not all join"
            time.sleep(0.1)
        # The host changes the lobby as fast as the server answers: a bot in seat 30, then
        # not. The clients that never read fall behind once their buffers are full.
        changes = 0
        behind_since: float | None = None
        flood_until = time.monotonic() + 90
        while time.monotonic() < flood_until:
            for _ in range(20):
                assert host.http.post(f"/api/tables/{table_id}/bots",
                                      json={"seat": SEATS}).status_code == 200
                assert host.http.delete(
                    f"/api/tables/{table_id}/seats/{SEATS}").status_code == 200
                changes += 2
            now = health(server)
            if behind_since is None and now["send_queue"] > 0:
                behind_since = time.monotonic()
            if now["clients"] == 1:
                break  # every client that never reads is gone: the reader is left
            if behind_since is not None:
                assert time.monotonic() - behind_since < STALL + 20, (
                    f"after {changes} changes, the clients that never read are still "
                    f"there: {now}")
        assert behind_since is not None, f"{changes} changes, and nobody fell behind"
        # Cut and freed: their queues, their places, and the host's seat is disconnected.
        figures = health(server)
        assert figures["clients"] == 1 and figures["send_queue"] == 0, figures
        assert figures.get("send_queue_bytes", 0) == 0, figures
        for sock in silent:
            assert close_code(sock, 10) in (1013, "eof", "reset")
        assert reader.ping() < 2.0  # the reader is served still
        deadline = time.monotonic() + 15
        while reader.table is None or reader.table["seats"][0]["connected"]:
            assert time.monotonic() < deadline, reader.table and reader.table["seats"][0]
            time.sleep(0.05)
        # ...and it read the lobby as it is now, not as it was.
        final = host.http.get(f"/api/tables/{table_id}").json()
        assert len(reader.table["seats"]) == len(final["seats"])
        assert reader.tables >= 1
    finally:
        reader.ws.close()
        for sock in silent:
            sock.close()
        for guest in [host, *watchers]:
            guest.close()
