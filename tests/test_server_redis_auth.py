"""Redis with a password (issue 17, docs/deploy.md "Running in public"): two `trusis serve`
processes on a Redis of the test's own started with `--requirepass` work together, given
the password in the URL (`redis://:password@host/0`, or `rediss://` for TLS); a wrong
password leaves the process unhealthy (503), and no log line ever shows the password.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from pathlib import Path

import httpx
import pytest

from clusterproc import RedisServer
from serverproc import (
    Guest,
    ServerProcess,
    drop_database,
    new_database,
    postgres_available,
)

pytestmark = pytest.mark.skipif(not postgres_available(), reason="no PostgreSQL")


def _health(server: ServerProcess) -> httpx.Response:
    return httpx.get(server.url + "/api/health", timeout=5)


def test_a_password_protected_redis_serves_two_processes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUSIS_SECRET", "the same secret on every process")
    password = secrets.token_urlsafe(24)
    redis = RedisServer(password)
    redis.start()
    database = new_database("postgresql", tmp_path)
    wrong = redis.url.replace(password, "not-the-password")
    servers = [ServerProcess(database, log=tmp_path / f"{name}.log",
                             extra=["--redis", url, "--node", name, "--lease-seconds", "2"])
               for name, url in (("a", redis.url), ("b", redis.url), ("c", wrong))]
    try:
        for server in servers[:2]:
            server.start()
        a, b, c = servers
        for server in (a, b):
            health = _health(server).json()
            assert health["ok"] and health["redis"] == "ok", health
        # Across the two: a table made through a, a seat taken and the game started
        # through b — b reaches the table's owner over the password-protected Redis.
        host = Guest(a.url, "Host")
        table = host.create(seats=5)
        guest = Guest(b.url, "Guest")
        guest.sit(table["id"])
        host.sit(table["id"])
        host.bots(table["id"], 3)
        started = guest.http.get(f"/api/tables/{table['id']}").json()
        assert len([s for s in started["seats"] if s]) == 5, started
        with pytest.raises(RuntimeError):  # refused by Redis: never healthy
            c.start(timeout=8)
        # Never 200: 503 for a while, or it stops. On a loaded machine the 8 s above can pass
        # before c even listens, so a refused connection is waited out (30 s at most).
        answers: list[int] = []
        deadline = time.monotonic() + 30
        while c.proc is not None and c.proc.poll() is None and time.monotonic() < deadline \
                and len(answers) < 10:
            with contextlib.suppress(httpx.TransportError):
                answers.append(_health(c).status_code)
            time.sleep(0.5)
        assert set(answers) <= {503}, answers
        assert answers or (c.proc is not None and c.proc.poll() is not None), "c never answered"
    finally:
        for server in servers:
            server.stop()
        redis.kill()
        drop_database(database)
    logs = "".join((tmp_path / f"{n}.log").read_text("utf-8", "replace") for n in "abc")
    assert password not in logs
