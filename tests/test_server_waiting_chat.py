"""Chat in the waiting room (R50, D45), through a real server: before the host starts, a
seated player's public line is cleaned and checked as the game's chat is, sent to every
connection of the table (`waiting_chat`), kept for who connects later, and never part
of the game's record; a spectator cannot send one, and private messages wait for the
start (`private_not_started`)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from clusterproc import Cluster
from modhelp import account, grant, sanction
from serverplay import Conn, command
from serverproc import Guest, ServerProcess, running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("waiting-chat")) as proc:
        yield proc


def lines(conn: Conn) -> list[dict[str, Any]]:
    """Every waiting-room line `conn` received, in order."""
    return [line for m in conn.messages if m["type"] == "waiting_chat" for line in m["lines"]]


def texts(conn: Conn) -> list[tuple[int, str, str]]:
    return [(line["seat"], line["name"], line["text"]) for line in lines(conn)]


def waiting(server: ServerProcess, names: tuple[str, ...] = ("Ann", "Bob"),
            seats: int = 5) -> tuple[str, list[Guest], list[Conn]]:
    """A table not started, `names` seated in order, each connected (after sitting)."""
    guests = [Guest(server.url, name) for name in names]
    tid = guests[0].create(seats=seats, day_seconds=60, night_seconds=30)["id"]
    for number, guest in enumerate(guests, 1):
        assert guest.sit(tid, number) == number
    conns = [Conn(server, tid, g.token) for g in guests]
    for conn in conns:
        conn.barrier()
    return tid, guests, conns


def test_seated_players_talk_before_the_start_and_a_spectator_reads_only(
        server: ServerProcess) -> None:
    tid, (_ann, _bob), (a, b) = waiting(server)
    watcher = Conn(server, tid, Guest(server.url, "Watcher").token)
    watcher.barrier()
    assert command(a, do="say", text="  hello\nall  ")["type"] == "ack"  # D9's cleaning
    assert command(b, do="say", text="hi Ann")["type"] == "ack"
    for conn in (a, b, watcher):
        conn.barrier()
        assert texts(conn) == [(1, "Ann", "hello all"), (2, "Bob", "hi Ann")]
        assert all(isinstance(line["t"], float) for line in lines(conn))
    answer = command(watcher, do="say", text="me too")
    assert (answer["type"], answer["code"]) == ("refused", "spectator")
    empty = command(a, do="say", text=" \t ")
    assert (empty["type"], empty["code"]) == ("refused", "empty_message")
    long = command(a, do="say", text="x" * 501)
    assert (long["type"], long["code"], long["params"]) == (
        "refused", "message_too_long", {"limit": 500})
    for conn in (a, b, watcher):
        conn.barrier()
        assert len(lines(conn)) == 2  # nothing refused reached anyone
    # A guest who sits after connecting chats at once: the seat is the lobby's, now.
    cid = Guest(server.url, "Cid")
    c = Conn(server, tid, cid.token)
    c.barrier()
    assert cid.sit(tid, 3) == 3
    assert command(c, do="say", text="sat down")["type"] == "ack"
    a.barrier()
    assert texts(a)[-1] == (3, "Cid", "sat down")
    for conn in (a, b, c, watcher):
        conn.close()


def test_a_private_message_waits_for_the_start(server: ServerProcess) -> None:
    _tid, _, (a, b) = waiting(server)
    answer = command(a, do="say", text="psst", to=2)
    assert (answer["type"], answer["code"]) == ("refused", "private_not_started")
    assert answer["message"] == "private messages open when the game starts"
    b.barrier()
    assert lines(b) == [] and "psst" not in "".join(b.frames)
    for conn in (a, b):
        conn.close()


def test_who_connects_or_reconnects_gets_the_recent_lines(server: ServerProcess) -> None:
    tid, (_ann, bob), (a, b) = waiting(server)
    for n in range(3):
        assert command(a, do="say", text=f"line {n}")["type"] == "ack"
    b.close()
    again = Conn(server, tid, bob.token)  # Bob's page reloaded
    again.barrier()
    kinds = [m["type"] for m in again.messages]
    assert kinds[:3] == ["welcome", "table", "waiting_chat"]
    assert [t for _, _, t in texts(again)] == ["line 0", "line 1", "line 2"]
    late = Conn(server, tid, Guest(server.url, "Late").token)  # a spectator arriving
    late.barrier()
    assert [t for _, _, t in texts(late)] == ["line 0", "line 1", "line 2"]
    for conn in (a, again, late):
        conn.close()


def test_the_room_keeps_the_last_fifty_lines(server: ServerProcess) -> None:
    tid, guests, conns = waiting(server, ("Ann", "Bob", "Cid", "Dee", "Eve"))
    for sent in range(52):  # five seats share it: little waiting out the chat's budget
        assert command(conns[sent % 5], timeout=60, do="say",
                       text=f"n{sent}")["type"] == "ack"
    fresh = Conn(server, tid, guests[0].token)
    fresh.barrier()
    assert [t for _, _, t in texts(fresh)] == [f"n{n}" for n in range(2, 52)]
    for conn in (*conns, fresh):
        conn.close()


def test_the_chat_rate_limit_counts_in_the_waiting_room(server: ServerProcess) -> None:
    _tid, _, (a, b) = waiting(server)
    answers = [a.command(do="say", text=f"spam {n}") for n in range(9)]
    assert [x["type"] for x in answers[:8]] == ["ack"] * 8  # 8 at once (docs/protocol.md)
    assert answers[8]["code"] == "rate_limited" and answers[8]["params"]["retry_after"] >= 1
    for conn in (a, b):
        conn.close()


def test_the_lines_stay_out_of_the_game_and_its_record(server: ServerProcess) -> None:
    tid, (ann, bob), (a, b) = waiting(server)
    ann.bots(tid, 3)
    assert command(a, do="say", text="before-the-game")["type"] == "ack"
    ann.start(tid)
    a.until(lambda c: c.view is not None)
    assert all("before-the-game" not in str(line) for line in a.view["chat"])
    late = Conn(server, tid, bob.token).open()  # after the start: the lines come too
    assert [t for _, _, t in texts(late)] == ["before-the-game"]
    for conn in (a, late):  # everyone leaves: the bots end the game (R52, D43)
        assert command(conn, do="leave")["type"] == "ack"
    deadline = time.monotonic() + 120
    while ann.http.get(f"/api/tables/{tid}").json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.2)
    record = ann.http.get(f"/api/tables/{tid}/record")
    assert record.status_code == 200
    assert "before-the-game" not in record.text
    assert not [x for x in record.json()["actions"] if x.get("seat") == 1 and x["do"] == "say"]
    for conn in (a, b, late):
        conn.close()


def test_a_muted_player_is_refused_in_the_waiting_room(server: ServerProcess) -> None:
    mod, _ = account(server.url, "WaitMod")
    grant(server, "WaitMod", "moderator")
    _tid, (_ann, bob), (a, b) = waiting(server)
    given = sanction(mod, bob.id, "mute", "spam", minutes=30)
    answer = command(b, do="say", text="can you hear me")
    assert (answer["type"], answer["code"]) == ("refused", "muted"), answer
    assert answer["params"]["until"] == pytest.approx(given["until"])
    a.barrier()
    assert lines(a) == []
    assert command(a, do="say", text="Ann is not muted")["type"] == "ack"
    for conn in (a, b):
        conn.close()
    mod.close()


def test_the_lines_reach_connections_on_every_process(two_processes: Cluster) -> None:
    """Several processes (docs/deploy.md): Ann on the table's writer, Bob on the other
    process; each line reaches both, whichever process its sender is on."""
    first, second = two_processes.servers
    ann, bob = Guest(first.url, "Ann"), Guest(second.url, "Bob")
    tid = ann.create(seats=5)["id"]
    assert ann.sit(tid, 1) == 1 and bob.sit(tid, 2) == 2
    a, b = Conn(first, tid, ann.token), Conn(second, tid, bob.token)
    for conn in (a, b):
        conn.barrier()
    assert command(a, do="say", text="from the writer")["type"] == "ack"
    assert command(b, do="say", text="from the other one")["type"] == "ack"
    for conn in (a, b):
        conn.until(lambda c: len(lines(c)) >= 2, 10)
        assert texts(conn) == [(1, "Ann", "from the writer"), (2, "Bob", "from the other one")]
    later = Conn(second, tid, Guest(second.url, "Cid").token)  # connects afterwards
    later.barrier()
    assert [t for _, _, t in texts(later)] == ["from the writer", "from the other one"]
    for conn in (a, b, later):
        conn.close()
