"""Coming back to a seat (R52, R53, D29–D32) through a real server and the documented protocol:
the same player — a program with its seat token, or a person — takes back the seat its grace
period lost, at once, with its role and every private message the seat got meanwhile; nobody
else can; a player who left on purpose needs the host's link; the game stays in their data.
What a seat chose in the phase its grace period ran out in stands (D50); a leave on purpose
drops it (D6)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from clusterproc import Cluster, two_processes  # noqa: F401  (a fixture)
from serverplay import Conn, people
from serverproc import Guest, ServerProcess, running_server
from trusis.stats.scoring import score
from trusis.table.record import parse_record

GRACE = 5


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("return")) as proc:
        yield proc


def started(server: ServerProcess, program: bool = False,
            **options: Any) -> tuple[Guest, Guest, str, str]:
    """Host at seat 1 (watching, connected), seat 2 a program or Bob, three bots: started.
    Returns the host, Bob, the table id and seat 2's token."""
    host, bob = Guest(server.url, "Host"), Guest(server.url, "Bob")
    table = host.create(seats=5, day_seconds=3600, night_seconds=1800, grace_seconds=GRACE,
                        **options)
    tid = table["id"]
    host.sit(tid, 1)
    if program:
        token = host.program(tid, 2)
    else:
        bob.sit(tid, 2)
        token = bob.token
    host.bots(tid, 3)
    host.start(tid)
    return host, bob, tid, token


def codes(conn: Conn) -> list[str]:
    return [str(e.get("code")) for e in conn.events]


def seat_two(conn: Conn) -> dict[str, Any]:
    assert conn.view is not None
    player: dict[str, Any] = conn.view["players"][1]
    return player


def test_R53_D29_D30_a_program_seat_comes_back_from_its_bot(server: ServerProcess) -> None:
    """A program whose grace period ran out (R52) reconnects with its seat token: its seat,
    its role, and the private message the seat got while the bot held it (D30)."""
    host, _bob, tid, token = started(server, program=True)
    watcher = Conn(server, tid, host.token).open()
    robo = Conn(server, tid, token).open()
    role = robo.role
    robo.vanish()  # a lost signal: the grace period runs
    watcher.until(lambda c: seat_two(c)["bot"], GRACE + 15)
    assert watcher.command(do="say", text="psst, seat 2", to=2)["type"] == "ack"
    info = host.http.get(f"/api/tables/{tid}").json()
    assert info["seats"][1]["kind"] == "bot" and info["seats"][1]["departed"] is True
    back = Conn(server, tid, token).open()
    assert back.seat == 2 and back.role == role and not back.me["bot"]
    assert next(m for m in back.messages if m["type"] == "welcome").get("returned") is True
    assert any(e.get("code") == "whispered" or "psst" in str(e) for e in back.events), \
        back.events
    watcher.until(lambda c: "returned" in codes(c), 10)
    assert not seat_two(watcher)["bot"]
    info = host.http.get(f"/api/tables/{tid}").json()
    assert info["seats"][1]["kind"] == "program" and info["seats"][1]["name"] == "Robo"
    assert back.command(do="pass")["type"] in ("ack", "refused")  # it plays (R53)
    back.close()
    watcher.close()


def test_R52_D29_a_person_comes_back_without_bots_and_nobody_else_can(
        server: ServerProcess) -> None:
    """Without bots taking over the seat leaves at the end of its grace period and passes by
    itself; another identity opening the table watches, and Bob, opening it again, plays."""
    host, bob, tid, _ = started(server, bots_take_over=False)
    watcher = Conn(server, tid, host.token).open()
    watcher.until(lambda c: seat_two(c)["left"], GRACE + 15)
    mallory = Guest(server.url, "Mallory")
    thief = Conn(server, tid, mallory.token).open()
    assert thief.seat is None and (thief.view or {}).get("role") is None
    thief.close()
    time.sleep(0.3)
    assert seat_two(Conn(server, tid, host.token).open())["left"] is True
    data = bob.http.get("/api/me/data").json()
    assert [s["seat"] for s in data["seats"] if s["table_id"] == tid] == [2]
    back = Conn(server, tid, bob.token).open()
    assert back.seat == 2 and back.view is not None and back.view.get("role")
    assert back.me["left"] is False
    watcher.until(lambda c: "returned" in codes(c), 10)
    back.close()
    watcher.close()


def of_seat(conn: Conn, seat: int) -> list[tuple[str, dict[str, Any]]]:
    """The public events about `seat` passing, leaving, changing hands or withdrawing a
    vote, in order."""
    return [(e["code"], e["params"]) for e in conn.events
            if e["code"] in ("passed", "left", "replaced", "vote_withdrawn")
            and seat in (e["params"].get("seat"), e["params"].get("voter"))]


@pytest.mark.parametrize("bots_take_over", [True, False])
def test_R12_R52_D50_a_trusis_kill_vote_stands_when_the_grace_period_runs_out(
        server: ServerProcess, bots_take_over: bool) -> None:
    """A helper's trial: the Trusis voted to kill early in the night, then their phone locked
    past the grace period, and nobody died — the grace period's `leave` dropped the vote (D6).
    Now the server passes for the seat first, with its vote (R12), so the kill happens; that
    last pass ends the night, and the seat leaves in the day after (passing by itself there),
    then a bot takes it when the table says so (R53)."""
    tab = people(server, 5, grace_seconds=GRACE, bots_take_over=bots_take_over,
                 set={"custom": {"TRUSIS": 1}})
    tab.all_pass()  # Day 1: nobody votes
    trusis = tab.seat_of("TRUSIS")
    victim, watching = [s for s in sorted(tab.conns) if s != trusis][:2]
    watcher = tab.conns[watching]
    assert tab.play(trusis, do="vote", target=victim)["type"] == "ack"
    for seat in sorted(tab.conns):
        if seat != trusis:
            assert tab.play(seat, do="pass")["type"] == "ack"
    tab.conns.pop(trusis).vanish()  # the phone locks: the night waits for the Trusis only
    watcher.until(lambda c: ("left", {"seat": trusis}) in of_seat(c, trusis), GRACE + 15)
    assert watcher.view is not None
    assert watcher.view["history"][-1] == {"phase": {"kind": "night", "number": 1},
                                           "vote_killed": None, "died": [victim],
                                           "revived": []}
    assert watcher.view["phase"] == {"kind": "day", "number": 2}
    expected = [("passed", {"seat": trusis}), ("passed", {"seat": trusis}),  # Day 1, Night 1
                ("left", {"seat": trusis}), ("passed", {"seat": trusis, "auto": True})]
    if bots_take_over:
        expected.append(("replaced", {"seat": trusis, "by": "bot"}))
        watcher.until(lambda c: len(of_seat(c, trusis)) == len(expected), 10)
    assert of_seat(watcher, trusis) == expected
    tab.close()


def test_R12_R52_D29_D50_a_day_vote_stands_when_the_grace_period_runs_out(
        server: ServerProcess) -> None:
    """Eve voted, then lost her connection past the grace period: the server passes for her
    seat with the vote (R12) — an ordinary pass, before her seat's `left`, and no
    `vote_withdrawn` — and the vote counts in the day's tally. Coming back before the
    tally (D29), Eve finds her seat passed, her vote standing."""
    tab = people(server, 5, grace_seconds=GRACE, bots_take_over=False)
    ann = tab.conns[1]
    assert tab.play(5, do="vote", target=4)["type"] == "ack"
    tab.conns.pop(5).vanish()
    ann.until(lambda c: ("left", {"seat": 5}) in of_seat(c, 5), GRACE + 15)
    assert of_seat(ann, 5) == [("passed", {"seat": 5}), ("left", {"seat": 5})]
    assert ann.view is not None and ann.view["votes"] == {"5": 4}
    assert ann.view["players"][4]["passed"] is True
    back = Conn(server, tab.id, tab.guests[5].token).open()  # D29: at once, as it stood
    assert back.seat == 5 and back.me["left"] is False and back.me["passed"] is True
    assert back.view is not None and back.view["choices"] == {"vote": 4}
    ann.until(lambda c: "returned" in codes(c), 10)
    tab.conns[5] = back
    tab.all_pass([1, 2, 3, 4])
    assert ann.view is not None
    assert ann.view["history"][0] == {"phase": {"kind": "day", "number": 1},
                                      "vote_killed": 4, "died": [4], "revived": []}
    tab.close()


def test_R52_D6_D50_no_choice_leaves_as_before_and_a_leave_on_purpose_drops_the_vote(
        server: ServerProcess) -> None:
    """A seat that chose nothing leaves at the end of its grace period and passes by itself
    (R52), as before D50: no pass of its own first. A player's own `leave` still drops the
    vote they made (D6: withdrawn for everyone to see), then passes by itself."""
    tab = people(server, 5, grace_seconds=GRACE, bots_take_over=False)
    ann = tab.conns[1]
    assert tab.play(4, do="vote", target=3)["type"] == "ack"
    assert tab.play(4, do="leave")["type"] == "ack"
    ann.until(lambda c: ("left", {"seat": 4}) in of_seat(c, 4), 10)
    assert of_seat(ann, 4) == [("left", {"seat": 4}), ("vote_withdrawn", {"voter": 4}),
                               ("passed", {"seat": 4, "auto": True})]
    tab.conns.pop(4).close()
    tab.conns.pop(5).vanish()
    ann.until(lambda c: ("left", {"seat": 5}) in of_seat(c, 5), GRACE + 15)
    assert of_seat(ann, 5) == [("left", {"seat": 5}), ("passed", {"seat": 5, "auto": True})]
    assert ann.view is not None and ann.view["votes"] == {}
    tab.close()


def test_R52_D31_left_on_purpose_needs_the_hosts_link(server: ServerProcess) -> None:
    host, bob, tid, _ = started(server)
    watcher = Conn(server, tid, host.token).open()
    conn = Conn(server, tid, bob.token).open()
    assert conn.command(do="leave")["type"] == "ack"
    conn.close()
    time.sleep(0.3)
    again = Conn(server, tid, bob.token).open()  # opening the table again: still left
    assert again.seat == 2 and again.me["left"] is True
    again.close()
    info = bob.http.get(f"/api/tables/{tid}").json()
    assert info["seats"][1]["yours_away"] == "left"
    reply = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"})
    assert reply.status_code == 200, reply.text
    assert reply.json()["link"].startswith(f"/t/{tid}#claim=")
    claimed = bob.http.post(f"/api/tables/{tid}/claim", json={"code": reply.json()["claim"]})
    assert claimed.status_code == 200 and claimed.json()["seat"] == 2, claimed.text
    back = Conn(server, tid, bob.token).open()
    assert back.seat == 2 and back.me["left"] is False
    watcher.until(lambda c: "returned" in codes(c), 10)
    back.close()
    watcher.close()


def test_D29_D39_a_player_whose_seat_a_bot_plays_claims_no_second_seat(
        server: ServerProcess) -> None:
    """Finding 1 (f_two_seats_via_claim.py): the host, whose own seat a bot took over when
    her grace period ran out (still hers, D29), made a claim link for the seat Bob left and
    claimed it herself; opening the table then gave her own seat back too: two seats, and
    Bob's role. Now the claim is refused, `already_seated` naming her seat, the link still
    seats someone else, and opening the table gives her her own seat only (D39)."""
    host = Guest(server.url, "Host")  # sits at 1 and does not connect: a bot takes over
    others = [Guest(server.url, n) for n in ("Bob", "Dee", "Eve", "Fay")]
    tid = host.create(seats=5, day_seconds=3600, night_seconds=1800,
                      grace_seconds=GRACE)["id"]
    host.sit(tid, 1)
    for guest in others:
        guest.sit(tid)
    host.start(tid)
    conns = [Conn(server, tid, g.token).open() for g in others[1:]]  # they play on
    bob = others[0]
    conn = Conn(server, tid, bob.token).open()
    conn.until(lambda c: c.view is not None and c.view["players"][0]["bot"], GRACE + 15)
    bobs_role = conn.role
    assert conn.command(do="leave")["type"] == "ack"
    conn.close()
    link = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"})
    assert link.status_code == 200, link.text
    claimed = host.http.post(f"/api/tables/{tid}/claim", json={"code": link.json()["claim"]})
    assert claimed.status_code == 409, claimed.text
    assert claimed.json()["code"] == "already_seated"
    assert claimed.json()["params"]["seat"] == 1, claimed.json()
    info = host.http.get(f"/api/tables/{tid}").json()
    assert [s["seat"] for s in info["seats"] if s.get("you")] == []
    assert info["seats"][1]["departed"] is True and info["seats"][1]["kind"] == "person"
    back = Conn(server, tid, host.token).open()  # D29: her own seat, and only that
    assert back.seat == 1 and not back.me["bot"]
    info = host.http.get(f"/api/tables/{tid}").json()
    assert [s["seat"] for s in info["seats"] if s.get("you")] == [1]
    cid = Guest(server.url, "Cid")  # the refusal spent nothing: the link seats Cid
    taken = cid.http.post(f"/api/tables/{tid}/claim", json={"code": link.json()["claim"]})
    assert taken.status_code == 200 and taken.json()["seat"] == 2, taken.text
    seated = Conn(server, tid, cid.token).open()
    assert seated.seat == 2 and seated.role == bobs_role
    for other in (seated, back, *conns):
        other.close()


def test_D20_D40_a_seat_a_bot_plays_for_its_player_keeps_the_players_name(
        server: ServerProcess) -> None:
    """D40: while a bot plays Bob's seat (his grace period over) the lobby calls it "Bob
    (bot)", but it is Bob's, under his name (D29): a stranger named "Воb" (Cyrillic)
    claiming the seat Cid left is refused (D20), so that Bob, coming back, sits beside no
    look-alike."""
    host = Guest(server.url, "Host")
    bob, cid = Guest(server.url, "Bob"), Guest(server.url, "Cid")
    tid = host.create(seats=5, day_seconds=3600, night_seconds=1800,
                      grace_seconds=GRACE)["id"]
    host.sit(tid, 1)
    bob.sit(tid, 2)  # never connects: a bot takes over
    cid.sit(tid, 3)
    others = [Guest(server.url, n) for n in ("Dee", "Eve")]
    for guest in others:
        guest.sit(tid)
    host.start(tid)
    conns = [Conn(server, tid, g.token).open() for g in (host, *others)]
    conns[0].until(lambda c: seat_two(c)["bot"], GRACE + 15)
    leaving = Conn(server, tid, cid.token).open()
    assert leaving.command(do="leave")["type"] == "ack"
    leaving.close()
    assert host.http.get(f"/api/tables/{tid}").json()["seats"][1]["name"] == "Bob (bot)"
    link = host.http.post(f"/api/tables/{tid}/seats/3/replace", json={"by": "person"})
    assert link.status_code == 200, link.text
    fake = Guest(server.url, "\u0412ob")
    claimed = fake.http.post(f"/api/tables/{tid}/claim", json={"code": link.json()["claim"]})
    assert claimed.status_code == 409, claimed.text
    assert claimed.json()["code"] == "name_confusable"
    assert claimed.json()["params"]["other"] == "Bob"
    back = Conn(server, tid, bob.token).open()
    assert back.seat == 2 and not back.me["bot"]
    for conn in (back, *conns):
        conn.close()


def test_D32_a_seat_a_bot_took_over_stays_in_its_players_data(server: ServerProcess) -> None:
    host, bob, tid, _ = started(server)
    watcher = Conn(server, tid, host.token).open()
    watcher.until(lambda c: seat_two(c)["bot"], GRACE + 15)
    data = bob.http.get("/api/me/data").json()
    assert [s["seat"] for s in data["seats"] if s["table_id"] == tid] == [2]
    info = bob.http.get(f"/api/tables/{tid}").json()
    assert info["seats"][1]["yours_away"] == "grace" and info["seats"][1]["you"] is False
    watcher.close()


def finished_with_a_takeover(server: ServerProcess) -> tuple[Guest, Guest, str]:
    """Bob leaves and the host hands his seat to a bot (R52, R53); then the host leaves, and
    the bots play the game to its end: nobody may come back to a seat (D31), so they need
    not keep the timers' pace (D43), as they would for a seat whose grace period ran out."""
    host, bob, tid, _ = started(server)
    watcher = Conn(server, tid, host.token).open()
    gone = Conn(server, tid, bob.token).open()
    assert gone.command(do="leave")["type"] == "ack"
    gone.close()
    reply = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "bot"})
    assert reply.status_code == 200, reply.text
    watcher.until(lambda c: seat_two(c)["bot"], 15)
    assert watcher.command(do="leave")["type"] == "ack"
    watcher.until(lambda c: c.view is not None and c.view["status"] == "finished", 120)
    watcher.close()
    return host, bob, tid


def test_D32_a_game_a_bot_finished_stays_in_its_players_history(server: ServerProcess) -> None:
    """Bob's seat went to a bot: the game is still his — in `/api/me/data`'s games and seats,
    and on his profile — as the record names him (issue 21)."""
    _host, bob, tid = finished_with_a_takeover(server)
    data = bob.http.get("/api/me/data").json()
    assert [g["seat"] for g in data["games"] if g["table_id"] == tid] == [2]
    assert [s["seat"] for s in data["seats"] if s["table_id"] == tid] == [2]
    profile = bob.http.get(f"/api/players/{data['player']['id']}").json()
    assert tid in str(profile["games"]), profile
    record = bob.http.get(f"/api/tables/{tid}/record").json()
    assert record["players"][1] == "Bob"


def test_D29_D31_after_a_restart_who_may_come_back_is_the_same(tmp_path: Path) -> None:
    """The store is the truth after a restart (restore.py): Bob, whose grace period ran out,
    comes back; Carol, who left on purpose (and whose seat a bot then took), does not."""
    with running_server("sqlite", tmp_path) as server:
        host, bob, carol = (Guest(server.url, n) for n in ("Host", "Bob", "Carol"))
        tid = host.create(seats=5, day_seconds=3600, night_seconds=1800,
                          grace_seconds=GRACE)["id"]
        for number, guest in enumerate((host, bob, carol), start=1):
            guest.sit(tid, number)
        host.bots(tid, 2)
        host.start(tid)
        conn = Conn(server, tid, carol.token).open()
        assert conn.command(do="leave")["type"] == "ack"
        conn.close()
        watcher = Conn(server, tid, host.token).open()
        watcher.until(lambda c: c.view is not None and c.view["players"][1]["bot"]
                      and c.view["players"][2]["bot"], GRACE + 15)
        watcher.close()
        server.kill()
        server.start()
        info = carol.http.get(f"/api/tables/{tid}").json()
        assert info["seats"][2]["yours_away"] == "left"
        assert bob.http.get(f"/api/tables/{tid}").json()["seats"][1]["yours_away"] == "grace"
        again = Conn(server, tid, carol.token).open()
        assert again.seat is None  # a bot plays her seat; she watches (D31)
        again.close()
        back = Conn(server, tid, bob.token).open()
        assert back.seat == 2 and not back.me["bot"] and back.view is not None
        assert back.view.get("role")
        back.close()


def test_D29_across_two_processes_the_return_is_run_by_the_owner(
        two_processes: Cluster) -> None:  # noqa: F811
    """The game lives on process a; Bob comes back through process b, which forwards his
    return to a (cluster/forward.py) and plays the seat it hands back."""
    a, b = two_processes.servers
    host, bob, tid, _ = started(a)
    watcher = Conn(a, tid, host.token).open()
    watcher.until(lambda c: seat_two(c)["bot"], GRACE + 15)
    back = Conn(b, tid, bob.token).open()
    assert back.seat == 2 and not back.me["bot"] and back.view is not None
    assert back.view.get("role")
    watcher.until(lambda c: "returned" in codes(c), 10)
    back.close()
    watcher.close()


@pytest.mark.parametrize("takeover", [True, False], ids=["bot_plays_it", "it_passes_alone"])
def test_D29_D43_with_every_person_away_the_bots_keep_the_timers_pace(
        server: ServerProcess, takeover: bool) -> None:
    """The only person at a table of bots lost their signal: a bot played their seat, and the
    bots, with no person left to wait for, passed at once, phase after phase — the game was
    over before its player could come back (D29). Now the phases run to their timers while a
    seat waits for its player, who comes back in the same day. The same where no bot takes
    a seat over (an attacker's trial found the game over in seconds there: D43 waited only
    for a seat a bot plays): the departed seat passes by itself (R52) and is awaited too."""
    host, bob = Guest(server.url, "Host"), Guest(server.url, "Bob")
    # A 60-s day: the hand-over (GRACE and the time to notice) leaves most of it to come back
    # in; with 30 s, on a loaded machine, the day could run out before the return.
    table = host.create(seats=5, day_seconds=60, night_seconds=15, grace_seconds=GRACE,
                        bots_take_over=takeover)
    tid = table["id"]
    bob.sit(tid, 1)
    host.bots(tid, 4)
    host.start(tid)
    watcher = Conn(server, tid, host.token).open()  # the host only watches
    away = Conn(server, tid, bob.token).open()
    away.vanish()
    handed_on = "bot" if takeover else "left"
    watcher.until(lambda c: c.view is not None and c.view["players"][0][handed_on],
                  GRACE + 15)
    assert watcher.view is not None
    phase = watcher.view["phase"]
    deadline = float(host.http.get(f"/api/tables/{tid}").json()["deadline"])
    time.sleep(max(0.0, min(8.0, deadline - time.time() - 3)))
    watcher.drain(0.3)
    assert watcher.view["status"] == "running" and watcher.view["phase"] == phase, phase
    mark = watcher.mark()
    back = Conn(server, tid, bob.token).open()  # in this day, or the night its timer began
    left = deadline - time.time()
    welcome = next(m for m in back.messages if m["type"] == "welcome")
    assert back.seat == 1 and welcome.get("returned") is True, welcome
    # The game as it stood when they came back, as the table saw it: their seat theirs again
    # while it still ran. (Back, they are a person present again: the bots, at pace 0 here,
    # may vote and pass at once, and on a loaded machine the game may end between the return
    # and their first view; D43 holds it only while every person is away. So the watcher's
    # view of the return is read, not the returning page's first view: CI met that race.)
    watcher.drain(0.3)
    views = [m["view"] for m in watcher.since(mark) if m["type"] in ("snapshot", "events")]
    returned = next((v for v in views if not v["players"][0][handed_on]), None)
    assert returned is not None and returned["status"] == "running", (
        f"over {-left:.1f} s after the deadline" if left < 0 else f"over {left:.1f} s early")
    back.close()
    watcher.close()


def test_D32_D44_a_player_whose_bot_finished_the_game_sees_its_end_as_their_seat(
        server: ServerProcess) -> None:
    """Bob left, a bot played his seat to the end: the game is his (D32), but opening the
    table after the end made him a spectator, with no "You won" or "You lost". After the
    end the seat a bot finished for him is his to see."""
    host, bob, tid, _token = started(server)
    seated = Conn(server, tid, host.token).open()
    away = Conn(server, tid, bob.token).open()
    assert away.command(do="leave")["type"] == "ack"  # on purpose: the bots need not wait
    reply = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "bot"})
    assert reply.status_code == 200, reply.text
    seated.until(lambda c: seat_two(c)["bot"], GRACE + 15)
    away.close()

    def finished(conn: Conn) -> bool:
        view = conn.view
        if view is None or view["status"] == "finished":
            return view is not None
        me = view["players"][0]
        if me["alive"] and not me["passed"]:
            conn.command(do="pass")
        return False

    seated.until(finished, 120)
    back = Conn(server, tid, bob.token).open()
    assert back.seat == 2 and back.view is not None and back.view["seat"] == 2
    assert back.view["status"] == "finished" and back.view["role"]
    assert back.command(do="say", text="gg all")["type"] == "ack"  # D21, as their seat
    for conn in (back, seated):
        conn.close()


def test_D52_R53_a_host_cannot_seat_a_second_identity_where_a_connection_dropped(
        server: ServerProcess) -> None:
    """The attack as found (f_host_grace_steal.py): a host who does not play sets the
    shortest grace (5 s) and no bots taking over; Bob's connection drops for 6.5 s, his
    seat leaves (R52), and the host handed it to "a new person" and claimed it with a
    second identity: it read Bob's role, and Bob, back, was shut out of his game. Now the
    hand-over to a person waits for a long absence (D52, 180 s by default), refused with
    `player_may_return` and when it may be; a bot may take the seat at once, and Bob,
    coming back, plays his seat again (D29)."""
    host, bob, cid = (Guest(server.url, n) for n in ("Host", "Bob", "Cid"))
    tid = host.create(seats=5, day_seconds=3600, night_seconds=1800, grace_seconds=GRACE,
                      bots_take_over=False)["id"]
    bob.sit(tid, 2)
    cid.sit(tid, 3)  # plays on, and does not pass: the bots do not end the day (D43)
    for seat in (1, 4, 5):
        assert host.http.post(f"/api/tables/{tid}/bots", json={"seat": seat}).status_code == 200
    conn = Conn(server, tid, bob.token)  # in the waiting room: connected at the start
    conn.until(lambda c: c.seat == 2, 10)
    host.start(tid)
    conn.open()
    other = Conn(server, tid, cid.token).open()
    role = conn.role
    conn.vanish()  # a phone locking its screen
    watcher = Conn(server, tid, host.token).open()
    watcher.until(lambda c: seat_two(c)["left"], GRACE + 15)
    reply = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"})
    assert reply.status_code == 409, reply.text
    body = reply.json()
    assert body["code"] == "player_may_return" and "Bob lost their connection" in body["message"]
    params = body["params"]
    assert params["seat"] == 2 and params["name"] == "Bob" and params["wait"] == 180
    assert GRACE <= params["away"] < 60 and params["until"] == params["since"] + 180
    assert params["until"] > time.time() + 100
    # The host's page is told from when (`person_from`, D52), so that it offers the link
    # only then; nobody else is.
    seats = host.http.get(f"/api/tables/{tid}").json()["seats"]
    assert abs(seats[1]["person_from"] - params["until"]) < 1, seats[1]
    assert "person_from" not in cid.http.get(f"/api/tables/{tid}").json()["seats"][1]
    handed = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "bot"})
    assert handed.status_code == 200, handed.text  # a bot learns nothing anyone reads
    watcher.until(lambda c: seat_two(c)["bot"], 15)
    again = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"})
    assert again.status_code == 409 and again.json()["code"] == "player_may_return"
    back = Conn(server, tid, bob.token).open()  # D29: his seat, his role
    assert back.seat == 2 and back.role == role and not back.me["bot"]
    watcher.until(lambda c: "returned" in codes(c), 10)
    for each in (back, other, watcher):
        each.close()


def test_D50_the_servers_pass_is_not_the_seats_own_in_pass_seconds(
        server: ServerProcess) -> None:
    """Issue 38: the pass the server makes for a seat whose grace period ran out (D50)
    counted in `pass_seconds` as the seat's own pass (docs/statistics.md: its own `pass`
    only). The record marks it as the server's (`"by": "server"`), and the statistics of the
    finished game leave it out: a seat that never passed itself has no average."""
    tab = people(server, 5, grace_seconds=GRACE, bots_take_over=False,
                 set={"custom": {"TRUSIS": 1}})
    ann = tab.conns[1]
    trusis = tab.seat_of("TRUSIS")
    gone = next(s for s in (5, 4) if s != trusis)
    assert tab.play(gone, do="vote", target=trusis)["type"] == "ack"
    tab.conns.pop(gone).vanish()
    ann.until(lambda c: ("left", {"seat": gone}) in of_seat(c, gone), GRACE + 15)
    for seat in sorted(tab.conns):  # the others vote the Trusis out: the Humans win
        if seat != trusis:
            assert tab.play(seat, do="vote", target=trusis)["type"] == "ack"
    tab.all_pass([s for s in sorted(tab.conns)])
    ann.until(lambda c: c.view is not None and c.view["status"] == "finished", 15)

    record = tab.guests[1].http.get(f"/api/tables/{tab.id}/record").json()
    passes = [a for a in record["actions"] if a.get("seat") == gone and a["do"] == "pass"]
    assert [a.get("by") for a in passes] == ["server"]
    # The statistics are a fold over the record (docs/statistics.md): the server's record,
    # scored as `trusis stats` scores it (`pass_seconds` is limited: not on the end screen).
    sheets = score(parse_record(record)).players
    waits = {s: sheets[s].get("pass_seconds") if sheets[s].is_set("pass_seconds") else "-"
             for s in sheets}
    assert waits[gone] == "-", waits  # the server passed for it: no pass of its own
    assert all(waits[s] != "-" for s in tab.conns), waits  # the others' own passes count
    tab.close()
