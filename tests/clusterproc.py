"""Two `trusis serve` processes on one PostgreSQL and a Redis of the test's own.

`two_processes` (a fixture) starts a Redis server on a spare port (so that a test can
kill and restart it), a fresh PostgreSQL database, and processes `a` and `b`
sharing both, with a short lease so that takeovers take about a second.

`cut_processes` is the same cluster with a fault-injecting proxy (faultproxy.py) on
each process's link to PostgreSQL and to Redis, so that a test can cut one process off
from either, as a network does, while the other carries on (issue 41): `links[i]` are
process i's `Links`. What a test reads as the truth goes straight to the database
(`Cluster.truth`), never through a link it may have cut.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from faultproxy import FaultProxy
from serverproc import ServerProcess, drop_database, free_port, new_database, postgres_available

needs_cluster = [
    pytest.mark.skipif(not postgres_available(), reason="needs the machine's PostgreSQL"),
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
]
"""Marks of a test that runs several processes: PostgreSQL and redis-server."""

LEASE = 2.0  # seconds: a takeover within a few of them
LONG_LEASE = 8.0
METRICS_TOKEN = "a metrics token for the cluster tests"


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
class Links:
    """One process's links, each through a proxy that can cut it."""

    database: FaultProxy
    redis: FaultProxy

    def heal(self) -> None:
        self.database.set("pass")
        self.redis.set("pass")


@dataclass
class Cluster:
    servers: list[ServerProcess]
    redis: RedisServer
    links: list[Links] = field(default_factory=list)
    database: str = ""

    def health(self, index: int) -> dict[str, Any]:
        data: dict[str, Any] = httpx.get(self.servers[index].url + "/api/health",
                                         timeout=5).json()
        return data

    @property
    def truth(self) -> ServerProcess:
        """A process never started, whose database is the real one: what the checks read."""
        return ServerProcess(self.database or self.servers[0].database)


@pytest.fixture
def two_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cluster]:
    yield from start_two_processes(tmp_path, monkeypatch, LEASE)


@pytest.fixture
def two_processes_long_lease(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                             ) -> Iterator[Cluster]:
    """A lease longer than a process takes to restart (as the default 5 s is)."""
    yield from start_two_processes(tmp_path, monkeypatch, LONG_LEASE)


@pytest.fixture
def cut_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cluster]:
    """Two processes whose links to PostgreSQL and Redis a test can cut (faultproxy.py)."""
    yield from start_two_processes(tmp_path, monkeypatch, LEASE, proxied=True)


def start_two_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                        lease: float, proxied: bool = False) -> Iterator[Cluster]:
    monkeypatch.setenv("TRUSIS_SECRET", "the same secret on every process")
    if proxied:  # their tests read /metrics too
        monkeypatch.setenv("TRUSIS_METRICS_TOKEN", METRICS_TOKEN)
    redis = RedisServer()
    redis.start()
    database = new_database("postgresql", tmp_path)
    links: list[Links] = []
    servers = []
    try:
        for name in ("a", "b"):
            database_url, redis_url = database, redis.url
            if proxied:
                postgres = urlsplit(database)
                link = Links(FaultProxy(postgres.port or 5432, postgres.hostname or "").start(),
                             FaultProxy(redis.port).start())
                links.append(link)
                database_url = database.replace(postgres.netloc.split("@")[-1],
                                                f"127.0.0.1:{link.database.port}")
                redis_url = f"redis://127.0.0.1:{link.redis.port}/0"
            servers.append(ServerProcess(database_url, bot_pace=0.0,
                                         log=tmp_path / f"{name}.log",
                                         extra=["--redis", redis_url, "--node", name,
                                                "--lease-seconds", str(lease)]))
        for server in servers:
            server.start()
        yield Cluster(servers, redis, links, database)
    finally:
        for link in links:  # healed first: a process stops cleanly, handing its games back
            link.heal()
        for server in servers:
            if server.proc is not None and server.proc.poll() is None:
                server.proc.send_signal(signal.SIGCONT)
            server.stop()
        for link in links:
            link.database.stop()
            link.redis.stop()
        redis.kill()
        drop_database(database)
