"""What docs/protocol.md, "Details a client meets", promises, through a real server.

Each test is one sentence of that section that no other test pinned: the messages
before the start, a snapshot's events, a command id used again for another action,
the host's invite at a public table, the timers' minimums, the error shape outside
`/api`, and what each copy of a finished record holds (refusals kept, R50 whispers
only for their two seats, D16).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from serverplay import Conn, people
from serverproc import Guest, Player, ServerProcess, act, running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("details")) as proc:
        yield proc


def test_before_the_start_hello_gets_welcome_and_table_and_no_view(server: ServerProcess) -> None:
    host = Guest(server.url, "Ann")
    table = host.create(seats=5)
    host.sit(table["id"])
    conn = Conn(server, table["id"], host.token)
    conn.barrier()
    kinds = [m["type"] for m in conn.messages]
    assert kinds[0] == "welcome" and "table" in kinds
    assert not {"snapshot", "events"} & set(kinds) and conn.view is None
    assert next(m for m in conn.messages if m["type"] == "table")["table"]["status"] == "open"
    conn.close()


def test_a_snapshot_carries_the_seat_s_events(server: ServerProcess) -> None:
    tab = people(server, 5)
    assert tab.play(2, do="vote", target=3)["type"] == "ack"
    fresh = Conn(server, tab.id, tab.guests[4].token).open()
    snapshot = next(m for m in fresh.messages if m["type"] == "snapshot")
    assert [e["code"] for e in snapshot["events"]][-1] == "vote_cast"
    assert [e["seq"] for e in snapshot["events"]] == list(range(1, snapshot["seq"] + 1))
    fresh.close()
    tab.close()


def test_an_id_sent_again_with_another_action_gets_the_first_answer_only(
        server: ServerProcess) -> None:
    tab = people(server, 5)
    bob = tab.conns[2]
    bob.ws.send(act("mine", do="vote", target=3))
    bob.until(lambda c: "mine" in c.answers)
    first = bob.answers.pop("mine")
    assert first["type"] == "ack"
    bob.ws.send(act("mine", do="vote", target=4))  # the same id: the same command
    bob.until(lambda c: "mine" in c.answers)
    assert bob.answers["mine"] == first
    bob.barrier()
    assert bob.view is not None and bob.view["choices"] == {"vote": 3}
    tab.close()


def test_the_host_of_a_public_table_gets_its_invite_too(server: ServerProcess) -> None:
    host, other = Guest(server.url, "Ann"), Guest(server.url, "Bob")
    table = host.create(seats=5)
    assert table["options"]["private"] is False and table["invite"]
    assert host.http.get(f"/api/tables/{table['id']}").json()["invite"] == table["invite"]
    assert "invite" not in other.http.get(f"/api/tables/{table['id']}").json()


@pytest.mark.parametrize(("option", "minimum"),
                         [("day_seconds", 30), ("night_seconds", 15), ("grace_seconds", 5)])
def test_the_timers_minimums(server: ServerProcess, option: str, minimum: int) -> None:
    """R12, R52: the shortest day, night and grace period a table may have."""
    host = Guest(server.url, "Ann")
    too_short = host.http.post("/api/tables", json={"seats": 5, option: minimum - 1})
    assert too_short.status_code == 422
    body = too_short.json()
    assert body["code"] == "bad_request" and body["params"]["field"] == option
    assert body["params"]["ge"] == minimum
    assert host.create(seats=5, **{option: minimum})["options"][option] == minimum


def test_unknown_paths_answer_404_in_two_shapes(server: ServerProcess) -> None:
    guest = Guest(server.url, "Ann")
    api = guest.http.get("/api/nothing-here")
    assert api.status_code == 404
    assert api.json() == {"code": "not_found", "params": {"path": "/api/nothing-here"},
                          "message": "Not Found"}
    page = guest.http.get("/nothing-here")
    assert page.status_code == 404 and page.json() == {"detail": "Not Found"}


def _play_on(player: Player) -> None:
    """Vote for the first legal target by day, then pass, until the game ends."""
    def step(p: Player) -> bool:
        view = p.view
        if view is None:
            return False
        if view["status"] == "finished":
            return True
        mine = view["players"][view["seat"] - 1]
        if mine["alive"] and not mine["passed"] and not mine["left"]:
            legal = p.legal()
            if view["phase"]["kind"] == "day" and legal.get("vote", {}).get("targets") \
                    and "vote" not in view["choices"]:
                p.command(do="vote", target=legal["vote"]["targets"][0])
            if "pass" in p.legal():
                p.command(do="pass")
        return False
    player.until(step, 180)


def test_a_finished_record_keeps_refusals_and_each_copy_its_own_whispers(
        server: ServerProcess) -> None:
    """D16, R50: a whisper is in the copies of its sender and recipient only, the host's
    included only as a seat; refused actions are in every copy (docs/record.md), but a
    refused message, which reached nobody, is in none, and after the end a refused
    action is answered and not kept (D42)."""
    ann, bob, cid = (Guest(server.url, n) for n in ("Ann", "Bob", "Cid"))
    table = ann.create(seats=5, day_seconds=60, night_seconds=30)
    tid = table["id"]
    assert ann.sit(tid) == 1 and bob.sit(tid) == 2
    ann.bots(tid, 3)
    ann.start(tid)
    players = [Player(server, tid, g.token) for g in (ann, bob)]
    players[0].until(lambda p: p.view is not None)
    assert players[0].command(do="vote", target=1)["code"] == "target_self"
    assert players[0].command(do="say", text="secret", to=2)["type"] == "ack"
    assert players[0].command(do="say", text="to-myself", to=1)["type"] == "refused"
    threads = [threading.Thread(target=_play_on, args=(p,)) for p in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(p.view is not None and p.view["status"] == "finished" for p in players)
    kept = len(ann.http.get(f"/api/tables/{tid}/record").json()["actions"])
    assert players[1].command(do="vote", target=1)["type"] == "refused"
    said = players[1].command(do="say", text="gg")  # chat stays open (D21)
    while said.get("code") == "rate_limited":  # the refusals count in the player's budget
        time.sleep(0.3)
        said = players[1].command(do="say", text="gg")
    assert said["type"] == "ack", said

    def actions(guest: Guest) -> list[dict[str, object]]:
        reply = guest.http.get(f"/api/tables/{tid}/record")
        assert reply.status_code == 200
        return [{k: v for k, v in a.items() if k != "t"} for a in reply.json()["actions"]]

    whisper = {"seat": 1, "do": "say", "text": "secret", "to": 2}
    refused = {"seat": 1, "do": "vote", "target": 1}
    copies = {g.name: actions(g) for g in (ann, bob, cid)}
    assert whisper in copies["Ann"] and whisper in copies["Bob"]
    assert whisper not in copies["Cid"]  # a spectator's copy: not even that it was sent
    assert all(refused in copy for copy in copies.values())
    assert [a for a in copies["Ann"] if a != whisper] == copies["Cid"]
    assert all("to-myself" not in str(copy) for copy in copies.values())
    assert len(copies["Cid"]) == kept  # the whisper out, the "gg" in
    assert copies["Cid"][-1] == {"seat": 2, "do": "say", "text": "gg"}
    for player in players:
        player.close()


def test_an_idle_http_connection_outlives_the_clients_own_keep_alive(
        server: ServerProcess) -> None:
    """A client keeps an idle connection 5 s (httpx) or 10 s (the proxies in deploy/): the
    server keeps it longer, so a request sent after a quiet spell never meets a connection
    closing under it (CI once saw 'server disconnected' on a POST after 5 s of quiet)."""
    import http.client
    import time

    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("GET", "/api/health")
    assert conn.getresponse().read() and conn.sock is not None
    first = conn.sock
    time.sleep(11)
    conn.request("GET", "/api/health")  # http.client does not reconnect by itself here
    reply = conn.getresponse()
    assert reply.status == 200 and conn.sock is first
    conn.close()
