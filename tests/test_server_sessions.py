"""Sessions end when they should (issue 17): logout, registering, expiry, signing out
everywhere, a password change and a deleted account — on one process and across two, and
the open WebSockets of an ended session are closed (4401)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from clusterproc import Cluster, two_processes  # noqa: F401  (a fixture)
from serverplay import Conn
from serverproc import ServerProcess, free_port, running_server
from trusis.server.app import create_app
from trusis.server.config import Settings

PASSWORD = "a long passphrase"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("sessions")) as proc:
        yield proc


def browser(url: str, name: str) -> tuple[httpx.Client, str]:
    """A browser signed in as a guest (its cookie), and the bearer token it was given."""
    client = httpx.Client(base_url=url, timeout=10)
    reply = client.post("/api/guest", json={"name": name})
    assert reply.status_code == 200, reply.text
    return client, str(reply.json()["token"])


def me(url: str, token: str) -> int:
    return httpx.get(url + "/api/me", headers={"Authorization": f"Bearer {token}"},
                     timeout=10).status_code


def account(url: str, name: str) -> httpx.Client:
    client, _ = browser(url, name)
    assert client.post("/api/accounts", json={"name": name, "password": PASSWORD}
                       ).status_code == 201
    return client


def device(url: str, name: str, password: str = PASSWORD) -> httpx.Client:
    """Another browser where the account logs in."""
    client = httpx.Client(base_url=url, timeout=10)
    reply = client.post("/api/login", json={"name": name, "password": password})
    assert reply.status_code == 200, reply.text
    return client


def cookie_token(client: httpx.Client) -> dict[str, str]:
    return {"Cookie": f"trusis_session={client.cookies['trusis_session']}"}


def watching(server: ServerProcess, client: httpx.Client) -> Conn:
    """An open WebSocket of `client`'s session (its cookie), watching a table of its own."""
    table = client.post("/api/tables", json={"seats": 5})
    assert table.status_code == 201, table.text
    conn = Conn(server, table.json()["id"], "", headers=cookie_token(client))
    conn.until(lambda c: any(m["type"] == "welcome" for m in c.messages))
    return conn


def test_logout_ends_the_guests_bearer_token_too(server: ServerProcess) -> None:
    client, token = browser(server.url, "Ann")
    assert me(server.url, token) == 200
    assert client.post("/api/logout").status_code == 200
    assert me(server.url, token) == 401  # before: the bearer kept working after logout
    assert client.get("/api/me").status_code == 401


def test_a_logout_with_the_bearer_token_ends_the_cookie_too(server: ServerProcess) -> None:
    client, token = browser(server.url, "Bea")
    kept = dict(client.cookies)
    assert httpx.post(server.url + "/api/logout", headers={"Authorization": f"Bearer {token}"},
                      timeout=10).status_code == 200
    assert httpx.get(server.url + "/api/me", cookies=kept, timeout=10).status_code == 401


def test_registering_ends_the_guests_bearer_token(server: ServerProcess) -> None:
    client, token = browser(server.url, "Cid")
    assert client.post("/api/accounts", json={"name": "Cid", "password": PASSWORD}
                       ).status_code == 201
    assert me(server.url, token) == 401
    assert client.get("/api/me").json()["player"]["kind"] == "account"


def test_signing_out_everywhere_ends_every_session_and_closes_their_connections(
        server: ServerProcess) -> None:
    first = account(server.url, "Dee")
    second = device(server.url, "Dee")
    conn = watching(server, second)
    reply = first.post("/api/logout/everywhere")
    assert reply.status_code == 200, reply.text
    assert conn.wait_closed() == 4401
    for client in (first, second):
        assert client.get("/api/me").status_code == 401
    assert device(server.url, "Dee").get("/api/me").status_code == 200  # the password stays


def test_changing_the_password_needs_the_current_one_and_ends_the_other_sessions(
        server: ServerProcess) -> None:
    here = account(server.url, "Eve")
    there = device(server.url, "Eve")
    conn = watching(server, there)
    mine = watching(server, here)
    wrong = here.post("/api/password", json={"current": "not it at all", "password": "x" * 12})
    assert wrong.status_code == 403 and wrong.json()["code"] == "wrong_password"
    short = here.post("/api/password", json={"current": PASSWORD, "password": "short"})
    assert short.status_code == 422 and short.json()["code"] == "bad_password"
    assert there.get("/api/me").status_code == 200  # refusals changed nothing
    ok = here.post("/api/password", json={"current": PASSWORD, "password": "a new passphrase"})
    assert ok.status_code == 200, ok.text
    assert conn.wait_closed() == 4401
    assert there.get("/api/me").status_code == 401
    assert here.get("/api/me").status_code == 200  # this session stays, and its connection
    mine.barrier()
    mine.close()
    assert httpx.post(server.url + "/api/login", json={"name": "Eve", "password": PASSWORD},
                      timeout=10).status_code == 401
    device(server.url, "Eve", "a new passphrase")
    guest, _ = browser(server.url, "Fay")
    body = guest.post("/api/password", json={"current": "", "password": "x" * 12}).json()
    assert body["code"] == "no_password"


def test_the_current_password_cannot_be_guessed_through_a_session(
        server: ServerProcess) -> None:
    """Whoever holds a session (a borrowed phone) gets five wrong tries, not a guessing
    machine; the owner's right password still works after the window."""
    kim = account(server.url, "Kim")
    for n in range(5):
        wrong = kim.post("/api/password", json={"current": f"guess {n}", "password": "x" * 12})
        assert wrong.status_code == 403, wrong.text
    spent = kim.post("/api/password", json={"current": PASSWORD, "password": "x" * 12})
    assert spent.status_code == 429 and spent.json()["code"] == "too_many_attempts"
    assert spent.json()["params"]["retry_after"] > 800
    assert int(spent.headers["Retry-After"]) > 800  # HTTP says when, too
    # The tries are the session's: the owner's other session still changes the password.
    own = device(server.url, "Kim")
    changed = own.post("/api/password", json={"current": PASSWORD,
                                              "password": "a fresh passphrase"})
    assert changed.status_code == 200, changed.text


def test_tokens_expire_after_the_configured_lifetime(tmp_path: Path) -> None:
    # 0.0001 days: about 8.6 seconds (3.5 s could pass before the first reads on a loaded
    # machine, and the token was expired before it was seen valid).
    with running_server("sqlite", tmp_path, extra=["--token-days", "0.0001"]) as server:
        client, token = browser(server.url, "Gus")
        issued = time.monotonic()  # the token was issued before this
        assert me(server.url, token) == 200 and client.get("/api/me").status_code == 200
        time.sleep(max(0.0, issued + 9.0 - time.monotonic()))
        assert me(server.url, token) == 401
        assert client.get("/api/me").status_code == 401


def test_across_two_processes_a_logout_and_a_deletion_count_at_once(
        two_processes: Cluster) -> None:  # noqa: F811
    """Before: each process kept its own cache of tokens, with no expiry, so a token ended
    on one kept working on the other — a deleted account could still create a table."""
    a, b = two_processes.servers
    client, token = browser(a.url, "Hal")
    assert me(b.url, token) == 200  # known to b (the old cache held it from here on)
    assert client.post("/api/logout").status_code == 200
    assert me(b.url, token) == 401
    ida = account(a.url, "Ida")
    on_b = httpx.Client(base_url=b.url, timeout=10, cookies=ida.cookies)
    assert on_b.get("/api/me").status_code == 200
    conn = watching(b, on_b)  # a connection on process b
    assert ida.delete("/api/me").status_code == 200
    created = on_b.post("/api/tables", json={"seats": 5})
    assert created.status_code == 401, created.text
    assert conn.wait_closed() == 4401  # b closed it: told over Redis
    jon = account(a.url, "Jon")
    other = device(b.url, "Jon")
    conn = watching(a, other)  # b's session, connected to a
    assert jon.post("/api/logout/everywhere").status_code == 200
    assert other.get("/api/me").status_code == 401
    assert conn.wait_closed() == 4401


class InProcess:
    """The app under uvicorn in a thread of this process, so that a test can hold a room's
    lock from the server's own event loop (what a busy room does by itself)."""

    def __init__(self, tmp: Path) -> None:
        self.app = create_app(Settings(database_url=f"sqlite:///{tmp / 'trusis.db'}",
                                       secret="s" * 32))
        port = free_port()
        self.url, self.ws_url = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, port=port, log_level="warning"))
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self) -> None:
        self.loop = asyncio.get_running_loop()
        await self.server.serve()

    def __enter__(self) -> InProcess:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(20)

    def run(self, coroutine: Any) -> Any:
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(10)


def test_a_session_ended_while_its_socket_waits_for_a_busy_room_closes_it(
        tmp_path: Path) -> None:
    """Before: `welcome` left before the connection joined its room (which waits for the
    room's lock), so a logout in between missed it and the socket stayed open, signed in."""
    with InProcess(tmp_path) as server:
        client, _ = browser(server.url, "Lou")
        table = client.post("/api/tables", json={"seats": 5}).json()["id"]
        room = server.app.state.hub.rooms[table]
        server.run(room.lock.acquire())  # the room is busy (a write, a catch-up)
        try:
            conn = Conn(server, table, "", headers=cookie_token(client))  # type: ignore[arg-type]
            time.sleep(0.3)  # its hello has arrived; it waits for the lock
            assert client.post("/api/logout/everywhere").status_code == 200
        finally:
            assert server.loop is not None
            server.loop.call_soon_threadsafe(room.lock.release)
        assert conn.wait_closed() == 4401
