"""Logins and passwords in public (issue 17, "Accounts"), on both databases, against a real
`trusis serve`: concurrent guesses counted atomically, no lock-out of an owner coming
from elsewhere, hashing off the event loop, per-address budgets, weak passwords refused.

Each test speaks from addresses of its own: uvicorn trusts `X-Forwarded-For` from
127.0.0.1 by default (the tests' own proxy), so the server counts them apart
(docs/deploy.md, "Behind a proxy").
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from serverproc import ServerProcess, postgres_available, running_server
from trusis.server.limits.logins import ADDRESS_LOGINS, PAIR_FIRST_DELAY, PAIR_FREE, REGISTRATIONS
from trusis.server.players.passwords import HASHER, QUEUE

KINDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(
    not postgres_available(), reason="no PostgreSQL at TRUSIS_TEST_POSTGRES"))]
PASSWORD = "a long password"
_A_HASH = HASHER.hash(PASSWORD)  # what a login verifies, made once


@pytest.fixture(scope="module", params=KINDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[ServerProcess]:
    with running_server(request.param, tmp_path_factory.mktemp("logins")) as running:
        yield running


def address() -> str:
    """A fresh client address, as a trusted proxy would name it."""
    return f"10.{secrets.randbelow(256)}.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"


def client(server: ServerProcess, at: str) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=60, headers={"X-Forwarded-For": at})


def register(server: ServerProcess, password: str = PASSWORD) -> str:
    name = f"P{secrets.token_hex(4)}"
    with client(server, address()) as http:
        reply = http.post("/api/accounts", json={"name": name, "password": password})
    assert reply.status_code == 201, reply.text
    return name


async def _logins(server: ServerProcess, tries: list[tuple[str, str, str]]
                  ) -> list[httpx.Response]:
    """(address, name, password) tries, all sent at once."""
    async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
        return list(await asyncio.gather(*[
            http.post("/api/login", json={"name": name, "password": password},
                      headers={"X-Forwarded-For": at})
            for at, name, password in tries]))


def test_forty_simultaneous_guesses_get_five_checked_and_no_500(server: ServerProcess) -> None:
    """Check-and-count is one statement: 40 guesses sent together from one address are
    5 checked (401) and 35 refused (429), never a 500 ("database is locked")."""
    name = register(server)
    at = address()
    replies = asyncio.run(_logins(server, [(at, name, f"guess {i}") for i in range(40)]))
    codes = Counter(r.status_code for r in replies)
    assert codes == {401: PAIR_FREE, 429: 40 - PAIR_FREE}, codes
    refused = [r.json() for r in replies if r.status_code == 429]
    assert {r["code"] for r in refused} == {"too_many_attempts"}
    assert all(r["params"]["retry_after"] >= 1 for r in refused)


def test_guesses_from_elsewhere_never_lock_the_owner_out(server: ServerProcess) -> None:
    """Failures slow down one account *from one address*: the attacker waits longer and
    longer, the owner at home signs in at once."""
    name = register(server)
    with client(server, address()) as attacker:
        codes = [attacker.post("/api/login", json={"name": name, "password": f"guess {i}"})
                 for i in range(PAIR_FREE + 1)]
        assert [r.status_code for r in codes] == [401] * PAIR_FREE + [429]
        wait = codes[-1].json()["params"]["retry_after"]
        assert PAIR_FIRST_DELAY - 5 <= wait <= PAIR_FIRST_DELAY + 1
        # Even the right password waits from the attacker's address.
        assert attacker.post("/api/login", json={"name": name, "password": PASSWORD}
                             ).status_code == 429
    with client(server, address()) as owner:
        assert owner.post("/api/login", json={"name": name, "password": PASSWORD}
                          ).status_code == 200


def test_successful_logins_count_toward_the_address_budget(server: ServerProcess) -> None:
    """Every login costs a hash: one address gets ADDRESS_LOGINS in the window, whether
    they succeed or not (10 friends behind one address stay far below)."""
    name = register(server)
    with client(server, address()) as http:
        for _ in range(ADDRESS_LOGINS):
            assert http.post("/api/login", json={"name": name, "password": PASSWORD}
                             ).status_code == 200
        last = http.post("/api/login", json={"name": name, "password": PASSWORD})
        assert last.status_code == 429 and last.json()["code"] == "too_many_attempts"
    with client(server, address()) as other:  # another address is not concerned
        assert other.post("/api/login", json={"name": name, "password": PASSWORD}
                          ).status_code == 200


def test_registrations_are_limited_per_address(server: ServerProcess) -> None:
    at = address()
    with client(server, at) as http:
        for i in range(REGISTRATIONS):
            reply = http.post("/api/accounts", json={"name": f"R{i}{secrets.token_hex(3)}",
                                                      "password": PASSWORD})
            assert reply.status_code == 201, reply.text
            http.cookies.clear()
        last = http.post("/api/accounts", json={"name": "One too many", "password": PASSWORD})
        assert last.status_code == 429 and last.json()["code"] == "too_many_attempts"
        assert last.json()["params"]["retry_after"] > 0
    with client(server, at) as http:  # nothing was created by the refused one
        assert http.post("/api/login", json={"name": "One too many", "password": PASSWORD}
                         ).status_code == 401


@pytest.mark.parametrize("password", ["password", "12345678", "qwertyuiop", "iloveyou1"])
def test_common_passwords_are_refused(server: ServerProcess, password: str) -> None:
    name = f"W{secrets.token_hex(4)}"
    with client(server, address()) as http:
        reply = http.post("/api/accounts", json={"name": name, "password": password})
        assert reply.status_code == 422 and reply.json()["code"] == "weak_password"
        assert "guess" in reply.json()["message"]
        assert http.post("/api/accounts", json={"name": name, "password": PASSWORD}
                         ).status_code == 201  # the refusal created nothing


def test_a_name_as_a_password_is_refused(server: ServerProcess) -> None:
    with client(server, address()) as http:
        for password in ("Margherita", "margherita1", "Margherita2026"):
            reply = http.post("/api/accounts", json={"name": "Margherita",
                                                      "password": password})
            assert reply.json()["code"] in ("weak_password", "bad_password"), password
            assert reply.status_code == 422


def _lag(server: ServerProcess) -> float:
    value: Any = httpx.get(server.url + "/api/health", timeout=30).json()["loop_lag_ms"]
    return float(value)


def test_a_burst_of_logins_does_not_stall_the_event_loop(server: ServerProcess) -> None:
    """Hashing runs off the loop: during 20 simultaneous logins the loop's worst delay
    (every table's WebSockets wait that long) stays far below what it was with the hashes
    on the loop: 1130 to 2400 ms for such a burst on this 2-core machine, against 40 to
    180 ms after (docs/deploy.md, "Logins and passwords"). The bound is generous: the
    machine is shared and noisy."""
    name = register(server)
    deadline = time.monotonic() + 20
    while _lag(server) > 60 and time.monotonic() < deadline:  # a quiet loop first
        time.sleep(0.5)
    # One player, one address, 20 logins at once (a reloading script, a page opened in
    # many tabs): every one of them succeeds — tries at one account from one address
    # take turns, and a success clears the count before the next is counted.
    at = address()
    replies = asyncio.run(_logins(server, [(at, name, PASSWORD) for _ in range(20)]))
    assert [r.status_code for r in replies] == [200] * 20
    lag = _lag(server)  # the worst of the last ~10 s: the burst's end at least
    # One hash, timed here and now: on a loaded machine everything is slower, the hashes
    # and the loop alike (CI met 964 ms with other jobs on both cores), so the bound is
    # 500 ms or three hashes, whichever is more; hashes on the loop held it 1,130 to
    # 2,400 ms, a dozen hashes or more (one is about 0.1 s here).
    hash_ms = statistics.median(_one_hash_ms() for _ in range(3))
    print(f"loop lag during 20 logins {lag:.0f} ms; one hash {hash_ms:.0f} ms")
    assert lag < max(500.0, 3 * hash_ms), (lag, hash_ms)


def _one_hash_ms() -> float:
    began = time.perf_counter()
    HASHER.verify(_A_HASH, PASSWORD)
    return 1000 * (time.perf_counter() - began)


def test_a_flood_from_many_addresses_is_refused_past_the_hashing_queue(
        server: ServerProcess) -> None:
    """Each address within its budget, many addresses at once: past QUEUE jobs waiting for
    the hashing pool, a login is refused at once (503 `busy`, nothing done), not queued
    for minutes; never a 500."""
    if server.database.startswith("postgresql"):
        pytest.skip("the queue is the process's own, the same on either database")
    tries = [(address(), f"nobody{i}", "a wrong password") for i in range(QUEUE + 40)]
    replies = asyncio.run(_logins(server, tries))
    codes = Counter(r.status_code for r in replies)
    assert set(codes) <= {401, 503} and codes[503] > 0, codes
    busy = [r.json() for r in replies if r.status_code == 503]
    assert {b["code"] for b in busy} == {"busy"} and busy[0]["params"]["retry_after"] > 0


def test_a_registration_past_the_address_budget_is_refused_before_its_password_is_rated(
        server: ServerProcess) -> None:
    """Rating a password costs up to ~50 ms of CPU (zxcvbn, for a crafted 64-character
    one) in the one password pool: it ran before the registration was counted, so refused
    tries still paid for it and one address flooding them stalled every login. Now every
    try is counted first: weak ones too, and the one past the budget is refused (429)
    before its password is rated, whatever the password."""
    at = address()
    with client(server, at) as http:
        for i in range(REGISTRATIONS):
            reply = http.post("/api/accounts", json={"name": f"Q{i}{secrets.token_hex(3)}",
                                                      "password": "password"})
            assert reply.status_code == 422, reply.text
            assert reply.json()["code"] == "weak_password"
        for password in ("password", CRAFTED):
            last = http.post("/api/accounts", json={"name": f"Q{secrets.token_hex(4)}",
                                                     "password": password})
            assert last.status_code == 429, last.text
            assert last.json()["code"] == "too_many_attempts"


CRAFTED = "01wordmonkeyloveasdfasdfqwerdragon!@#01monkey1234passqwer01pass0"
"""The security tester's password: zxcvbn's slowest kind (many overlapping words)."""


def test_one_address_cannot_take_the_whole_password_pool(server: ServerProcess) -> None:
    """One address's thirty logins at once (each a quarter-second hash) filled the pool's
    queue, and a login from anywhere else waited for all of them (10-11 s in the tester's
    flood). Now an address has at most `password_jobs_per_address` (2) jobs in the pool,
    the rest of its burst waits in a line of its own: another address's login passes
    after a few of them."""
    if server.database.startswith("postgresql"):
        pytest.skip("the pool is the process's own, the same on either database")
    name = register(server)
    flood = address()

    async def race() -> tuple[list[float], float]:
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
            async def one(i: int) -> float:
                await http.post("/api/login", json={"name": f"nobody{i}x{secrets.token_hex(3)}",
                                                    "password": "a wrong password"},
                                headers={"X-Forwarded-For": flood})
                return time.monotonic()

            burst = [asyncio.create_task(one(i)) for i in range(ADDRESS_LOGINS)]
            await asyncio.sleep(1.0)  # the burst is counted and waits for the pool
            honest = await http.post("/api/login", json={"name": name, "password": PASSWORD},
                                     headers={"X-Forwarded-For": address()})
            assert honest.status_code == 200, honest.text
            answered = time.monotonic()
            return list(await asyncio.gather(*burst)), answered

    burst, honest = asyncio.run(race())
    before = sum(1 for done in burst if done < honest)
    print(f"{before} of the burst's {len(burst)} logins were answered before the other one")
    assert before < ADDRESS_LOGINS // 2, before
