"""D55: a person the host removes from a waiting room (D34) is told at once, and is out of
that waiting room — through a real `trusis serve`, over HTTP and WebSockets.

Their open connections to the table end at once with close code 4403, reason `removed`
(no `table` frame offering them the seat, no more `waiting_chat`); while the table waits
for its start, opening it again — its WebSocket or `GET /api/tables/{id}`, with a private
table's invite or without — is refused the same way. Everyone else at the table goes on
as before. Once the game has started, the removed person may watch it as anyone may. With
several processes, the process that writes the table removes, and the one that holds the
removed person's connection closes it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from clusterproc import Cluster
from serverplay import Conn, command
from serverproc import Guest, ServerProcess, hello, running_server

REMOVED = (4403, "removed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("removed")) as proc:
        yield proc


def remove(host: Guest, table_id: str, seat: int) -> httpx.Response:
    return host.http.post(f"/api/tables/{table_id}/seats/{seat}/remove")


def turned_away(server: ServerProcess, table_id: str, token: str,
                invite: str | None = None) -> tuple[int | None, str]:
    """A connection opened now: how the server ends it (None: it stays open)."""
    try:
        conn = Conn(server, table_id, token, invite=invite)
    except ConnectionClosed as closed:  # ended before its `hello` went out
        assert closed.rcvd is not None
        return closed.rcvd.code, closed.rcvd.reason
    code = conn.ending(3.0)
    conn.close()
    return code


def said(conn: Conn) -> list[str]:
    return [line["text"] for m in conn.messages if m["type"] == "waiting_chat"
            for line in m["lines"]]


def seated(frame: dict[str, Any], name: str) -> bool:
    return any(s["name"] == name for s in frame["seats"])


def tables(conn: Conn) -> list[dict[str, Any]]:
    return [m["table"] for m in conn.messages if m["type"] in ("welcome", "table")]


def test_D55_the_removed_person_is_told_at_once_and_is_out_of_the_waiting_room(
        server: ServerProcess) -> None:
    """A private table: Bob, seated, with two pages open, is removed by Ann. Both pages
    end at once with 4403 `removed`; he hears no more of the waiting room's chat, and the
    table no longer opens for him, invite or not. Cid (seated) and Eve (watching) go on."""
    ann, bob, cid, eve = (Guest(server.url, n) for n in ("Ann", "Bob", "Cid", "Eve"))
    made = ann.create(name="Private", seats=5, private=True)
    tid, invite = made["id"], made["invite"]
    assert ann.sit(tid, 1) == 1 and bob.sit(tid, 2, invite) == 2 and cid.sit(tid, 3, invite) == 3
    a, b, b2, c, e = (Conn(server, tid, g.token, invite=invite)
                      for g in (ann, bob, bob, cid, eve))
    for conn in (a, b, b2, c, e):
        conn.barrier()
    assert command(a, do="say", text="before")["type"] == "ack"
    for conn in (b, b2):
        conn.barrier()
        assert said(conn) == ["before"]
    heard = len(b.messages), len(b2.messages)

    reply = remove(ann, tid, 2)
    assert reply.status_code == 200, reply.text
    assert reply.json()["seats"][1]["kind"] is None

    for conn, before in zip((b, b2), heard, strict=True):  # told at once, then closed
        assert conn.ending() == REMOVED
        # Nothing after the removal offered him anything: no `table` without his seat.
        assert all(seated(t, "Bob") for t in tables(conn)), conn.messages[before:]

    assert command(a, do="say", text="after")["type"] == "ack"
    for conn in (a, c, e):  # the others: the seat free, the chat goes on
        conn.barrier()
        assert said(conn)[-2:] == ["before", "after"]
        assert not seated(tables(conn)[-1], "Bob") and seated(tables(conn)[-1], "Cid")
    assert command(c, do="say", text="still here")["type"] == "ack"
    assert said(b) == ["before"] and said(b2) == ["before"]  # nothing after the removal
    assert all("after" not in f for f in (*b.frames, *b2.frames))

    # Opening it again while it waits: refused, invite or not (the WebSocket and the page).
    assert turned_away(server, tid, bob.token, invite) == REMOVED
    assert turned_away(server, tid, bob.token) == REMOVED
    for query in ({"invite": invite}, {}):
        page = bob.http.get(f"/api/tables/{tid}", params=query)
        assert (page.status_code, page.json()["code"]) == (403, "removed"), page.text
        assert page.json()["message"] == "the host removed you from this table"
    again = bob.http.post(f"/api/tables/{tid}/seats", json={}, params={"invite": invite})
    assert (again.status_code, again.json()["code"]) == (403, "removed")  # D34
    assert ann.http.get(f"/api/tables/{tid}").json()["taken"] == 2  # nothing changed
    # Someone never removed from it, with the invite: welcome as before.
    fay = Conn(server, tid, Guest(server.url, "Fay").token, invite=invite)
    fay.barrier()
    assert fay.messages[0]["type"] == "welcome" and said(fay)[-1] == "still here"
    assert eve.http.get(f"/api/tables/{tid}", params={"invite": invite}).status_code == 200
    for conn in (a, c, e, fay):
        conn.close()
    for guest in (ann, bob, cid, eve):
        guest.close()


def test_D55_a_connection_on_its_way_in_when_the_host_removes_is_turned_away(
        server: ServerProcess) -> None:
    """Bob's page opened its socket before the removal and sends `hello` after it: it is
    closed with 4403 `removed`, before any `welcome` — nothing of the table reaches it."""
    ann, bob = Guest(server.url, "Ann"), Guest(server.url, "Bob")
    tid = ann.create(name="Open", seats=5)["id"]
    assert ann.sit(tid, 1) == 1 and bob.sit(tid, 2) == 2
    got: list[dict[str, Any]] = []
    with connect(f"{server.ws_url}/ws/tables/{tid}", open_timeout=10,
                 additional_headers={"Authorization": f"Bearer {bob.token}"}) as ws:
        time.sleep(0.3)  # the server has read the database, and waits for `hello`
        assert remove(ann, tid, 2).status_code == 200
        ws.send(hello())
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                got.append(json.loads(ws.recv(timeout=10)))
    assert closed.value.rcvd is not None
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == REMOVED
    assert got == []
    for guest in (ann, bob):
        guest.close()


def test_D55_once_the_game_has_started_the_removed_person_may_watch(
        server: ServerProcess) -> None:
    """D55 decides it: removal is from the waiting room. Once the game runs, Bob opens the
    public table as anyone may — a spectator, told nothing a spectator is not — and still
    cannot take a seat (D34: a claim is refused)."""
    ann, bob = Guest(server.url, "Ann"), Guest(server.url, "Bob")
    tid = ann.create(name="Public", seats=5)["id"]
    assert ann.sit(tid, 1) == 1 and bob.sit(tid, 2) == 2
    assert remove(ann, tid, 2).status_code == 200
    assert turned_away(server, tid, bob.token) == REMOVED
    ann.bots(tid, 4)
    ann.start(tid)
    page = bob.http.get(f"/api/tables/{tid}")
    assert page.status_code == 200 and page.json()["status"] == "running"
    watch = Conn(server, tid, bob.token).open()
    assert watch.seat is None
    assert watch.view is not None and watch.view["seat"] is None and "role" not in watch.view
    refused = command(watch, do="pass")
    assert (refused["type"], refused["code"]) == ("refused", "spectator")
    watch.close()
    for guest in (ann, bob):
        guest.close()


def test_D55_only_the_host_removes_a_person_and_only_before_the_start(
        server: ServerProcess) -> None:
    """The refusals of D34 stay as they were, now given by the table's writer."""
    ann, bob, cid = (Guest(server.url, n) for n in ("Ann", "Bob", "Cid"))
    tid = ann.create(name="Refusals", seats=5)["id"]
    assert ann.sit(tid, 1) == 1 and bob.sit(tid, 2) == 2
    b = Conn(server, tid, bob.token)
    b.barrier()
    for who, seat, code in ((cid, 2, (403, "not_host")), (ann, 1, (409, "own_seat")),
                            (ann, 4, (409, "not_a_person"))):
        reply = remove(who, tid, seat)
        assert (reply.status_code, reply.json()["code"]) == code, reply.text
    ann.bots(tid, 3)
    assert remove(ann, tid, 3).json()["code"] == "not_a_person"  # a bot: free it instead
    ann.start(tid)
    late = remove(ann, tid, 2)
    assert (late.status_code, late.json()["code"]) == (409, "already_started")
    b.barrier()  # Bob plays on
    assert b.seat == 2 and not b.ws.close_code
    b.close()
    for guest in (ann, bob, cid):
        guest.close()


def test_D55_in_a_cluster_the_process_that_holds_the_connection_closes_it(
        two_processes: Cluster) -> None:
    """Process a writes the table; Bob has a page on each process; Ann's request reaches
    b. Both of Bob's pages end with 4403 `removed`, Cid's on b goes on, and the table no
    longer opens for Bob on either process."""
    a, b = two_processes.servers
    ann = Guest(a.url, "Ann")
    made = ann.create(name="Split", seats=5, private=True)
    tid, invite = made["id"], made["invite"]
    assert ann.sit(tid, 1) == 1
    bob, cid = Guest(b.url, "Bob"), Guest(b.url, "Cid")
    assert bob.sit(tid, 2, invite) == 2 and cid.sit(tid, 3, invite) == 3
    bob_b = Conn(b, tid, bob.token, invite=invite)  # a follower's client
    bob_a = Conn(a, tid, bob.token, invite=invite)  # the writer's own
    cid_b = Conn(b, tid, cid.token, invite=invite)
    ann_a = Conn(a, tid, ann.token)
    for conn in (bob_b, bob_a, cid_b, ann_a):
        conn.barrier()
    ann.http.base_url = httpx.URL(b.url)  # her request reaches process b
    reply = remove(ann, tid, 2)
    assert reply.status_code == 200, reply.text
    for conn in (bob_b, bob_a):
        assert conn.ending() == REMOVED
        assert all(seated(t, "Bob") for t in tables(conn))
    assert command(ann_a, do="say", text="on we go")["type"] == "ack"
    cid_b.until(lambda p: "on we go" in said(p), 10)
    assert not seated(tables(cid_b)[-1], "Bob")
    for server in (a, b):
        assert turned_away(server, tid, bob.token, invite) == REMOVED
        page = httpx.get(f"{server.url}/api/tables/{tid}", params={"invite": invite},
                         headers={"Authorization": f"Bearer {bob.token}"})
        assert (page.status_code, page.json()["code"]) == (403, "removed"), page.text
    for conn in (cid_b, ann_a):
        conn.close()
    for guest in (ann, bob, cid):
        guest.close()
