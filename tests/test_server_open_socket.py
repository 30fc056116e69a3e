"""A connection follows its player's seat in the waiting room (docs/protocol.md, "Details a
client meets"), over real WebSockets to a real `trusis serve`.

Which seat a connection plays comes from its player's identity. A player who sits, stands
or sits elsewhere before the start keeps the connection they have: from that change on it
plays the seat they hold now (or watches), so the table's facts say their seat is
connected — and no longer the seat they left — and at the start it receives that seat's
first view as a `snapshot`, with no second `welcome`. The page needs no new connection for
any of it (issue 36; tests/test_web_one_socket.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from serverplay import Conn
from serverproc import Guest, ServerProcess, new_database, running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("open_socket")) as proc:
        yield proc


def last_table(conn: Conn) -> dict[str, Any]:
    """The table's facts as this connection last heard them (all that was sent has come)."""
    conn.barrier()
    table: dict[str, Any] = next(m for m in reversed(conn.messages)
                                 if m["type"] == "table")["table"]
    return table


def heard(conn: Conn, fact: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The table's facts once they say `fact` (joins and parts are told together, within
    0.1 s: room.py `table_soon`, but seconds on a loaded machine); a failure shows the last
    ones heard."""
    deadline = time.monotonic() + 15
    while not fact(facts := last_table(conn)):
        assert time.monotonic() < deadline, facts
        time.sleep(0.05)
    return facts


def seat_entry(table: dict[str, Any], seat: int) -> dict[str, Any]:
    entry: dict[str, Any] = table["seats"][seat - 1]
    return entry


def test_a_watcher_who_sits_plays_that_seat_on_the_connection_it_has(
        server: ServerProcess) -> None:
    ann, bob = Guest(server.url, "Ann"), Guest(server.url, "Bob")
    table = ann.create(seats=5, day_seconds=3600)["id"]
    ann.sit(table, 1)
    ann_conn, bob_conn = Conn(server, table, ann.token), Conn(server, table, bob.token)
    bob_conn.barrier()
    assert bob_conn.seat is None
    heard(ann_conn, lambda facts: facts["spectators"] == 1)
    seat = bob.sit(table)
    for conn in (ann_conn, bob_conn):
        facts = heard(conn, lambda facts: seat_entry(facts, seat)["name"] == "Bob"
                      and seat_entry(facts, seat)["connected"] is True)
        assert facts["spectators"] == 0
    assert seat_entry(last_table(bob_conn), seat)["you"] is True
    said = bob_conn.command(do="say", text="sitting now")  # D45: a seated player's line
    assert said["type"] == "ack", said
    ann.bots(table, 3)
    ann.start(table)
    bob_conn.until(lambda c: c.view is not None)
    snapshots = [m for m in bob_conn.messages if m["type"] == "snapshot"]
    assert len(snapshots) == 1 and snapshots[0]["view"]["seat"] == seat
    assert snapshots[0]["view"]["role"]
    assert [m["type"] for m in bob_conn.messages].count("welcome") == 1
    assert bob_conn.command(do="say", text="day one")["type"] == "ack"
    for conn in (ann_conn, bob_conn):
        conn.close()
    ann.close()
    bob.close()


def test_a_player_who_stands_watches_on_the_connection_it_has(server: ServerProcess) -> None:
    """Bob stands and Cid, not connected, takes his seat: the seat is not connected (Bob's
    connection watches now), and at the start Bob reads the public view."""
    ann, bob, cid = Guest(server.url, "Ann"), Guest(server.url, "Bob"), Guest(server.url, "Cid")
    table = ann.create(seats=5, day_seconds=3600)["id"]
    ann.sit(table, 1)
    bob.sit(table, 2)
    bob_conn = Conn(server, table, bob.token)
    bob_conn.barrier()
    assert bob_conn.seat == 2
    heard(bob_conn, lambda facts: seat_entry(facts, 2)["connected"] is True)
    assert bob.http.delete(f"/api/tables/{table}/seats/mine").status_code == 200
    cid.sit(table, 2)
    facts = heard(bob_conn, lambda facts: seat_entry(facts, 2)["name"] == "Cid"
                  and seat_entry(facts, 2)["connected"] is False)
    assert facts["spectators"] == 1
    refused = bob_conn.command(do="say", text="still here")
    assert refused["type"] == "refused" and refused["code"] == "spectator", refused
    ann.bots(table, 3)
    ann.start(table)
    bob_conn.until(lambda c: c.view is not None)
    assert bob_conn.view is not None and bob_conn.view["seat"] is None
    assert "role" not in bob_conn.view
    bob_conn.close()
    for guest in (ann, bob, cid):
        guest.close()


def test_a_connection_s_log_lines_name_the_seat_it_plays_now(tmp_path: Path) -> None:
    """Bob connects as a spectator, sits, plays a line of chat in the game and goes: the
    lines of his connection from then on name his seat, its close included."""
    log = tmp_path / "server.log"
    server = ServerProcess(new_database("sqlite", tmp_path), log=log,
                           extra=["--log-format", "json", "--log-level", "info"])
    server.start()
    try:
        ann, bob = Guest(server.url, "Ann"), Guest(server.url, "Bob")
        table = ann.create(seats=5, day_seconds=3600)["id"]
        ann.sit(table, 1)
        bob_conn = Conn(server, table, bob.token)
        bob_conn.barrier()
        seat = bob.sit(table)
        ann.bots(table, 3)
        ann.start(table)
        bob_conn.until(lambda c: c.view is not None)
        assert bob_conn.command(do="say", text="hello")["type"] == "ack"
        bob_conn.close()
        deadline = time.monotonic() + 10
        while "connection closed" not in log.read_text("utf-8"):
            assert time.monotonic() < deadline, "no line says the connection closed"
            time.sleep(0.1)
        ann.close()
        bob.close()
    finally:
        server.stop()
    records = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    closed = [r for r in records if r["message"].startswith("connection closed")]
    assert [(r["message"], r["seat"]) for r in closed] == [("connection closed (seat)", seat)]
