"""Issue 17, "Resources": one visitor cannot exhaust the server, and no limit bites a
real group. Every case against a real `trusis serve` process (tests/serverproc.py),
over HTTP and WebSocket, with the limits set small where the default would take long
to reach (`--limit NAME=VALUE`, docs/deploy.md "Running in public").
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from serverproc import Guest, Player, ServerProcess, hello, running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Limits at their defaults but for the few a test must reach."""
    with running_server("sqlite", tmp_path_factory.mktemp("limits"), extra=[
            "--limit", "sockets_per_address=40",
            "--limit", "chat_after_end_per_seat=5", "--limit", "chat_after_end_per_game=8",
            "--limit", "abandoned_seconds=2"]) as proc:
        yield proc


def refused(reply: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """A refusal in the API's shape: status, code, params and a sentence."""
    assert reply.status_code == status, reply.text
    body: dict[str, Any] = reply.json()
    assert body["code"] == code, body
    assert set(body) == {"code", "params", "message"} and len(body["message"]) > 10
    return body


def test_guests_per_address_are_bounded(tmp_path: Path) -> None:
    """One address created 200 guests: now the 31st in an hour is a 429 that says when."""
    with running_server("sqlite", tmp_path, extra=[
            "--limit", "guests_per_address_hour=30"]) as server, \
            httpx.Client(base_url=server.url) as http:
        codes = [http.post("/api/guest", json={"name": f"g{i}"}).status_code
                 for i in range(31)]
        assert codes[:30] == [200] * 30
        assert codes[30] == 429
        reply = http.post("/api/guest", json={"name": "one more"})
        body = refused(reply, 429, "too_many_guests")
        assert body["params"]["limit"] == 30
        assert int(reply.headers["Retry-After"]) >= 1


def test_open_tables_per_player_are_bounded_and_abandoned_ones_close(
        tmp_path: Path) -> None:
    """One guest opened 300 tables in 0.8 s and they never went away: now a host has at
    most 5 open tables, and an open table nobody is at closes (`abandoned_seconds`)."""
    with running_server("sqlite", tmp_path, extra=["--limit", "abandoned_seconds=1.5"]) \
            as server:
        host = Guest(server.url, "Host")
        ids = [host.create()["id"] for _ in range(5)]
        body = refused(host.http.post("/api/tables", json={"name": "six"}), 429,
                       "too_many_open_tables")
        assert body["params"]["limit"] == 5
        listed = {t["id"] for t in host.http.get("/api/tables").json()["tables"]}
        assert set(ids) <= listed
        racer = Guest(server.url, "Racer")  # all at once: the check counts those under way
        with ThreadPoolExecutor(20) as pool:
            codes = list(pool.map(lambda i: racer.http.post(
                "/api/tables", json={"name": f"race {i}"}).status_code, range(20)))
        assert sorted(codes) == [201] * 5 + [429] * 15, codes
        deadline = time.monotonic() + 20
        while listed & set(ids) and time.monotonic() < deadline:
            time.sleep(0.5)
            listed = {t["id"] for t in host.http.get("/api/tables").json()["tables"]}
        assert not listed & set(ids), "abandoned open tables are still listed"
        refused(host.http.get(f"/api/tables/{ids[0]}"), 410, "table_expired")
        assert host.http.post("/api/tables", json={"name": "again"}).status_code == 201
        host.close()


def test_a_watched_open_table_does_not_close(server: ServerProcess) -> None:
    """A table somebody is connected to stays open however long they wait."""
    host = Guest(server.url, "Patient")
    table = host.create()["id"]
    conn = Player(server, table, host.token)
    conn.until(lambda p: p.seat is not None or any(m["type"] == "welcome"
                                                    for m in p.messages))
    time.sleep(4)  # twice `abandoned_seconds`
    assert host.http.get(f"/api/tables/{table}").status_code == 200
    conn.close()
    host.close()


def test_sockets_per_identity_per_table_are_bounded(server: ServerProcess) -> None:
    """One guest held 200 WebSockets to one table: now the 9th is closed with 4429."""
    guest = Guest(server.url, "Many tabs")
    table = guest.create()["id"]
    held = []
    for _ in range(8):
        conn = Player(server, table, guest.token)
        conn.until(lambda p: any(m["type"] == "welcome" for m in p.messages))
        held.append(conn)
    extra = connect(f"{server.ws_url}/ws/tables/{table}",
                    additional_headers={"Authorization": f"Bearer {guest.token}"})
    with pytest.raises(ConnectionClosed) as closed:
        extra.send(hello())
        extra.recv(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
    assert "at most 8" in closed.value.rcvd.reason
    held.pop().close()  # one closed: one more may come, once the server has seen the close
    deadline = time.monotonic() + 15  # (0.3 s was not always enough on a loaded machine)
    while True:
        again = Player(server, table, guest.token)
        try:
            again.until(lambda p: any(m["type"] == "welcome" for m in p.messages))
            break
        except ConnectionClosed as early:
            assert early.rcvd is not None and early.rcvd.code == 4429, early
            assert time.monotonic() < deadline, "the closed socket's place was not freed"
            time.sleep(0.2)
    for conn in [*held, again]:
        conn.close()
    guest.close()


def test_joins_share_one_table_broadcast(server: ServerProcess) -> None:
    """Each join re-sent the table to every client (n joins: n² messages): now joins
    close together share one `table` message per client."""
    host = Guest(server.url, "Watched")
    table = host.create()["id"]
    first = Player(server, table, host.token)
    first.until(lambda p: any(m["type"] == "welcome" for m in p.messages))
    time.sleep(0.3)
    first.messages.clear()
    guests = [Guest(server.url, f"Watcher {i}") for i in range(6)]
    others = [Player(server, table, g.token) for g in guests for _ in range(4)]
    # Every join is in (a fixed second could end before the server read them all on a
    # loaded machine), and nothing more comes.
    first.until(lambda p: any(m["type"] == "table" and m["table"]["spectators"] == 25
                              for m in p.messages))
    while first.pump(0.2):
        pass
    tables = [m for m in first.messages if m["type"] == "table"]
    assert 1 <= len(tables) <= 8, len(tables)  # 24 joins
    assert tables[-1]["table"]["spectators"] == 25  # the host watches too
    for conn in [first, *others]:
        conn.close()
    for g in [host, *guests]:
        g.close()


def test_sockets_per_address_are_bounded(tmp_path: Path) -> None:
    with running_server("sqlite", tmp_path, extra=["--limit", "sockets_per_address=3"]) \
            as server:
        guests = [Guest(server.url, f"S{i}") for i in range(4)]
        table = guests[0].create()["id"]
        held = [Player(server, table, g.token) for g in guests[:3]]
        for conn in held:
            conn.until(lambda p: any(m["type"] == "welcome" for m in p.messages))
        extra = connect(f"{server.ws_url}/ws/tables/{table}",
                        additional_headers={"Authorization": f"Bearer {guests[3].token}"})
        with pytest.raises(ConnectionClosed) as closed:
            extra.send(hello())
            extra.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        assert "your address" in closed.value.rcvd.reason
        for conn in held:
            conn.close()


def test_a_huge_body_is_refused_unread(server: ServerProcess) -> None:
    """A 48 MiB body was read whole: now anything over 64 KiB is a 413."""
    guest = Guest(server.url, "Big")
    body = json.dumps({"name": "x" * (1 << 20)})
    refused(guest.http.post("/api/tables", content=body,
                            headers={"Content-Type": "application/json"}),
            413, "body_too_large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while it streams
        yield b'{"name": "'
        for _ in range(64):
            yield b"x" * 4096
        yield b'"}'

    refused(guest.http.post("/api/tables", content=chunks(),
                            headers={"Content-Type": "application/json"}),
            413, "body_too_large")
    assert guest.http.post("/api/tables", json={"name": "small"}).status_code == 201
    guest.close()


def test_deep_json_is_a_422_naming_the_field(server: ServerProcess) -> None:
    """A 999-deep `set` answered 500 (RecursionError)."""
    with httpx.Client(base_url=server.url) as http:
        for text in ("[" * 999 + "]" * 999, '{"custom": ' + "[" * 990 + "]" * 990 + "}",
                     '{"custom": {"A": ' + "[" * 990 + "]" * 990 + "}}"):
            body = refused(http.get("/api/balance", params={"players": 8, "set": text}),
                           422, "bad_set")
            assert body["params"]["field"] == "set"
        guest = Guest(server.url, "Deep")
        for text in ('{"name": "t", "set": {"custom": ' + "[" * 5000 + "]" * 5000 + "}}",
                     '{"name": ' + '{"a":' * 999 + "1" + "}" * 999 + "}"):
            body = refused(guest.http.post("/api/tables", content=text, headers={
                "Content-Type": "application/json"}), 422, "bad_request")
            assert body["params"]["field"] == "body"
        guest.close()


def test_balance_standard_is_ready_and_custom_jobs_are_bounded(
        server: ServerProcess) -> None:
    """`/api/balance` cost ~21 s of CPU per distinct request with an unbounded queue:
    the standard set is answered at once, and one address has one custom job at a time."""
    with httpx.Client(base_url=server.url) as http:
        for players in (5, 8, 12, 30):
            ready = http.get("/api/balance", params={"players": players}).json()
            assert ready["status"] == "ready", ready
        first = http.get("/api/balance", params={
            "players": 9, "set": json.dumps({"custom": {"PRIEST": 1, "TRUSIS": 2}})})
        assert first.json()["status"] == "pending"
        second = http.get("/api/balance", params={
            "players": 10, "set": json.dumps({"custom": {"PRIEST": 1, "TRUSIS": 2}})})
        body = refused(second, 429, "balance_busy")
        assert body["params"]["limit"] == 1 and "Retry-After" in second.headers
        again = http.get("/api/balance", params={  # asking again for the same one is fine
            "players": 9, "set": json.dumps({"custom": {"PRIEST": 1, "TRUSIS": 2}})})
        assert again.status_code == 200


def test_chat_after_the_end_is_capped(server: ServerProcess) -> None:
    """Chat after the end was unbounded: now 5 messages a seat and 8 a game (set small
    here; the defaults are 300 and 3000), refused with a sentence (D21, R50)."""
    people = [Guest(server.url, f"Talker {i}") for i in range(5)]
    table = people[0].create(seats=5, day_seconds=30, night_seconds=15)["id"]
    for p in people:
        p.sit(table)
    people[0].start(table)
    conns = [Player(server, table, p.token) for p in people]
    for conn in conns:
        conn.until(lambda c: c.view is not None)
    # everyone passes until the end
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and conns[0].view and \
            conns[0].view["status"] != "finished":
        for conn in conns:
            conn.pump(0.02)
            if conn.view and "pass" in conn.legal():
                conn.send(do="pass")
    assert conns[0].view is not None and conns[0].view["status"] == "finished"
    time.sleep(2.5)  # the passes above spent the per-player command budget (limits/buckets.py)
    answers = [conns[0].command(do="say", text=f"gg {i}") for i in range(6)]
    assert [a["type"] for a in answers] == ["ack"] * 5 + ["refused"], answers
    assert answers[5]["code"] == "chat_limit" and "5" in answers[5]["message"]
    more = [conns[1].command(do="say", text=f"bye {i}") for i in range(4)]
    assert [a["type"] for a in more] == ["ack"] * 3 + ["refused"]
    assert more[3]["code"] == "chat_limit_table"
    for conn in conns:
        conn.close()


def test_replay_and_summary_are_built_once(server: ServerProcess) -> None:
    """`/replay` and `/summary` rebuilt the record on the event loop at every request:
    now the first request builds it (in a thread) and the next ones are answered from
    the cache — the same bytes, marked as a hit by their `Cache-Status` (RFC 9211)."""
    host = Guest(server.url, "Replayer")
    table = host.create(seats=30, day_seconds=30, night_seconds=15)["id"]
    host.bots(table, 30)
    host.start(table)
    deadline = time.monotonic() + 180
    while host.http.get(f"/api/tables/{table}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots' game did not end in time"
        time.sleep(0.5)

    for path, params in ((f"/api/tables/{table}/summary", {}),
                         (f"/api/tables/{table}/replay", {"step": 10**6})):
        first = host.http.get(path, params=params)
        assert first.status_code == 200
        assert first.headers["cache-status"] == "trusis; fwd=miss; stored", path
        for _ in range(3):
            again = host.http.get(path, params=params)
            assert again.status_code == 200 and again.content == first.content, path
            assert again.headers["cache-status"] == "trusis; hit", path
    host.close()


def test_the_shipped_estimates_are_the_labs() -> None:
    """The standard set's estimates shipped with the server (tools/balance_standard.py)
    are what the balance lab computes: the same seed, bots and number of games."""
    from trusis.server.tables.balance import estimate, key_of, standard_estimates

    shipped = standard_estimates(200)
    assert sorted(int(json.loads(k)[0]) for k in shipped) == list(range(5, 31))
    for players in (5, 8):
        assert shipped[key_of(players, None)] == estimate(players, None, 200)


def test_limits_are_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every limit is a setting: the environment (`TRUSIS_LIMIT_NAME`) or `--limit`; an
    unknown name or a bad value stops `trusis serve` with a sentence naming them."""
    for bad in ("no_such_limit=3", "body_bytes=lots", "sockets_per_table=-1"):
        done = subprocess.run([sys.executable, "-m", "trusis", "serve", "--limit", bad],
                              capture_output=True, text=True, timeout=60, check=False)
        assert done.returncode == 2, done.stderr
        assert "--limit" in done.stderr and "Traceback" not in done.stderr
    monkeypatch.setenv("TRUSIS_LIMIT_OPEN_TABLES_PER_PLAYER", "1")
    with running_server("sqlite", tmp_path) as server:
        host = Guest(server.url, "One table")
        host.create()
        body = refused(host.http.post("/api/tables", json={"name": "two"}), 429,
                       "too_many_open_tables")
        # a limit of 1 is said in the singular ("1 tables" before)
        assert body["params"] == {"limit": 1}
        assert body["message"].startswith("you already host 1 table that has not started")
        host.close()


@pytest.mark.parametrize(("env", "flags", "named", "said"), [
    ({"TRUSIS_LIMIT_GUESTS_PER_ADDRESS_HOUR": "abc"}, [],
     "TRUSIS_LIMIT_GUESTS_PER_ADDRESS_HOUR", "a whole number, 0 or more"),
    ({"TRUSIS_LIMIT_GUESTS_PER_ADDRESS_HOUR": "-5"}, [],
     "TRUSIS_LIMIT_GUESTS_PER_ADDRESS_HOUR", "a whole number, 0 or more"),
    ({"TRUSIS_LIMIT_ABANDONED_SECONDS": "nan"}, [],
     "TRUSIS_LIMIT_ABANDONED_SECONDS", "a number of seconds, 0 or more"),
    ({"TRUSIS_LIMIT_BOGUS": "3"}, [], "TRUSIS_LIMIT_BOGUS", "guests_per_address_hour"),
    ({}, ["--limit", "guests_per_address_hour=abc"], "--limit guests_per_address_hour",
     "a whole number, 0 or more"),
    ({}, ["--limit", "bogus=1"], "--limit bogus", "guests_per_address_hour"),
    ({}, ["--limit", "guests_per_address_hour"], "--limit guests_per_address_hour",
     "NAME=VALUE"),
    ({"TRUSIS_METRICS_TOKEN": "short"}, [], "TRUSIS_METRICS_TOKEN", "16 characters"),
    ({}, ["--metrics-token", "short"], "--metrics-token", "16 characters"),
])
def test_a_bad_limit_is_one_sentence_naming_the_setting_given(
        env: dict[str, str], flags: list[str], named: str, said: str, tmp_path: Path) -> None:
    """An operator's trial: `TRUSIS_LIMIT_GUESTS_PER_ADDRESS_HOUR=abc` (or -5) stopped the
    server with a Python traceback, `TRUSIS_LIMIT_BOGUS=3` was silently ignored, `--limit`'s
    error ("invalid literal for int() with base 10") named no limit, and a short metrics
    token from TRUSIS_METRICS_TOKEN was blamed on --metrics-token. Each is now one line,
    `error: SETTING …`, exit status 2 as every bad option (docs/record.md, "Exit codes"),
    naming the setting the operator used and what it takes; nothing is created."""
    done = subprocess.run([sys.executable, "-m", "trusis", "serve", "--database",
                           f"sqlite:///{tmp_path / 'never.db'}", *flags],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env}, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {named}"), done.stderr
    assert said in lines[0], lines[0]
    if named.startswith("TRUSIS_"):
        assert "--" not in lines[0].split(":")[0], lines[0]
    assert not (tmp_path / "never.db").exists()


async def _at_once(server: ServerProcess, token: str, path: str, body: dict[str, Any],
                   times: int) -> list[httpx.Response]:
    """The same request sent `times` times at once (as the tester's script did)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=30,
                                 headers={"Authorization": f"Bearer {token}"}) as http:
        return list(await asyncio.gather(*(http.post(path, json=body) for _ in range(times))))


def test_reports_are_bounded_and_the_hosts_list_is_the_newest(tmp_path: Path) -> None:
    """One guest filed 760 reports in 5 s (4.3 MB kept: each holds its reason and the chat
    its reporter read) and the host's list returned them all. Now one report per reporter
    per seat of a table (R51: the host and the moderators have it already), a few an hour
    per player and per address (set small here), and the host reads the newest `limit`
    (100 by default) with how many there are."""
    with running_server("sqlite", tmp_path, extra=[
            "--limit", "reports_per_player_hour=3",
            "--limit", "reports_per_address_hour=5"]) as server:
        host = Guest(server.url, "Reported host")
        table = host.create(seats=8)["id"]
        path = f"/api/tables/{table}/reports"
        me, other, elsewhere = (Guest(server.url, n) for n in ("Rep", "Rep two", "Rep far"))
        elsewhere.http.headers["X-Forwarded-For"] = "10.20.30.40"  # through the proxy
        burst = asyncio.run(_at_once(server, me.token, path, {"seat": 1, "reason": "rude"}, 20))
        assert sorted(r.status_code for r in burst) == [201] + [409] * 19  # stored once
        filed = [r for r in burst if r.status_code == 201]
        body = refused(me.http.post(path, json={"seat": 1, "reason": "rude again"}), 409,
                       "already_reported")
        assert body["params"]["seat"] == 1
        filed += [me.http.post(path, json={"seat": s, "reason": "rude"}) for s in (2, 3)]
        reply = me.http.post(path, json={"seat": 4, "reason": "rude"})
        assert refused(reply, 429, "too_many_reports")["params"]["limit"] == 3
        assert int(reply.headers["Retry-After"]) >= 1
        filed += [other.http.post(path, json={"seat": s, "reason": "rude"}) for s in (1, 2)]
        reply = other.http.post(path, json={"seat": 3, "reason": "rude"})  # the same address
        assert refused(reply, 429, "too_many_reports")["params"]["limit"] == 5
        filed.append(elsewhere.http.post(path, json={"seat": 3, "reason": "rude"}))
        assert [r.status_code for r in filed] == [201] * 6
        ids = [r.json()["id"] for r in filed]
        listing = host.http.get(path).json()
        assert listing["total"] == 6 and [r["id"] for r in listing["reports"]] == ids
        newest = host.http.get(path, params={"limit": 2}).json()
        assert newest["total"] == 6 and [r["id"] for r in newest["reports"]] == ids[-2:]
        refused(host.http.get(path, params={"limit": 501}), 422, "bad_request")
        for g in (host, me, other, elsewhere):
            g.close()


def test_a_table_hands_out_a_bounded_number_of_program_seats(tmp_path: Path) -> None:
    """Each program seat is a new player and a new token, kept: a host handing a seat to a
    program and freeing it again, in a loop, stored two rows a request. Now a table hands
    out `program_seats_per_table` program seats (set small here)."""
    with running_server("sqlite", tmp_path, extra=[
            "--limit", "program_seats_per_table=3"]) as server:
        host = Guest(server.url, "Programmer")
        table = host.create(seats=5)["id"]
        for i in range(3):
            handed = host.http.post(f"/api/tables/{table}/seats/1/program",
                                    json={"name": f"Prog {i}"})
            assert handed.status_code == 200, handed.text
            assert host.http.delete(f"/api/tables/{table}/seats/1").status_code == 200
        body = refused(host.http.post(f"/api/tables/{table}/seats/1/program",
                                      json={"name": "Prog 4"}), 409, "too_many_programs")
        assert body["params"]["limit"] == 3
        other = host.create(seats=5)["id"]  # another table has its own
        assert host.http.post(f"/api/tables/{other}/seats/1/program",
                              json={"name": "Prog"}).status_code == 200
        host.close()


def test_replay_steps_past_the_end_cost_one_build(server: ServerProcess) -> None:
    """The replay's cache key held the step before it was clamped to the game's length:
    an anonymous visitor asking step=100001, 100002, … had the whole game rebuilt in a
    thread at every request. Now the step is clamped first: every step past the end is
    the last step, built once and then answered from the cache."""
    host = Guest(server.url, "Short game")
    table = host.create(seats=5, day_seconds=30, night_seconds=15)["id"]
    host.bots(table, 5)
    host.start(table)
    deadline = time.monotonic() + 120
    while host.http.get(f"/api/tables/{table}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots' game did not end in time"
        time.sleep(0.3)
    with httpx.Client(base_url=server.url, timeout=30) as anonymous:
        for seat in ({}, {"seat": 2}):
            path = f"/api/tables/{table}/replay"
            first = anonymous.get(path, params={**seat, "step": 10**5})
            assert first.headers["cache-status"] == "trusis; fwd=miss; stored", seat
            for step in (10**5 + 1, 10**5 + 2, 10**6):
                again = anonymous.get(path, params={**seat, "step": step})
                assert again.headers["cache-status"] == "trusis; hit", (seat, step)
                assert again.content == first.content
    host.close()


def test_running_games_are_bounded_per_host_and_address(tmp_path: Path) -> None:
    """The open-table limits counted only tables not started: one address created and
    started dozens of 30-seat tables that ran for hours, all in the lobby's listing. Now a
    host runs `running_tables_per_player` games at once and an address
    `running_tables_per_address` (set small here); a game that ends frees its place."""
    with running_server("sqlite", tmp_path, extra=[
            "--limit", "running_tables_per_player=2",
            "--limit", "running_tables_per_address=3"]) as server:

        def long_game(host: Guest) -> str:
            """A table whose game runs for minutes: its host is seated, and away."""
            table = host.create(seats=5)["id"]
            host.sit(table, 1)
            host.bots(table, 4)
            return table

        one, two, far = (Guest(server.url, n) for n in ("Runner", "Runner two", "Far"))
        far.http.headers["X-Forwarded-For"] = "10.20.30.41"  # through the proxy
        games = [long_game(one) for _ in range(2)]
        for table in games:
            one.start(table)
        third = long_game(one)
        reply = one.http.post(f"/api/tables/{third}/start")
        assert refused(reply, 429, "too_many_running_tables")["params"]["limit"] == 2
        assert "Retry-After" in reply.headers
        assert one.http.get(f"/api/tables/{third}").json()["status"] == "open"  # nothing done
        two.start(long_game(two))
        reply = two.http.post(f"/api/tables/{long_game(two)}/start")  # the same address
        assert refused(reply, 429, "too_many_running_tables")["params"]["limit"] == 3
        far.start(long_game(far))  # another address has its own
        seat = Player(server, games[0], one.token)  # the host leaves: bots end the game
        seat.until(lambda p: p.view is not None)
        assert seat.command(do="leave")["type"] == "ack"
        deadline = time.monotonic() + 60
        while one.http.get(f"/api/tables/{games[0]}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the bots' game did not end in time"
            time.sleep(0.3)
        one.start(third)  # a game that ended frees its place
        seat.close()
        for g in (one, two, far):
            g.close()


def test_one_address_gets_a_budget_of_balance_estimates_an_hour(tmp_path: Path) -> None:
    """One estimate at a time per address bounded how many at once, not how many in a row:
    one address asking again as soon as each was ready kept the worker (a core) busy for
    good. Now an address has `balance_estimates_per_address_hour` (set small here); a
    ready estimate is free to ask again, and another address has its own."""
    with running_server("sqlite", tmp_path, extra=[
            "--limit", "balance_estimates_per_address_hour=2"]) as server, \
            httpx.Client(base_url=server.url, timeout=30) as http:

        def ready(players: int, at: str | None = None) -> httpx.Response:
            """Ask, then ask again until it is ready (as the page polls)."""
            params = {"players": players, "set": json.dumps({"custom": {"TRUSIS": 1}})}
            headers = {"X-Forwarded-For": at} if at else {}
            deadline = time.monotonic() + 60
            while True:
                reply = http.get("/api/balance", params=params, headers=headers)
                if reply.status_code != 200 or reply.json()["status"] == "ready":
                    return reply
                assert time.monotonic() < deadline, "the estimate took too long"
                time.sleep(0.3)

        assert ready(5).status_code == 200
        assert ready(6).status_code == 200
        reply = ready(7)
        body = refused(reply, 429, "too_many_estimates")
        assert body["params"]["limit"] == 2 and int(reply.headers["Retry-After"]) > 60
        assert ready(5).json()["status"] == "ready"  # a ready one costs nothing
        assert ready(7, at="10.20.30.42").json()["status"] == "ready"  # another address


def test_D51_creating_tables_is_bounded_per_hour_per_player_and_address(
        tmp_path: Path) -> None:
    """An attacker's trial: a host may close a table before its start (D51), which frees its
    place among the open tables at once — one guest created and closed 1,327 tables in 10 s,
    each a stored row, about 200 MB an hour. Now a player creates `tables_per_player_hour`
    tables in an hour and an address `tables_per_address_hour` (set small here)."""
    with running_server("sqlite", tmp_path, extra=[
            "--limit", "tables_per_player_hour=3",
            "--limit", "tables_per_address_hour=5"]) as server:
        one, two, far = (Guest(server.url, n) for n in ("Maker", "Maker two", "Far"))
        far.http.headers["X-Forwarded-For"] = "10.20.30.42"  # through the proxy

        def made_and_closed(host: Guest) -> None:
            table = host.create(seats=5)["id"]
            assert host.http.post(f"/api/tables/{table}/close").status_code == 200

        for _ in range(3):
            made_and_closed(one)
        reply = one.http.post("/api/tables", json={"seats": 5})
        body = refused(reply, 429, "too_many_tables")
        assert body["params"]["limit"] == 3 and "Retry-After" in reply.headers
        made_and_closed(two)
        made_and_closed(two)
        reply = two.http.post("/api/tables", json={"seats": 5})  # the address's sixth
        assert refused(reply, 429, "too_many_tables")["params"]["limit"] == 5
        made_and_closed(far)  # another address has its own
        listed = {t["id"] for t in one.http.get("/api/tables").json()["tables"]}
        assert not listed  # every table made was closed: nothing was created by a refusal
        for g in (one, two, far):
            g.close()
