"""Seats changing hands (R52, R53, D18) through a real server: the host cannot take a seat that is
only disconnected, a claim code is single-use, and every other code of a seat dies when the seat
changes hands. Once on one process, once across two (the hand-over forwarded to the owner)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from clusterproc import Cluster, two_processes  # noqa: F401  (a fixture)
from serverplay import Conn, people
from serverproc import Guest, ServerProcess, running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("seats")) as proc:
        yield proc


def refusal(reply: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert reply.status_code == status, reply.text
    body: dict[str, Any] = reply.json()
    assert body["code"] == code and body["message"], body
    return body


def started(url: str, grace: int = 600, **options: Any) -> tuple[Guest, Guest, str]:
    """Host at seat 1, Bob at seat 2, three bots; started. Nobody connected yet."""
    host, bob = Guest(url, "Host"), Guest(url, "Bob")
    table = host.create(seats=5, day_seconds=3600, grace_seconds=grace, **options)
    tid = table["id"]
    host.sit(tid, 1)
    bob.sit(tid, 2)
    host.bots(tid, 3)
    host.start(tid)
    return host, bob, tid


def steal(server: ServerProcess, host: Guest, tid: str, seat: int) -> str | None:
    """The attack as found: the host hands `seat` to a person and claims it with a second
    guest identity; the role that identity then reads (None: the theft failed)."""
    reply = host.http.post(f"/api/tables/{tid}/seats/{seat}/replace", json={"by": "person"})
    if reply.status_code != 200:
        return None
    thief = Guest(server.url, "Mallory")
    claimed = thief.http.post(f"/api/tables/{tid}/claim", json={"code": reply.json()["claim"]})
    if claimed.status_code != 200:
        return None
    conn = Conn(server, tid, thief.token).open()
    role = conn.view.get("role") if conn.view is not None and conn.seat == seat else None
    conn.close()
    return None if role is None else str(role)


def test_R53_the_host_cannot_take_over_a_seat_that_is_only_disconnected(
        server: ServerProcess) -> None:
    """Bob's connection dropped: his seat is shown away but has not *left* (R52: its grace
    period runs), so it goes neither to a person nor to a bot (R53, D18). Before the fix the
    host claimed it with a second guest identity and read Bob's role."""
    host, bob, tid = started(server.url)
    conn = Conn(server, tid, bob.token).open()
    role = conn.role
    conn.close()
    # Shown as away (the theft's opening) once the server has handled the close: a read
    # 0.3 s after it could come first on a loaded machine.
    deadline = time.monotonic() + 15
    while (info := host.http.get(f"/api/tables/{tid}").json())["seats"][1]["connected"]:
        assert time.monotonic() < deadline, info["seats"][1]
        time.sleep(0.1)
    assert info["seats"][1]["connected"] is False
    assert steal(server, host, tid, 2) is None
    for by in ("person", "bot"):
        body = refusal(host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": by}),
                       409, "not_left")
        assert body["params"] == {"seat": 2}
    back = Conn(server, tid, bob.token).open()  # Bob comes back: still his seat, his role
    assert back.seat == 2 and back.role == role
    back.close()


def test_R53_a_seat_never_connected_since_the_start_is_not_departed(
        server: ServerProcess) -> None:
    """Away from the first second (R52) is not departed either."""
    host, _bob, tid = started(server.url)
    assert steal(server, host, tid, 2) is None
    refusal(host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"}),
            409, "not_left")


def test_R53_a_claim_code_is_single_use_and_the_others_die_with_the_hand_over(
        server: ServerProcess) -> None:
    tab = people(server, 5)
    assert tab.play(5, do="leave")["type"] == "ack"  # left on purpose: departed (R52)
    replies = [tab.host.http.post(f"/api/tables/{tab.id}/seats/5/replace",
                                  json={"by": "person"}) for _ in range(3)]
    assert all(r.status_code == 200 for r in replies), replies
    codes = [r.json()["claim"] for r in replies]
    newcomer, other, third = (Guest(server.url, n) for n in ("Nina", "Otto", "Pia"))
    answer = newcomer.http.post(f"/api/tables/{tab.id}/claim", json={"code": codes[0]})
    assert answer.status_code == 200 and answer.json()["seat"] == 5, answer.text
    nina = Conn(server, tab.id, newcomer.token).open()
    assert nina.seat == 5
    nina.close()  # Nina's connection drops: her seat is away, not departed
    time.sleep(0.3)
    # The same code again, by someone else: spent. The other codes: dead with the hand-over
    # (before, they came back to life as soon as Nina was away, and took her seat).
    refusal(other.http.post(f"/api/tables/{tab.id}/claim", json={"code": codes[0]}), 404,
            "no_such_claim")
    for code in codes[1:]:
        refusal(third.http.post(f"/api/tables/{tab.id}/claim", json={"code": code}), 404,
                "no_such_claim")
    seats = tab.host.http.get(f"/api/tables/{tab.id}").json()["seats"]
    assert seats[4]["name"] == "Nina"
    # Nina holds it and has not left: a new hand-over is refused.
    refusal(tab.host.http.post(f"/api/tables/{tab.id}/seats/5/replace", json={"by": "person"}),
            409, "not_left")
    for reply, code in zip(replies, codes, strict=True):  # the code is a fragment: never
        assert reply.json()["link"] == f"/t/{tab.id}#claim={code}"  # sent, never logged
    tab.close()


def test_R53_simultaneous_claims_seat_exactly_one_person(server: ServerProcess) -> None:
    """Eight people claim at once, with one code and with the seat's other codes: one
    takes the seat, every other claim is refused and changes nothing."""
    tab = people(server, 5)
    assert tab.play(3, do="leave")["type"] == "ack"
    codes = [tab.host.http.post(f"/api/tables/{tab.id}/seats/3/replace", json={"by": "person"}
                                ).json()["claim"] for _ in range(2)]
    claimers = [Guest(server.url, f"Claimer {n}") for n in range(8)]

    def claim(n: int) -> int:
        code = codes[n % 2]
        return claimers[n].http.post(f"/api/tables/{tab.id}/claim",
                                     json={"code": code}).status_code

    with ThreadPoolExecutor(len(claimers)) as pool:
        answers = list(pool.map(claim, range(len(claimers))))
    assert sorted(answers).count(200) == 1, answers
    assert set(answers) <= {200, 404, 409}, answers
    seats = tab.host.http.get(f"/api/tables/{tab.id}").json()["seats"]
    winner = claimers[answers.index(200)]
    assert seats[2]["name"] == winner.name
    conn = Conn(server, tab.id, winner.token).open()
    assert conn.seat == 3 and not conn.me["left"]  # it plays again (R53)
    conn.close()
    tab.close()


def test_R53_codes_die_when_the_seat_goes_to_a_bot(server: ServerProcess) -> None:
    tab = people(server, 5)
    assert tab.play(4, do="leave")["type"] == "ack"
    code = tab.host.http.post(f"/api/tables/{tab.id}/seats/4/replace",
                              json={"by": "person"}).json()["claim"]
    assert tab.host.http.post(f"/api/tables/{tab.id}/seats/4/replace",
                              json={"by": "bot"}).status_code == 200
    late = Guest(server.url, "Late")
    refusal(late.http.post(f"/api/tables/{tab.id}/claim", json={"code": code}), 404,
            "no_such_claim")
    tab.close()


WAIT = 10
"""The long absence a hand-over to a person waits for (D52), made short for these tests:
`--limit handover_to_person_seconds` (180 s by default, docs/deploy.md)."""


def wait_out(refused: httpx.Response) -> None:
    """Sleep until the moment a `player_may_return` refusal says (D52)."""
    body = refusal(refused, 409, "player_may_return")
    time.sleep(max(0.0, body["params"]["until"] - time.time()) + 0.3)


def test_D52_R52_R53_after_a_long_absence_the_seat_can_be_handed_to_a_person(
        tmp_path: Path) -> None:
    """Without bots taking over, the grace period ends with the seat leaving (R52); Bob,
    never there since the start, did not leave on purpose, so the host hands his seat to a
    person only once he has been away `handover_to_person_seconds` (D52), counted from the
    start here — then it works."""
    with running_server("sqlite", tmp_path, extra=[
            "--limit", f"handover_to_person_seconds={WAIT}"]) as server:
        host, _bob, tid = started(server.url, grace=5, bots_take_over=False)
        refusal(host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"}),
                409, "not_left")
        watcher = Conn(server, tid, host.token).open()
        watcher.until(lambda c: c.view is not None and c.view["players"][1]["left"], 15)
        early = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"})
        params = refusal(early, 409, "player_may_return")["params"]
        assert params["wait"] == WAIT and params["name"] == "Bob" and params["seat"] == 2
        assert params["until"] - params["since"] == pytest.approx(WAIT)
        wait_out(early)
        reply = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"})
        assert reply.status_code == 200, reply.text
        friend = Guest(server.url, "Friend")
        claimed = friend.http.post(f"/api/tables/{tid}/claim", json={"code": reply.json()["claim"]})
        assert claimed.status_code == 200 and claimed.json()["seat"] == 2, claimed.text
        watcher.close()


def test_D52_D29_the_player_back_before_the_link_is_used_plays_and_the_link_dies(
        tmp_path: Path) -> None:
    """A bot took Bob's seat when his connection dropped (R52); after his long absence the
    host made a link for a person (D52). Bob opens the table before anyone uses it: his
    seat is his again at once (D29), and the link seats nobody (D18)."""
    with running_server("sqlite", tmp_path, extra=[
            "--limit", f"handover_to_person_seconds={WAIT}"]) as server:
        host, bob, tid = started(server.url, grace=5)
        conn = Conn(server, tid, bob.token).open()
        role = conn.role
        conn.vanish()
        watcher = Conn(server, tid, host.token).open()
        watcher.until(lambda c: c.view is not None and c.view["players"][1]["bot"], 15)
        wait_out(host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"}))
        reply = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"})
        assert reply.status_code == 200, reply.text
        back = Conn(server, tid, bob.token).open()
        assert back.seat == 2 and back.role == role and not back.me["bot"]
        late = Guest(server.url, "Late")
        refusal(late.http.post(f"/api/tables/{tid}/claim", json={"code": reply.json()["claim"]}),
                404, "no_such_claim")
        assert host.http.get(f"/api/tables/{tid}").json()["seats"][1]["name"] == "Bob"
        back.close()
        watcher.close()


def test_D52_D31_a_seat_left_on_purpose_goes_to_a_person_at_once(
        server: ServerProcess) -> None:
    """Bob leaves on purpose (D31): the host may hand his seat to a person at once, with
    no wait — he chose to go, and may come back only through such a link."""
    host, bob, tid = started(server.url, grace=5)
    conn = Conn(server, tid, bob.token).open()
    assert conn.command(do="leave")["type"] == "ack"
    conn.close()
    reply = host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"})
    assert reply.status_code == 200, reply.text
    friend = Guest(server.url, "Friend")
    claimed = friend.http.post(f"/api/tables/{tid}/claim", json={"code": reply.json()["claim"]})
    assert claimed.status_code == 200 and claimed.json()["seat"] == 2, claimed.text


def test_R53_across_two_processes_the_forwarded_hand_over_is_judged_alike(
        two_processes: Cluster) -> None:  # noqa: F811
    """The table lives on process a; the host and the thief talk to process b, whose
    requests are forwarded to a (cluster/forward.py): the same refusals."""
    a, b = two_processes.servers
    host, bob, tid = started(a.url)
    for guest in (host, bob):
        guest.http.base_url = httpx.URL(b.url)
    refusal(host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"}),
            409, "not_left")
    refusal(host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "bot"}),
            409, "not_left")
    conn = Conn(b, tid, bob.token).open()
    assert conn.command(do="leave")["type"] == "ack"
    conn.close()
    codes = [host.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"}
                            ).json()["claim"] for _ in range(2)]
    first, second = Guest(b.url, "First"), Guest(a.url, "Second")
    assert first.http.post(f"/api/tables/{tid}/claim", json={"code": codes[0]}
                           ).json()["seat"] == 2
    for code in codes:
        refusal(second.http.post(f"/api/tables/{tid}/claim", json={"code": code}), 404,
                "no_such_claim")


def test_D52_across_two_processes_the_owner_judges_the_wait(
        two_processes: Cluster) -> None:  # noqa: F811
    """The table lives on process a; Bob played through process b and his connection
    dropped there. The owner (a) counts his absence from when b said he was gone, and the
    host's hand-over to a person, asked on b, is forwarded to a and refused alike (D52)."""
    a, b = two_processes.servers
    host, bob, tid = started(a.url, grace=5)
    for guest in (host, bob):
        guest.http.base_url = httpx.URL(b.url)
    conn = Conn(b, tid, bob.token).open()
    conn.vanish()
    watcher = Conn(a, tid, host.token).open()
    watcher.until(lambda c: c.view is not None and c.view["players"][1]["bot"], 20)
    body = refusal(host.http.post(f"/api/tables/{tid}/seats/2/replace",
                                  json={"by": "person"}), 409, "player_may_return")
    assert body["params"]["wait"] == 180 and body["params"]["away"] >= 5
    back = Conn(b, tid, bob.token).open()  # D29: through b, his seat again
    assert back.seat == 2 and not back.me["bot"]
    back.close()
    watcher.close()
