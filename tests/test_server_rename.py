"""Changing one's name (D46, D47) through a real `trusis serve`: `PATCH /api/me`.

The same player gets a new name — never a new identity: their seats, the tables they host
and their account stay theirs, and what the other players see follows (the seats, the host,
the lobby's listing, the `table` frame of a waiting room). The new name is checked as
every name is (D9, D20) and, at every waiting room where the player sits, against the
names beside theirs; in a running game the players know them by the name they were dealt,
so renaming waits for its end. An account's name is its login: it signs in by the new one.
Renames are bounded per player (`too_many_renames`, docs/deploy.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from clusterproc import Cluster
from serverproc import Guest, Player, ServerProcess, running_server

RENAMES = 4  # the bound this module's server runs with (`--limit`)
PASSWORD = "a long password"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("rename")
    with running_server("sqlite", folder, bot_pace=0.0, log=folder / "serve.log",
                        extra=["--limit", f"renames_per_player_hour={RENAMES}"]) as running:
        yield running


def rename(guest: Guest | httpx.Client, name: object) -> httpx.Response:
    http = guest.http if isinstance(guest, Guest) else guest
    return http.patch("/api/me", json={"name": name})


def info(guest: Guest, table_id: str) -> dict[str, Any]:
    reply = guest.http.get(f"/api/tables/{table_id}")
    assert reply.status_code == 200, reply.text
    data: dict[str, Any] = reply.json()
    return data


def names(table: dict[str, Any]) -> list[str | None]:
    return [s["name"] for s in table["seats"]]


def test_D46_a_new_name_keeps_the_player_their_seat_and_their_table(
        server: ServerProcess) -> None:
    gus, ann = Guest(server.url, "Gus"), Guest(server.url, "Ann")
    table = gus.create(name="Gus's table", seats=5)
    tid = table["id"]
    assert gus.sit(tid) == 1 and ann.sit(tid) == 2
    watcher = Player(server, tid, ann.token)  # Ann's waiting room, open
    watcher.until(lambda p: any(m["type"] == "table" for m in p.messages), 10)

    reply = rename(gus, "Gus Fixed")
    assert reply.status_code == 200, reply.text
    assert reply.json()["player"] == {"id": gus.id, "name": "Gus Fixed", "kind": "guest"}
    assert gus.http.get("/api/me").json()["player"] == reply.json()["player"]

    seen = info(ann, tid)  # what the others see: the seat and the host
    assert seen["host"] == {"id": gus.id, "name": "Gus Fixed"}
    assert names(seen)[:2] == ["Gus Fixed", "Ann"]
    listed = next(t for t in ann.http.get("/api/tables").json()["tables"] if t["id"] == tid)
    assert listed["host"]["name"] == "Gus Fixed"
    watcher.until(lambda p: any(
        m["type"] == "table" and m["table"]["seats"][0]["name"] == "Gus Fixed"
        and m["table"]["host"]["name"] == "Gus Fixed" for m in p.messages), 10)
    watcher.close()

    mine = info(gus, tid)  # still his seat, still his table: he fills it and starts
    assert mine["seats"][0]["you"] is True and mine["you_host"] is True
    gus.bots(tid, 3)
    gus.start(tid)
    player = Player(server, tid, gus.token)
    player.until(lambda p: p.view is not None, 15)
    assert player.seat == 1 and player.view is not None
    assert player.view["role"]  # he plays, not watches
    assert player.view["players"][0]["name"] == "Gus Fixed"  # the game's name for seat 1
    player.close()
    for guest in (gus, ann):
        guest.close()


def test_D46_no_rename_while_the_player_plays_a_running_game(server: ServerProcess) -> None:
    gus, host = Guest(server.url, "Gus"), Guest(server.url, "Hana")
    tid = gus.create(name="Night owls", seats=5)["id"]
    gus.sit(tid)
    gus.bots(tid, 4)
    gus.start(tid)
    refused = rename(gus, "Gus Fixed")
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "rename_in_game"
    assert refused.json()["params"] == {"table": "Night owls", "seat": 1}
    assert gus.http.get("/api/me").json()["player"]["name"] == "Gus"  # nothing changed
    seat = info(gus, tid)["seats"][0]
    assert (seat["name"], seat["you"]) == ("Gus", True)

    # A host who does not play is no player of the game: their name follows everywhere.
    other = host.create(name="Hana's table", seats=5)["id"]
    Guest(server.url, "Ivo").sit(other)
    host.bots(other, 4)
    host.start(other)
    assert rename(host, "Hana B").status_code == 200
    assert info(gus, other)["host"]["name"] == "Hana B"
    for guest in (gus, host):
        guest.close()


def test_D46_a_new_name_is_checked_as_every_name_and_at_every_waiting_room(
        server: ServerProcess) -> None:
    gus, ann, bob = Guest(server.url, "Gus"), Guest(server.url, "Ann"), Guest(server.url, "Bob")
    first = ann.create(name="First", seats=5)["id"]
    second = bob.create(name="Second", seats=5)["id"]
    ann.sit(first)
    gus.sit(first)
    gus.sit(second)
    bob.sit(second)

    looks = rename(gus, "B0B")  # beside Bob at the second table (D20)
    assert looks.status_code == 409, looks.text
    assert looks.json()["code"] == "rename_confusable"
    assert looks.json()["params"] == {"name": "B0B", "other": "Bob", "table": "Second"}
    assert names(info(gus, first))[:2] == ["Ann", "Gus"]  # refused: nothing changed at all
    assert gus.http.get("/api/me").json()["player"]["name"] == "Gus"

    for raw, code in (("Seat 3", "name_like_seat"), ("\u3164", "invisible_name"),
                      ("   ", "empty_name"), ("x" * 33, "name_too_long"), (7, "bad_request")):
        reply = rename(gus, raw)
        assert (reply.status_code, reply.json()["code"]) == (422, code), (raw, reply.text)

    cleaned = rename(gus, " Gus\tthe\u202e\nSecond ")  # D9: control characters are spaces
    assert cleaned.status_code == 200, cleaned.text
    assert cleaned.json()["player"]["name"] == "Gus the Second"
    assert names(info(ann, first))[:2] == ["Ann", "Gus the Second"]
    assert names(info(bob, second))[:2] == ["Gus the Second", "Bob"]

    # A bot never keeps a name like a person's (D20): it takes another, the person keeps theirs.
    ann.bots(first, 1)
    bot = info(ann, first)["seats"][2]["name"]
    assert rename(gus, bot).status_code == 200
    after = names(info(ann, first))
    assert after[1] == bot and after[2] not in (None, bot)

    assert rename(gus, bot).json()["player"]["name"] == bot  # the same name: nothing to do
    for guest in (gus, ann, bob):
        guest.close()


def test_D47_an_account_keeps_its_games_and_signs_in_by_its_new_name(
        server: ServerProcess) -> None:
    carla = httpx.Client(base_url=server.url, timeout=10)
    made = carla.post("/api/accounts", json={"name": "Carla", "password": PASSWORD})
    assert made.status_code == 201, made.text
    carla_id = made.json()["player"]["id"]
    dora = httpx.Client(base_url=server.url, timeout=10)
    assert dora.post("/api/accounts", json={"name": "Dora", "password": PASSWORD}
                     ).status_code == 201

    taken = rename(carla, "DORA")
    assert taken.status_code == 409 and taken.json()["code"] == "name_taken", taken.text
    assert rename(carla, "carla").status_code == 200  # her own name, another case
    done = rename(carla, "Carla Bee")
    assert done.status_code == 200, done.text
    assert done.json()["player"] == {"id": carla_id, "name": "Carla Bee", "kind": "account"}
    assert carla.get("/api/me").json()["player"]["kind"] == "account"  # still signed in

    fresh = httpx.Client(base_url=server.url, timeout=10)
    assert fresh.post("/api/login", json={"name": "Carla", "password": PASSWORD}
                      ).json()["code"] == "wrong_login"
    login = fresh.post("/api/login", json={"name": "carla bee", "password": PASSWORD})
    assert login.status_code == 200 and login.json()["player"]["id"] == carla_id
    # The old name is free again: a new account may take it.
    assert httpx.post(server.url + "/api/accounts",
                      json={"name": "Carla", "password": PASSWORD}).status_code == 201
    for client in (carla, dora, fresh):
        client.close()


def test_D46_renames_are_bounded_and_need_a_player(server: ServerProcess) -> None:
    gus = Guest(server.url, "Gus")
    for n in range(RENAMES):
        assert rename(gus, f"Gus {n}").status_code == 200
    assert rename(gus, f"Gus {RENAMES - 1}").status_code == 200  # unchanged: not counted
    over = rename(gus, "Gus again")
    assert over.status_code == 429, over.text
    assert over.json()["code"] == "too_many_renames"
    assert over.json()["params"]["limit"] == RENAMES
    assert int(over.headers["Retry-After"]) == over.json()["params"]["retry_after"] > 0
    assert gus.http.get("/api/me").json()["player"]["name"] == f"Gus {RENAMES - 1}"

    nobody = httpx.patch(server.url + "/api/me", json={"name": "Who"})
    assert (nobody.status_code, nobody.json()["code"]) == (401, "not_signed_in")
    host = Guest(server.url, "Hana")
    tid = host.create(seats=5)["id"]
    token = host.http.post(f"/api/tables/{tid}/seats/1/program", json={"name": "Robo"}
                           ).json()["token"]
    program = httpx.patch(server.url + "/api/me", json={"name": "Robo 2"},
                          headers={"Authorization": f"Bearer {token}"})
    assert (program.status_code, program.json()["code"]) == (403, "seat_token")
    for guest in (gus, host):
        guest.close()


def test_D46_in_a_cluster_the_owner_renames_and_every_process_shows_it(
        two_processes: Cluster) -> None:
    """The rename comes to one process, the table is written by the other: the writer
    renames the seat and the host, and the first process's clients see it too."""
    a, b = two_processes.servers
    gus = Guest(a.url, "Gus")  # his table is written by process a
    tid = gus.create(name="Split", seats=5)["id"]
    gus.sit(tid)
    ann = Guest(b.url, "Ann")
    ann.sit(tid)
    watcher = Player(b, tid, ann.token)  # a follower's client, on process b
    watcher.until(lambda p: any(m["type"] == "table" for m in p.messages), 10)
    gus.http.base_url = httpx.URL(b.url)  # his next request reaches process b
    reply = rename(gus, "Gus Fixed")
    assert reply.status_code == 200, reply.text
    watcher.until(lambda p: any(
        m["type"] == "table" and m["table"]["seats"][0]["name"] == "Gus Fixed"
        and m["table"]["host"]["name"] == "Gus Fixed" for m in p.messages), 10)
    for server in (a, b):
        seen = httpx.get(f"{server.url}/api/tables/{tid}",
                         headers={"Authorization": f"Bearer {ann.token}"}).json()
        assert (seen["host"]["name"], names(seen)[:2]) == ("Gus Fixed", ["Gus Fixed", "Ann"])
    watcher.close()
    for guest in (gus, ann):
        guest.close()


def test_D20_D46_a_new_name_is_folded_both_ways_as_a_seated_one_is(
        server: ServerProcess) -> None:
    """An attacker's trial: "A｜ice" (a full-width bar for the l) is refused to a guest
    sitting beside Alice, but a seated player renamed to it, and to four more look-alikes
    that only one of the two foldings (confusables before NFKC, or after) catches."""
    alice, cat, sam = Guest(server.url, "Alice"), Guest(server.url, "Cat"), Guest(server.url, "Sam")
    mallories = [Guest(server.url, "Mallory"), Guest(server.url, "Mal")]  # RENAMES each
    table = alice.create(name="Look-alikes", seats=6)["id"]
    for guest in (alice, cat, sam, *mallories):
        guest.sit(table)
    for n, (wanted, other) in enumerate((("A\uff5cice", "Alice"), ("Ali\u24b8e", "Alice"),
                                         ("\u24b8at", "Cat"), ("\u017fam", "Sam"),
                                         ("\u02e2am", "Sam"))):
        reply = rename(mallories[n % 2], wanted)
        assert reply.status_code == 409, (wanted, reply.text)
        assert reply.json()["code"] == "rename_confusable"
        assert reply.json()["params"]["other"] == other
    assert names(info(alice, table)) == ["Alice", "Cat", "Sam", "Mallory", "Mal", None]
    for guest in (alice, cat, sam, *mallories):
        guest.close()
