"""Accounts, history, ratings, replays, reports and own data (issue 10), on both databases.

Security first: a wrong password, a brute force that is slowed down, a session
fixed before login that does not survive it, cookie flags, and one player unable
to read another's private data or a running game's record through any URL.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from serverproc import (
    Guest,
    Player,
    ServerProcess,
    pass_to_the_end,
    postgres_available,
    running_server,
)

KINDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(
    not postgres_available(), reason="no PostgreSQL at TRUSIS_TEST_POSTGRES"))]


@pytest.fixture(scope="module", params=KINDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[ServerProcess]:
    with running_server(request.param, tmp_path_factory.mktemp("accounts")) as running:
        yield running


def _browser(server: ServerProcess) -> httpx.Client:
    return httpx.Client(base_url=server.url, timeout=10)


def _register(server: ServerProcess, name: str, password: str = "a long password"
              ) -> httpx.Client:
    client = _browser(server)
    reply = client.post("/api/accounts", json={"name": name, "password": password})
    assert reply.status_code == 201, reply.text
    return client


def test_a_wrong_password_is_refused_and_a_brute_force_is_slowed_down(
        server: ServerProcess) -> None:
    _register(server, "Bruno").close()
    attacker = _browser(server)
    codes = [attacker.post("/api/login", json={"name": "Bruno", "password": f"guess{i}"})
             .json()["code"] for i in range(7)]
    assert codes[:5] == ["wrong_login"] * 5
    assert codes[5:] == ["too_many_attempts"] * 2  # locked for the rest of the window
    locked = attacker.post("/api/login", json={"name": "Bruno", "password": "a long password"})
    assert locked.status_code == 429 and locked.json()["params"]["retry_after"] > 0
    # An unknown name answers like a wrong password (no way to learn who has an account).
    assert attacker.post("/api/login", json={"name": "Nobody", "password": "x" * 9}
                         ).json()["code"] == "wrong_login"


def test_a_session_fixed_before_login_does_not_survive_it(server: ServerProcess) -> None:
    _register(server, "Carla").close()
    victim = _browser(server)
    victim.post("/api/guest", json={"name": "visitor"})
    fixed = victim.cookies.get("trusis_session")  # what an attacker planted
    assert victim.post("/api/login", json={"name": "Carla", "password": "a long password"}
                       ).status_code == 200
    assert victim.cookies.get("trusis_session") != fixed
    attacker = httpx.Client(base_url=server.url, cookies={"trusis_session": fixed or ""})
    assert attacker.get("/api/me").status_code == 401


def test_session_cookie_flags(server: ServerProcess) -> None:
    reply = _browser(server).post("/api/guest", json={"name": "Dora"})
    header = reply.headers["set-cookie"].lower()
    assert "httponly" in header and "samesite=lax" in header and "path=/" in header


def test_a_guest_who_registers_keeps_their_games_and_registered_players_are_rated(
        server: ServerProcess) -> None:
    eva = _browser(server)
    eva.post("/api/guest", json={"name": "Eva"})
    guest_id = eva.get("/api/me").json()["player"]["id"]
    finn = _register(server, "Finn")
    pass_to_the_end(server, _new_table(eva, [eva, finn]), [eva, finn])
    assert eva.post("/api/accounts", json={"name": "Eva", "password": "a long password"}
                    ).status_code == 201
    assert eva.get("/api/me").json()["player"]["id"] == guest_id  # the same player
    profile = eva.get(f"/api/players/{guest_id}").json()
    assert len(profile["games"]) == 1 and profile["wins"]["games"] == 1
    assert profile["averages"]  # statistics aggregated by id (R63)
    # Two registered players now: their next game is rated (bots and guests are not).
    table_id = _new_table(eva, [eva, finn])
    pass_to_the_end(server, table_id, [eva, finn])
    time.sleep(0.5)
    ratings = {p["name"]: p for p in eva.get("/api/leaderboard").json()["players"]}
    if eva.get(f"/api/players/{guest_id}").json()["games"][0]["team"] != \
            finn.get(f"/api/players/{finn.get('/api/me').json()['player']['id']}"
                     ).json()["games"][0]["team"]:
        assert ratings["Eva"]["games"] == 1 and ratings["Finn"]["games"] == 1


def _new_table(host: httpx.Client, people: list[httpx.Client]) -> str:
    table = host.post("/api/tables", json={"name": "history", "seats": 5, "day_seconds": 30,
                                           "night_seconds": 15}).json()
    for client in people:
        assert client.post(f"/api/tables/{table['id']}/seats", json={}).status_code == 200
    for _ in range(5 - len(people)):
        assert host.post(f"/api/tables/{table['id']}/bots", json={}).status_code == 200
    assert host.post(f"/api/tables/{table['id']}/start").status_code == 200
    return str(table["id"])


def test_nobody_reads_a_running_games_record_or_another_players_data_through_any_url(
        server: ServerProcess) -> None:
    gina = _register(server, "Gina")
    table_id = _new_table(gina, [gina])
    stranger = Guest(server.url, "Stranger").http
    for client in (gina, stranger):
        for path in (f"/api/tables/{table_id}/record", f"/api/tables/{table_id}/summary",
                     f"/api/tables/{table_id}/replay", f"/api/tables/{table_id}/replay?seat=1"):
            reply = client.get(path)
            assert reply.status_code == 403, (path, reply.text)
            assert "seed" not in reply.text and "deal" not in reply.text
    # Reports of a table are for its host only.
    assert stranger.post(f"/api/tables/{table_id}/reports", json={"seat": 1, "reason": "x"}
                         ).status_code == 201
    assert stranger.get(f"/api/tables/{table_id}/reports").status_code == 403
    hosts = gina.get(f"/api/tables/{table_id}/reports").json()["reports"]
    assert hosts and hosts[0]["seat"] == 1
    # One's own data holds no password hash, and no other player's data.
    mine = gina.get("/api/me/data").json()
    assert "password_hash" not in mine["player"] and mine["player"]["name"] == "Gina"
    assert all(s["player_id"] == mine["player"]["id"] for s in mine["seats"])


def test_replays_follow_one_seats_own_stream_and_reveal_everything_after(
        server: ServerProcess) -> None:
    hana = _register(server, "Hana")
    ivo = _register(server, "Ivo")
    table_id = _new_table(hana, [hana, ivo])
    pass_to_the_end(server, table_id, [hana, ivo])
    one = hana.get(f"/api/tables/{table_id}/replay", params={"seat": 1, "step": 1}).json()
    two = hana.get(f"/api/tables/{table_id}/replay", params={"seat": 2, "step": 1}).json()
    assert one["view"]["seat"] == 1 and two["view"]["seat"] == 2
    assert one["view"]["role"] and two["view"]["role"]
    last = hana.get(f"/api/tables/{table_id}/replay",
                    params={"seat": 1, "step": one["steps"]}).json()
    assert last["step"] == one["steps"] and last["view"]["status"] == "finished"
    assert [e["seq"] for e in last["events"]] == [one["steps"]]  # the seat's own numbering
    revealed = hana.get(f"/api/tables/{table_id}/replay", params={"step": 3}).json()
    assert len(revealed["roles"]) == 5


def test_deleting_an_account_replaces_the_name_and_keeps_the_games_for_the_others(
        server: ServerProcess) -> None:
    jo = _register(server, "Jo")
    kim = _register(server, "Kim")
    table_id = _new_table(jo, [jo, kim])
    pass_to_the_end(server, table_id, [jo, kim])
    assert kim.delete("/api/me").json() == {"deleted": True}
    assert kim.get("/api/me").status_code == 401
    record: dict[str, Any] = jo.get(f"/api/tables/{table_id}/record").json()
    assert "Kim" not in record["players"] and "Deleted player" in record["players"]
    assert jo.get(f"/api/tables/{table_id}/replay", params={"seat": 1}).status_code == 200
    assert jo.post("/api/login", json={"name": "Kim", "password": "a long password"}
                   ).status_code == 401


def test_a_program_seat_sees_only_its_seat(server: ServerProcess) -> None:
    lea = Guest(server.url, "Lea")
    table = lea.create(seats=5, day_seconds=30, night_seconds=15)
    program = lea.http.post(f"/api/tables/{table['id']}/seats/1/program",
                            json={"name": "Robo"}).json()
    lea.bots(table["id"], 4)
    lea.start(table["id"])
    robo = Player(server, table["id"], program["token"])
    robo.until(lambda p: p.view is not None)
    assert robo.seat == 1 and robo.view is not None and robo.view["seat"] == 1
    robo.close()


def test_a_players_copy_of_a_finished_game_holds_only_its_own_whispers_R50_D17(
        server: ServerProcess) -> None:
    """Downloads and replays are built from the viewer's copy of the record; the end
    screen shows no invisible vote (R23, D17)."""
    mia = _register(server, "Mia")
    noa = _register(server, "Noa")
    table_id = _new_table(mia, [mia, noa])
    with connect(f"{server.ws_url}/ws/tables/{table_id}", additional_headers={
            "Cookie": f"trusis_session={mia.cookies.get('trusis_session')}"}) as ws:
        ws.send(json.dumps({"type": "hello", "protocol": 1}))
        ws.send(json.dumps({"type": "act", "id": "w1",
                            "action": {"do": "say", "text": "secret-mia-to-3", "to": 3}}))
        while True:
            message = json.loads(ws.recv(timeout=10))
            if message.get("id") == "w1":
                assert message["type"] == "ack", message
                break
    pass_to_the_end(server, table_id, [mia, noa])
    assert "secret-mia-to-3" in mia.get(f"/api/tables/{table_id}/record").text
    assert "secret-mia-to-3" not in noa.get(f"/api/tables/{table_id}/record").text
    for step in (1, 5, 1000):
        replay = noa.get(f"/api/tables/{table_id}/replay", params={"seat": 1, "step": step})
        assert replay.status_code == 200 and "secret-mia-to-3" not in replay.text
    own = mia.get(f"/api/tables/{table_id}/replay", params={"seat": 1, "step": 1000})
    assert "secret-mia-to-3" in own.text
    end = noa.get(f"/api/tables/{table_id}/summary").json()
    for day in end["days"]:
        assert not {"illusions", "extra_votes", "counts"} & set(day), day
