"""The WebSocket transport's compression (`trusis serve --ws-compression`, transport.py).

A client offers permessage-deflate (every browser does); by default the server accepts it
with a 4 KiB window and tells the client to keep no context between its messages, which is
what halves the memory a connection costs (docs/architecture.md, "Capacity"); `off`
declines it. Either way a game plays the same: what a client reads does not change.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from serverplay import people
from serverproc import ServerProcess, running_server


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
