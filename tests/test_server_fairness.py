"""One connection's burst of frames does not hold up the others (api/websocket.py, transport.py).

Found on loopback: one client wrote 60,000 pings (1.2 MB) at once. One read of its socket
brought 256 KiB of them, uvicorn parsed and queued all 12,000 at once, and the server
answered them back to back: every other connection of the server waited 0.3-0.5 s for each
such read. Now a connection's input is parsed 16 KiB a turn of the event loop, and its
frames answered one a turn, so another client's ping is answered among the burst's.

The test counts rather than times: each `pong` carries the server's clock (`now`), the same
machine's as the client's, so the burst's pongs answered while the other client's ping
waited are those stamped between its sending and its own pong.
"""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

from serverproc import Guest, ServerProcess, hello, running_server
from trusis.server.connections.inflow import PIECE

BURST = 60_000
RECV_SECONDS = 15
UNBUDGETED = ["--limit", "frames_per_socket_10s=0"]
WENT_FIRST = 500
"""The burst's pongs that may come while another ping waits (the median of the other's pings:
the client's own threads may delay one send): one read of 256 KiB held 12,000 pings, a
16 KiB piece holds 780, and one frame a turn lets the other's through within a few."""


def masked_ping(size: int = 15) -> bytes:
    """`{"type":"ping"}` (spaces make up `size` bytes) as one masked text frame, as a
    client must send it (RFC 6455): 6 bytes of header, then the payload."""
    payload = b'{"type":"ping"' + b" " * (size - 15) + b"}"
    assert len(payload) == size <= 125
    mask = os.urandom(4)
    return bytes([0x81, 0x80 | len(payload)]) + mask + bytes(
        byte ^ mask[i % 4] for i, byte in enumerate(payload))


def open_conn(server: ServerProcess, table_id: str, token: str) -> ClientConnection:
    ws = connect(server.url.replace("http", "ws", 1) + f"/ws/tables/{table_id}",
                 additional_headers={"Authorization": f"Bearer {token}"},
                 compression=None, max_queue=None)
    ws.send(hello())
    return ws


def pongs(ws: ClientConnection, stamps: list[float], until: int) -> None:
    """Read until `until` pongs have come, keeping the server's time of each."""
    while len(stamps) < until:
        message: dict[str, Any] = json.loads(ws.recv(timeout=RECV_SECONDS))
        if message["type"] == "pong":
            stamps.append(message["now"])


def test_a_burst_of_pings_from_one_connection_does_not_hold_up_another(tmp_path: Path
                                                                       ) -> None:
    """With the frame budget off: 60,000 frames at once are 60 times its burst, and would be
    closed (4429, tests/test_server_frame_budget.py); an operator may raise it or turn it
    off, and the pacing must hold then too."""
    with running_server("sqlite", tmp_path, extra=UNBUDGETED) as server:
        ann, bob = Guest(server.url, "Ann"), Guest(server.url, "Bob")
        table_id = ann.create(seats=5)["id"]
        with open_conn(server, table_id, bob.token) as other, \
                open_conn(server, table_id, ann.token) as burst:
            burst_stamps: list[float] = []
            reader = threading.Thread(target=pongs, args=(burst, burst_stamps, BURST),
                                      daemon=True)
            reader.start()
            burst.socket.sendall(masked_ping() * BURST)
            waits: list[tuple[float, float]] = []  # (sent, answered) of the other's pings
            while reader.is_alive() and len(waits) < 200:
                sent = time.time()
                other.send(json.dumps({"type": "ping"}))
                mine: list[float] = []
                pongs(other, mine, 1)
                waits.append((sent, mine[0]))
            reader.join(120)
            assert len(burst_stamps) == BURST  # every ping of the burst was answered
            during = [(sent, answered) for sent, answered in waits
                      if burst_stamps[0] < sent and answered < burst_stamps[-1]]
            assert len(during) >= 3, "the burst was over before the other client's pings"
            went_first = sorted(sum(1 for stamp in burst_stamps if sent <= stamp <= answered)
                                for sent, answered in during)
            middle = statistics.median(went_first)
            print(f"fairness: {len(during)} pings during the burst; {middle:g} of its "
                  f"{BURST} answers went first (median), {went_first[-1]} at most")
            assert middle <= WENT_FIRST, f"{middle:g} of the burst's answers went first"


def test_a_frame_cut_where_a_piece_ends_is_read_once_the_rest_comes(tmp_path: Path) -> None:
    """Whole frames up to exactly one piece (16 KiB), then the first bytes of one more: when
    one read brings them all, the last piece holds no whole frame, nothing is queued for the
    app, and reading must go on by itself (it stayed paused, and the connection hung). A
    real socket may split the read; tests/test_server_transport_feed.py makes it exact."""
    whole = [masked_ping() for _ in range(775)]
    used = sum(len(frame) for frame in whole)
    whole.append(masked_ping(PIECE - used - 6))
    assert sum(len(frame) for frame in whole) == PIECE
    cut = masked_ping()
    with running_server("sqlite", tmp_path) as server:
        ann = Guest(server.url, "Ann")
        table_id = ann.create(seats=5)["id"]
        with open_conn(server, table_id, ann.token) as conn:
            stamps: list[float] = []
            conn.socket.sendall(b"".join(whole) + cut[:5])
            pongs(conn, stamps, len(whole))
            conn.socket.sendall(cut[5:])
            pongs(conn, stamps, len(whole) + 1)  # recv times out if it hangs
            assert len(stamps) == len(whole) + 1
