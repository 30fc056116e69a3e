"""Play again with two `trusis serve` processes (issue 21, D19; docs/deploy.md): the
rematch is proposed, accepted and declined through the process that does *not* own the
finished game, and the clients connected there hear of it and see the kept seats as the
owner has them."""

from __future__ import annotations

import time

import httpx

from clusterproc import Cluster, needs_cluster
from serverproc import Guest, Player
from test_server_rematch import play_to_the_end

pytestmark = needs_cluster


def seats_of(client: httpx.Client, table_id: str) -> dict[int, dict[str, object]]:
    return {s["seat"]: s for s in client.get(f"/api/tables/{table_id}").json()["seats"]}


def until(check: object, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_rematch_through_the_process_that_does_not_own_the_game(
        two_processes: Cluster) -> None:
    a, b = two_processes.servers
    ann = Guest(a.url, "Ann")  # the table is created, so owned, on a
    bob, cid = Guest(b.url, "Bob"), Guest(b.url, "Cid")  # these two only ever ask b
    old = ann.create(seats=5, day_seconds=60, night_seconds=30)["id"]
    ann.sit(old)
    bob.sit(old)
    cid.sit(old)
    ann.bots(old, 2)
    ann.start(old)
    players = [Player(a, old, ann.token), Player(b, old, bob.token), Player(b, old, cid.token)]
    play_to_the_end(players)

    host_on_b = httpx.Client(base_url=b.url, headers=ann.http.headers, timeout=10)
    proposed = host_on_b.post(f"/api/tables/{old}/rematch")
    assert proposed.status_code == 200, proposed.text
    new = proposed.json()["table"]["id"]
    assert {s["seat"]: s["kind"] for s in proposed.json()["table"]["seats"]} == {
        1: "person", 2: "reserved", 3: "reserved", 4: "bot", 5: "bot"}
    assert ann.http.post(f"/api/tables/{old}/rematch").json()["table"]["id"] == new
    # The clients on b (a follower of the finished game) hear of it, and its facts say so.
    for p in players:
        p.until(lambda q: any(m["type"] == "rematch" and m["table"] == new
                              for m in q.messages), 10)
    assert bob.http.get(f"/api/tables/{old}").json()["rematch"] == new

    # Bob accepts and Cid declines, both on b; both processes then show the same seats.
    accepted = bob.http.post(f"/api/tables/{new}/rematch/accept")
    assert accepted.status_code == 200 and accepted.json()["seat"] == 2, accepted.text
    declined = cid.http.post(f"/api/tables/{new}/rematch/decline")
    assert declined.status_code == 200, declined.text
    for client in (ann.http, bob.http):
        until(lambda c=client: [(s["kind"], s.get("name")) for s in seats_of(c, new).values()][:3]
              == [("person", "Ann"), ("person", "Bob"), (None, None)])
    assert cid.sit(new) == 3
    series = bob.http.get(f"/api/tables/{new}/series").json()
    assert [g["status"] for g in series["games"]] == ["finished", "open"]
    assert ann.start(new)["status"] == "running"
    for p in players:
        p.close()
