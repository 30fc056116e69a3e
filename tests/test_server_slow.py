"""Slow tables (issue 37, D62, D63) through a real `trusis serve`: a table option with bounds of
its own, named in each refusal, and a grace period that hands nobody's seat on for sleeping,
while a real-time table with the same settings hands it to a bot as before (R52, R53)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from serverproc import Guest, Player, ServerProcess, postgres_available, running_server

HOUR, DAY = 3600, 86400
GRACE = 5


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("slow")) as proc:
        yield proc


def refused(guest: Guest, **options: Any) -> dict[str, Any]:
    reply = guest.http.post("/api/tables", json=options)
    assert reply.status_code == 422, reply.text
    body: dict[str, Any] = reply.json()
    assert body["code"] == "bad_request"
    return body


def test_D62_a_slow_table_takes_hours_and_days_each_bound_named(server: ServerProcess) -> None:
    host = Guest(server.url, "Host")
    table = host.create(slow=True, day_seconds=2 * DAY, night_seconds=DAY)
    assert table["options"]["slow"] is True
    assert (table["options"]["day_seconds"], table["options"]["night_seconds"]) == (2 * DAY, DAY)
    shown = host.http.get(f"/api/tables/{table['id']}").json()["options"]
    assert shown["slow"] is True  # stored, and read back as slow
    # A real-time table keeps its bounds: a day of a day is a slow table's.
    body = refused(host, day_seconds=DAY)
    assert body["params"] == {"field": "day_seconds", "le": HOUR}
    assert "real-time" in body["message"]
    # A slow table's own bounds, each named with its field.
    body = refused(host, slow=True, day_seconds=HOUR - 1, night_seconds=HOUR)
    assert body["params"] == {"field": "day_seconds", "ge": HOUR}
    assert "slow table" in body["message"]
    body = refused(host, slow=True, day_seconds=HOUR, night_seconds=DAY + 1)
    assert body["params"] == {"field": "night_seconds", "le": DAY}
    body = refused(host, slow=True, day_seconds=2 * DAY + 1, night_seconds=HOUR)
    assert body["params"] == {"field": "day_seconds", "le": 2 * DAY}
    # Defaults are a real-time table's, as before the option existed.
    assert host.create()["options"]["slow"] is False
    host.close()


def _away_from_the_start(server: ServerProcess, **options: Any) -> tuple[Guest, str]:
    """Ann sits and is not there when the game starts; the host fills the table with bots."""
    host, ann = Guest(server.url, "Host"), Guest(server.url, "Ann")
    tid = host.create(seats=5, grace_seconds=GRACE, **options)["id"]
    ann.sit(tid, 1)
    host.bots(tid, 4)
    host.start(tid)
    return ann, tid


def test_D63_nobody_is_replaced_for_sleeping_at_a_slow_table(server: ServerProcess) -> None:
    """Both tables ask a grace period of 5 s: the real-time one hands Ann's seat to a bot
    after it (R52, R53); the slow one keeps it hers, since its grace is a day (D63)."""
    ann_live, live = _away_from_the_start(server, day_seconds=HOUR, night_seconds=1800)
    ann_slow, slow = _away_from_the_start(server, slow=True, day_seconds=20 * HOUR,
                                          night_seconds=4 * HOUR)
    deadline = time.monotonic() + GRACE + 20
    while True:
        seat = ann_live.http.get(f"/api/tables/{live}").json()["seats"][0]
        if seat["kind"] == "bot":
            break  # the real-time table's grace ran out: a bot plays for her
        assert time.monotonic() < deadline, seat
        time.sleep(0.2)
    time.sleep(1.0)  # the slow table was started after the live one: its 5 s are past too
    seat = ann_slow.http.get(f"/api/tables/{slow}").json()["seats"][0]
    assert seat["kind"] == "person" and seat["name"] == "Ann", seat
    assert not seat.get("departed")
    mine = ann_slow.http.get("/api/me/tables").json()["tables"]
    assert [t["id"] for t in mine] == [slow]  # still her seat to play
    ann_live.close()
    ann_slow.close()


def yours(guest: Guest) -> tuple[dict[str, dict[str, Any]], int]:
    reply = guest.http.get("/api/me/tables")
    assert reply.status_code == 200, reply.text
    body = reply.json()
    return {t["id"]: t["yours"] for t in body["tables"]}, int(body["waiting"])


def test_D64_your_games_say_the_phase_time_left_what_to_do_and_what_is_unread(
        server: ServerProcess) -> None:
    """Ann is away from a slow game where programs play the other seats: her games say it
    is day 1, when it ends, that she has to pass, and how many lines reached her seat — a
    whisper between two others not among them (R50) — until she opens it."""
    hal, ann = Guest(server.url, "Hal"), Guest(server.url, "Ann")
    tid = hal.create(seats=5, slow=True, day_seconds=20 * HOUR, night_seconds=4 * HOUR)["id"]
    ann.sit(tid, 1)
    robots = {n: Player(server, tid, hal.program(tid, n, f"Robo{n}")) for n in (2, 3, 4, 5)}
    before = time.time()
    hal.start(tid)
    for robot in robots.values():
        robot.until(lambda p: p.view is not None and p.view["status"] == "running")
    games, waiting = yours(ann)
    mine = games[tid]
    assert (mine["seat"], mine["phase"], mine["to_do"]) == (1, {"kind": "day", "number": 1}, True)
    assert before + 20 * HOUR - 5 < mine["deadline"] < time.time() + 20 * HOUR + 5
    assert mine["unread"] == {"chat": 0, "private": 0} and waiting == 1
    assert yours(hal) == ({tid: yours(hal)[0][tid]}, 0)  # the host sits nowhere: nothing to do

    secret = "between-robots-only"
    for said in ({"text": "morning all"}, {"text": "psst Ann", "to": 1},
                 {"text": secret, "to": 3}, {"text": "anyone?"}):
        assert robots[2].command(do="say", **said)["type"] == "ack"
    mine = yours(ann)[0][tid]
    assert mine["unread"] == {"chat": 2, "private": 1}, mine  # not the whisper to seat 3
    assert secret not in ann.http.get("/api/me/tables").text

    page = Player(server, tid, ann.token)  # she drops in, reads, passes and goes
    page.until(lambda p: p.view is not None and "pass" in p.legal())
    assert yours(ann)[0][tid]["reading"] is True
    assert page.command(do="pass")["type"] == "ack"
    page.close()
    deadline = time.monotonic() + 10
    while (mine := yours(ann)[0][tid])["reading"] or mine["unread"]["chat"]:
        assert time.monotonic() < deadline, mine  # her page's mark is kept as it closes
        time.sleep(0.1)
    assert mine["unread"] == {"chat": 0, "private": 0} and mine["to_do"] is False
    assert yours(ann)[1] == 0  # nothing waits for her now
    assert robots[3].command(do="say", text="Ann passed already")["type"] == "ack"
    assert yours(ann)[0][tid]["unread"] == {"chat": 1, "private": 0}
    for robot in robots.values():
        robot.close()


def test_D62_slow_games_per_player_is_answered_with_its_code_and_a_sentence(
        server: ServerProcess) -> None:
    """Ten slow seats at once (the default); the eleventh is refused, a real-time table is
    not counted, and standing up from one frees its place."""
    hosts = [Guest(server.url, f"Host{n}") for n in range(3)]
    eve = Guest(server.url, "Eve")
    slow = [host.create(slow=True, day_seconds=DAY, night_seconds=HOUR)["id"]
            for host in hosts[:2] for _ in range(5)]
    for tid in slow:
        eve.sit(tid)
    one_more = hosts[2].create(slow=True, day_seconds=DAY, night_seconds=HOUR)["id"]
    reply = eve.http.post(f"/api/tables/{one_more}/seats", json={"seat": None})
    assert reply.status_code == 429, reply.text
    body = reply.json()
    assert body["code"] == "too_many_slow_games" and body["params"]["limit"] == 10
    assert body["message"] == ("you already sit at 10 slow games: finish or leave one before "
                               "sitting at another")
    assert int(reply.headers["Retry-After"]) == 3600
    eve.sit(hosts[2].create(day_seconds=HOUR, night_seconds=1800)["id"])  # real-time: free
    eve.sit(slow[0], 3)  # another seat of a table she sits at takes no other place
    assert eve.http.delete(f"/api/tables/{slow[0]}/seats/mine").status_code == 200
    eve.sit(one_more)
    for guest in (*hosts, eve):
        guest.close()


def test_D67_a_slow_games_rematch_keeps_its_seats_a_day_and_its_host_first_an_hour(
        server: ServerProcess) -> None:
    """Its players learn of the end by mail, hours later: a seat kept for two minutes (D19)
    would be gone before they read it."""
    from test_server_rematch import play_to_the_end

    host, ann = Guest(server.url, "Hostess"), Guest(server.url, "Ann")
    old = host.create(seats=5, slow=True, day_seconds=HOUR, night_seconds=HOUR)["id"]
    host.sit(old, 1)
    ann.sit(old, 2)
    host.bots(old, 3)
    host.start(old)
    players = [Player(server, old, g.token) for g in (host, ann)]
    play_to_the_end(players)
    for p in players:
        p.close()
    early = ann.http.post(f"/api/tables/{old}/rematch")
    assert early.status_code == 403 and early.json()["code"] == "host_first"
    assert 3500 < early.json()["params"]["seconds"] <= 3601  # an hour, not a minute
    proposed = host.http.post(f"/api/tables/{old}/rematch")
    assert proposed.status_code == 200, proposed.text
    new = proposed.json()["table"]
    assert new["options"]["slow"] is True
    kept = next(s for s in new["seats"] if s.get("kind") == "reserved")
    assert kept["name"] == "Ann" and DAY - 60 < kept["until"] - time.time() <= DAY
    for guest in (host, ann):
        guest.close()


@pytest.mark.skipif(not postgres_available(), reason="no PostgreSQL at 127.0.0.1:5432")
def test_D64_the_read_marks_and_the_slow_limit_on_postgresql(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The same on PostgreSQL: the read mark's upsert (migration 0010) and the count."""
    with running_server("postgresql", tmp_path_factory.mktemp("slow-pg")) as pg:
        test_D64_your_games_say_the_phase_time_left_what_to_do_and_what_is_unread(pg)
        test_D62_slow_games_per_player_is_answered_with_its_code_and_a_sentence(pg)
