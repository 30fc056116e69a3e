"""What `trusis serve` says when it is ready: an address the host can send to friends.

With `--host 0.0.0.0` it said only "open http://localhost:PORT/", and a host who followed it
sent friends table links at localhost, which open on nobody else's computer."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from serverproc import free_port
from trusis.server.cli import network_address


def _ready_line(tmp_path: Path, host: str) -> str:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "trusis", "serve", "--host", host, "--port", str(port),
         "--database", f"sqlite:///{tmp_path / 'ready.db'}"],
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
