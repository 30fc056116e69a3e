"""A program's seat token plays its one seat and reads its table — nothing else (issue 17).

Every HTTP route the server has (read from the app itself, so a route added later is tried
too) is called with a seat token: each answers 403 `seat_token`, but `GET /api/tables/{its
table}`; and the token's WebSocket keeps playing its seat (R53's program seats) all along.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute

from modhelp import account, grant
from serverplay import Conn
from serverproc import Guest, ServerProcess, running_server
from trusis.server.app import create_app
from trusis.server.config import Settings


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("tokens")) as proc:
        yield proc


def routes() -> list[tuple[str, str]]:
    """Every (method, path) of the app's HTTP routes: the API's (its OpenAPI schema, which
    names every included router's) and the pages'."""
    app = create_app(Settings(database_url="sqlite:///unused.db", secret="x"))
    found = {(method.upper(), path) for path, item in app.openapi()["paths"].items()
             for method in item}
    for route in app.routes:
        if isinstance(route, APIRoute):
            found |= {(method, route.path) for method in route.methods or ()}
    assert len(found) > 30, found
    return sorted(found)


BODIES: dict[str, Any] = {
    "/api/guest": {"name": "Sneaky"}, "/api/tables": {"seats": 5},
    "/api/accounts": {"name": "Sneaky", "password": "a long passphrase"},
    "/api/login": {"name": "Host", "password": "a long passphrase"},
    "/api/password": {"current": "a long passphrase", "password": "another passphrase"},
    "/api/sets/check": {"seats": 5, "set": {"standard": True}},
    "/api/tables/{table_id}/seats": {"seat": 3},
    "/api/tables/{table_id}/bots": {"kind": "heuristic"},
    "/api/tables/{table_id}/reports": {"seat": 1, "reason": "rude"},
    "/api/tables/{table_id}/claim": {"code": "x"},
    "/api/tables/{table_id}/seats/{seat}/replace": {"by": "person"},
    "/api/tables/{table_id}/seats/{seat}/program": {"name": "Other"},
}


def fill(path: str, table_id: str) -> str:
    values = {"table_id": table_id, "seat": "2", "player_id": "someone", "lang": "en",
              "sanction_id": "1", "report_id": "1", "place": "game", "number": "1"}
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], path)


def test_a_seat_token_plays_its_seat_and_every_other_route_is_refused(
        server: ServerProcess) -> None:
    host = Guest(server.url, "Host")
    table = host.create(seats=5, day_seconds=3600)
    tid = table["id"]
    other = host.create(seats=5)["id"]
    host.sit(tid, 1)
    token = host.program(tid, 2)
    host.bots(tid, 3)
    host.start(tid)
    conn = Conn(server, tid, token).open()
    assert conn.seat == 2 and conn.view is not None and conn.view["role"]
    program = httpx.Client(base_url=server.url, timeout=10,
                           headers={"Authorization": f"Bearer {token}"})
    own = program.get(f"/api/tables/{tid}")
    assert own.status_code == 200 and own.json()["seats"][1]["you"] is True
    tried = []
    for method, path in routes():
        for table_id in (tid, other):
            if method == "GET" and table_id == tid and path in (
                    "/api/tables/{table_id}", "/api/tables/{table_id}/record"):
                continue  # its table, and its seat's record (below)
            if path.endswith(("/rematch/accept", "/rematch/decline")):
                continue  # its own table's rematch only: tests/test_server_rematch.py (D19)
            url = fill(path, table_id)
            answer = program.request(method, url, json=BODIES.get(path) if method in (
                "POST", "PUT", "PATCH") else None, params={"players": 5}
                if path == "/api/balance" else None)
            assert answer.status_code == 403, (method, url, answer.text)
            if method != "HEAD":  # (a HEAD answer has no body)
                assert answer.json()["code"] == "seat_token", (method, url, answer.text)
            tried.append((method, path))
    wanted = {("POST", "/api/tables"), ("POST", "/api/tables/{table_id}/seats"),
              ("POST", "/api/tables/{table_id}/reports"), ("POST", "/api/accounts"),
              ("DELETE", "/api/me"), ("GET", "/api/me"), ("POST", "/api/logout"),
              ("POST", "/api/password"), ("POST", "/api/logout/everywhere"),
              ("GET", "/api/tables"), ("POST", "/api/login")}
    assert wanted <= set(tried)  # the findings' routes are among those tried
    # The WebSocket's subprotocol carries a token only on a WebSocket: not a way around.
    sneaky = httpx.post(f"{server.url}/api/tables", json={"seats": 5}, timeout=10, headers={
        "Sec-WebSocket-Protocol": f"trusis, trusis.bearer.{token}"})
    assert sneaky.status_code == 401 and sneaky.json()["code"] == "not_signed_in"
    # Nothing happened: no table of the program's, no seat elsewhere, no report, and the
    # program still plays its seat (its identity was not deleted).
    listed = host.http.get("/api/tables").json()["tables"]
    assert {t["host"]["name"] for t in listed} == {"Host"}
    assert all(s["name"] != "Robo" for s in host.http.get(f"/api/tables/{other}").json()["seats"])
    assert host.http.get(f"/api/tables/{tid}/reports").json()["reports"] == []
    assert conn.command(do="say", text="still here")["type"] == "ack"
    conn.close()
    again = Conn(server, tid, token).open()  # a new connection of the token: still its seat
    assert again.seat == 2
    again.close()


def test_a_program_reads_its_own_seats_record_once_the_game_ended(
        server: ServerProcess) -> None:
    """Issue 38: a program had no way to read its own seat's record. Its seat token reads
    `GET /api/tables/{its table}/record` once the game ended — the seat's copy, with its own
    whispers and no one else's (R50) — and no other table's."""
    host = Guest(server.url, "Host")
    tid = host.create(seats=5, day_seconds=3600)["id"]
    other = host.create(seats=5)["id"]
    host.sit(tid, 1)
    token = host.program(tid, 2)
    host.bots(tid, 3)
    host.start(tid)
    program = httpx.Client(base_url=server.url, timeout=10,
                           headers={"Authorization": f"Bearer {token}"})
    conn = Conn(server, tid, token).open()
    assert conn.command(do="say", text="psst host", to=1)["type"] == "ack"
    host_conn = Conn(server, tid, host.token).open()
    assert host_conn.command(do="say", text="psst robo", to=2)["type"] == "ack"
    running = program.get(f"/api/tables/{tid}/record")
    assert running.status_code == 403 and running.json()["code"] != "seat_token"
    ops, _ = account(server.url, "Ops")
    grant(server, "Ops", "admin")
    assert ops.post(f"/api/admin/tables/{tid}/draw", json={}).status_code == 200
    record = program.get(f"/api/tables/{tid}/record")
    assert record.status_code == 200, record.text
    said = [a.get("text") for a in record.json()["actions"] if a.get("do") == "say"]
    assert "psst host" in said and "psst robo" in said
    refused = program.get(f"/api/tables/{other}/record")
    assert (refused.status_code, refused.json()["code"]) == (403, "seat_token")
    conn.close()
    host_conn.close()
