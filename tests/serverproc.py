"""A real `trusis serve` process for tests: a free port, a fresh database, and a client.

`ServerProcess` starts `python -m trusis serve` (uvicorn, as a user runs it) on
SQLite in a temporary folder, or on the machine's PostgreSQL in a database of
its own (`TRUSIS_TEST_POSTGRES`, default postgresql://postgres@127.0.0.1:5432/test
as the server to create it on). `kill()` is SIGKILL; `start()` again reuses the
same database, which is what crash tests need.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

POSTGRES = os.environ.get("TRUSIS_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def postgres_available() -> bool:
    try:
        import asyncpg  # noqa: F401
    except ImportError:  # pragma: no cover
        return False
    return _run(_pg_ping()) is True


async def _pg_ping() -> bool:
    import asyncpg

    try:
        conn = await asyncpg.connect(POSTGRES, timeout=3)
    except (TimeoutError, OSError, asyncpg.PostgresError):
        return False
    await conn.close()
    return True


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _pg_create(name: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


async def _pg_drop(name: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(POSTGRES)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


def new_database(kind: str, folder: Path) -> str:
    """A fresh database URL of `kind` ("sqlite" or "postgresql")."""
    if kind == "sqlite":
        return f"sqlite:///{folder / 'trusis.db'}"
    name = f"trusis_test_{secrets.token_hex(6)}"
    _run(_pg_create(name))
    base = POSTGRES.rsplit("/", 1)[0]
    return f"{base}/{name}"


def drop_database(url: str) -> None:
    if url.startswith("postgresql"):
        _run(_pg_drop(url.rsplit("/", 1)[1]))


def on_fresh_database(kind: str, folder: Path,
                      trial: Callable[[str], Coroutine[Any, Any, None]]) -> None:
    """Run `trial` on a fresh database of `kind` (skipped without PostgreSQL), dropped after."""
    if kind == "postgresql" and not postgres_available():
        pytest.skip("PostgreSQL is not available (TRUSIS_TEST_POSTGRES)")
    url = new_database(kind, folder)
    try:
        asyncio.run(trial(url))
    finally:
        drop_database(url)


class ServerProcess:
    """One `trusis serve` subprocess."""

    def __init__(self, database: str, bot_pace: float = 0.0, extra: list[str] | None = None,
                 log: Path | None = None) -> None:
        self.database = database
        self.port = free_port()
        self.bot_pace = bot_pace
        self.extra = extra or []
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120.0) -> None:
        """Start and wait until /api/health answers 200 (at once when the machine is idle;
        a loaded CI machine once took over 30 s, so the bound is generous)."""
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "trusis", "serve", "--port", str(self.port),
             "--database", self.database, "--bot-pace", str(self.bot_pace),
             "--log-level", "warning", *self.extra],
            stdout=out, stderr=subprocess.STDOUT, env=env,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"trusis serve exited with {self.proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/api/health", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise RuntimeError("trusis serve did not answer in time")

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, as a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextlib.contextmanager
def running_server(kind: str, folder: Path, **options: Any) -> Iterator[ServerProcess]:
    database = new_database(kind, folder)
    server = ServerProcess(database, **options)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        drop_database(database)


class Guest:
    """A signed-in guest over HTTP (bearer token), with helpers for the lobby."""

    def __init__(self, base: str, name: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=10)
        reply = self.http.post("/api/guest", json={"name": name})
        reply.raise_for_status()
        data = reply.json()
        self.id: str = data["player"]["id"]
        self.name = name
        self.token: str = data["token"]
        self.http.headers["Authorization"] = f"Bearer {self.token}"

    def create(self, **options: Any) -> dict[str, Any]:
        options.setdefault("name", "test table")
        reply = self.http.post("/api/tables", json=options)
        assert reply.status_code == 201, reply.text
        data: dict[str, Any] = reply.json()
        return data

    def sit(self, table_id: str, seat: int | None = None, invite: str | None = None) -> int:
        params = {"invite": invite} if invite else {}
        reply = self.http.post(f"/api/tables/{table_id}/seats", json={"seat": seat},
                               params=params)
        assert reply.status_code == 200, reply.text
        return int(reply.json()["seat"])

    def program(self, table_id: str, seat: int, name: str = "Robo") -> str:
        """The host hands `seat` to a program (D41: it answers for its maker): its token."""
        reply = self.http.post(f"/api/tables/{table_id}/seats/{seat}/program",
                               json={"name": name})
        assert reply.status_code == 200, reply.text
        return str(reply.json()["token"])

    def bots(self, table_id: str, count: int, kind: str = "heuristic") -> None:
        for _ in range(count):
            reply = self.http.post(f"/api/tables/{table_id}/bots", json={"kind": kind})
            assert reply.status_code == 200, reply.text

    def start(self, table_id: str) -> dict[str, Any]:
        reply = self.http.post(f"/api/tables/{table_id}/start")
        assert reply.status_code == 200, reply.text
        data: dict[str, Any] = reply.json()
        return data

    def close(self) -> None:
        self.http.close()


def hello(last_seq: int | None = None, lang: str = "en") -> str:
    return json.dumps({"type": "hello", "protocol": 1, "last_seq": last_seq, "lang": lang})


def act(client_id: str, **action: Any) -> str:
    return json.dumps({"type": "act", "id": client_id, "action": action})


class Player:
    """One WebSocket client (sync): sends commands, keeps every message, the view, the seq."""

    def __init__(self, server: ServerProcess, table_id: str, token: str,
                 last_seq: int | None = None, invite: str | None = None,
                 lang: str = "en", headers: dict[str, str] | None = None) -> None:
        from websockets.sync.client import connect

        query = f"?invite={invite}" if invite else ""
        self.ws = connect(f"{server.ws_url}/ws/tables/{table_id}{query}",
                          additional_headers=headers or {"Authorization": f"Bearer {token}"},
                          open_timeout=10).__enter__()
        self.messages: list[dict[str, Any]] = []
        self.frames: list[str] = []
        self.view: dict[str, Any] | None = None
        self.seq = 0
        self.events: list[dict[str, Any]] = []
        self.answers: dict[str, dict[str, Any]] = {}
        self.seat: int | None = None
        self._next = 0
        self.ws.send(hello(last_seq, lang))

    def _take(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        kind = message["type"]
        if kind == "welcome":
            self.seat = message["seat"]
        elif kind in ("snapshot", "events"):
            self.view = message["view"]
            if kind == "snapshot":
                self.events = list(message.get("events", []))
            else:
                self.events.extend(message["events"])
            self.seq = message["seq"]
        elif kind in ("ack", "refused"):
            self.answers[message["id"]] = message

    def pump(self, timeout: float = 0.05) -> bool:
        """Read one message if one comes within `timeout`; False when none came."""
        try:
            frame = self.ws.recv(timeout=timeout)
        except TimeoutError:
            return False
        text = frame if isinstance(frame, str) else frame.decode()
        self.frames.append(text)
        self._take(json.loads(text))
        return True

    def until(self, predicate: Any, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate(self):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; last view: {json.dumps(self.view)[:500]}")
            self.pump(0.2)

    def send(self, client_id: str | None = None, **action: Any) -> str:
        if client_id is None:
            self._next += 1
            client_id = f"c{self._next}-{secrets.token_hex(3)}"
        self.ws.send(act(client_id, **action))
        return client_id

    def command(self, timeout: float = 15.0, **action: Any) -> dict[str, Any]:
        """Send one action and wait for its one answer."""
        client_id = self.send(**action)
        self.until(lambda p: client_id in p.answers, timeout)
        return self.answers[client_id]

    def legal(self) -> dict[str, dict[str, Any]]:
        return {entry["do"]: entry for entry in (self.view or {}).get("legal", [])}

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()


def pass_to_the_end(server: ServerProcess, table_id: str, people: list[httpx.Client],
                    timeout: float = 120.0) -> None:
    """Each browser-like client (signed in by cookie) passes whenever it may, until every
    one of them has seen the game end."""
    from websockets.sync.client import connect

    sockets = [connect(f"{server.ws_url}/ws/tables/{table_id}", additional_headers={
        "Cookie": f"trusis_session={c.cookies.get('trusis_session')}"}).__enter__()
        for c in people]
    for ws in sockets:
        ws.send(hello())
    finished = [False] * len(sockets)
    deadline = time.monotonic() + timeout
    count = 0
    while not all(finished) and time.monotonic() < deadline:
        for i, ws in enumerate(sockets):
            try:
                message = json.loads(ws.recv(timeout=0.05))
            except TimeoutError:
                continue
            if message["type"] not in ("snapshot", "events"):
                continue
            view = message["view"]
            if view["status"] == "finished":
                finished[i] = True
            elif any(entry["do"] == "pass" for entry in view["legal"]):
                count += 1
                ws.send(act(f"p{count}", do="pass"))
    for ws in sockets:
        ws.close()
    assert all(finished), "the game did not end in time"
