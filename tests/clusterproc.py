"""Two `trusis serve` processes on one PostgreSQL and a Redis of the test's own.

`two_processes` (a fixture) starts a Redis server on a spare port (so that a test can
kill and restart it), a fresh PostgreSQL database, and processes `a` and `b`
sharing both, with a short lease so that takeovers take about a second.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverproc import ServerProcess, drop_database, free_port, new_database

LEASE = 2.0  # seconds: a takeover within a few of them
LONG_LEASE = 8.0


class RedisServer:
    """A Redis of the test's own, on a spare port, that keeps nothing on disk."""

    def __init__(self, password: str | None = None) -> None:
        self.port = free_port()
        self.password = password  # `--requirepass`, as docs/deploy.md asks in public
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> None:
        secret = ["--requirepass", self.password] if self.password else []
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", *secret], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        env = dict(os.environ, REDISCLI_AUTH=self.password or "")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True,
                              check=False, env=env).stdout.strip() == b"PONG":
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)


@dataclass
class Cluster:
    servers: list[ServerProcess]
    redis: RedisServer

    def health(self, index: int) -> dict[str, Any]:
        data: dict[str, Any] = httpx.get(self.servers[index].url + "/api/health",
                                         timeout=5).json()
        return data


@pytest.fixture
def two_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cluster]:
    yield from start_two_processes(tmp_path, monkeypatch, LEASE)


@pytest.fixture
def two_processes_long_lease(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                             ) -> Iterator[Cluster]:
    """A lease longer than a process takes to restart (as the default 5 s is)."""
    yield from start_two_processes(tmp_path, monkeypatch, LONG_LEASE)


def start_two_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                        lease: float) -> Iterator[Cluster]:
    monkeypatch.setenv("TRUSIS_SECRET", "the same secret on every process")
    redis = RedisServer()
    redis.start()
    database = new_database("postgresql", tmp_path)
    servers = [ServerProcess(database, bot_pace=0.0, log=tmp_path / f"{name}.log",
                             extra=["--redis", redis.url, "--node", name,
                                    "--lease-seconds", str(lease)])
               for name in ("a", "b")]
    try:
        for server in servers:
            server.start()
        yield Cluster(servers, redis)
    finally:
        for server in servers:
            if server.proc is not None and server.proc.poll() is None:
                server.proc.send_signal(signal.SIGCONT)
            server.stop()
        redis.kill()
        drop_database(database)
