"""DNS rebinding (issue 38): a page of another site whose name resolves to this server sends
its own name as the Host, and its own Origin with it. Every request over HTTP and every
WebSocket names a Host the server answers to (api/guard.py; docs/deploy.md, "Host names").
Against a real `trusis serve`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import rawsocket
from serverproc import Guest, ServerProcess, new_database


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    running = ServerProcess(new_database("sqlite", tmp_path), extra=[
        "--allowed-host", "play.example.org", "--allowed-host", ".friends.example",
        "--public-url", "https://trusis.example.net"])
    running.start()
    try:
        yield running
    finally:
        running.stop()


def test_a_host_the_server_does_not_answer_to_is_refused_over_http_and_websocket(
        server: ServerProcess) -> None:
    """The round's probe reached the API with `Host: rebound.attacker.example`, where the
    WebSocket refused it. Addresses, localhost and the configured names pass."""
    port = server.port
    guest = Guest(server.url, "Ann")
    table = guest.create(seats=5)
    for host in ("rebound.attacker.example", f"rebound.attacker.example:{port}",
                 "example.org", "friends.example.evil"):
        for method, path in (("GET", "/api/tables"), ("POST", "/api/guest"), ("GET", "/")):
            answer = httpx.request(method, server.url + path, headers={"Host": host},
                                   json={"name": "Eve"} if method == "POST" else None,
                                   timeout=10)
            assert answer.status_code == 421, (host, path, answer.text)
            assert answer.json()["code"] == "host_not_allowed"
            assert "default-src 'self'" in answer.headers["content-security-policy"]
        sock = rawsocket.connect(server, table["id"], guest.token, host=host)
        assert rawsocket.close_code(sock) == 4403
        sock.close()
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "localhost",
                 f"ann.localhost:{port}", "PLAY.example.org", "play.example.org.",
                 "friends.example", "a.friends.example:443", "trusis.example.net"):
        answer = httpx.get(server.url + "/api/tables", headers={"Host": host}, timeout=10)
        assert answer.status_code == 200, (host, answer.text)
    sock = rawsocket.connect(server, table["id"], guest.token, host=f"localhost:{port}")
    assert rawsocket.close_code(sock, timeout=2) == "open"
    sock.close()
