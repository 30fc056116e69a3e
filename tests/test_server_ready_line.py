"""What `trusis serve` says when it is ready: an address the host can send to friends.

With `--host 0.0.0.0` it said only "open http://localhost:PORT/", and a host who followed it
sent friends table links at localhost, which open on nobody else's computer."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from clusterproc import RedisServer
from serverproc import drop_database, free_port, new_database, postgres_available
from trusis.server.cli import network_address


def _ready_line(tmp_path: Path, host: str, *extra: str) -> str:
    port = free_port()
    database = [] if "--database" in extra else [
        "--database", f"sqlite:///{tmp_path / 'ready.db'}"]
    process = subprocess.Popen(
        [sys.executable, "-m", "trusis", "serve", "--host", host, "--port", str(port),
         *database, *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if "Trusis is ready" in line:
                return line
        raise AssertionError("never ready")
    finally:
        process.terminate()
        process.wait(timeout=20)


def test_listening_on_every_address_names_one_for_the_network(tmp_path: Path) -> None:
    line = _ready_line(tmp_path, "0.0.0.0")
    assert "localhost" in line  # for the host's own browser
    if network_address() is None:
        pytest.skip("this machine has no network address")
    found = re.findall(r"http://([\d.]+):\d+/", line)
    assert found and not any(a.startswith("127.") for a in found), line
    assert "network" in line, line


def test_listening_on_loopback_says_only_this_computer_reaches_it(tmp_path: Path) -> None:
    line = _ready_line(tmp_path, "127.0.0.1")
    assert "only this computer" in line and "--host 0.0.0.0" in line, line


@pytest.mark.skipif(not postgres_available(), reason="no PostgreSQL at TRUSIS_TEST_POSTGRES")
def test_one_of_several_processes_names_where_it_listens_and_sends_players_to_the_proxy(
        tmp_path: Path) -> None:
    """An operator's trial: with --redis (several processes behind a load balancer) the line
    said "Friends on your network open http://192.0.2.2:8882/", an address behind the
    proxy that players must not be sent to. It says where this process listens, for the
    proxy, and that players open the proxy's public address."""
    redis = RedisServer()
    redis.start()
    database = new_database("postgresql", tmp_path)
    try:
        line = _ready_line(tmp_path, "0.0.0.0", "--database", database, "--redis", redis.url)
        assert "this process listens on port" in line and "every address" in line, line
        assert "proxy's public address" in line, line
        assert "Friends" not in line and "localhost" not in line, line
        line = _ready_line(tmp_path, "127.0.0.1", "--database", database, "--redis",
                           redis.url)
        assert re.search(r"listens on http://127\.0\.0\.1:\d+/", line), line
        assert "only this computer" not in line and "proxy's public address" in line, line
    finally:
        redis.kill()
        drop_database(database)
