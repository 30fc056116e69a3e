"""Play again (issue 21, docs/rules.md D19) through a real `trusis serve`: the host
proposes a rematch of a finished game, the people of that game are told in a `rematch`
frame and keep their seats for a while, a program accepts with its old seat token and
gets a new one (for its new seat only), bots keep their seats, and the series counts
who won which game."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from serverplay import close_code
from serverproc import Guest, Player, ServerProcess, running_server
from trusis.server.connections.protocol import outbound
from trusis.server.data.store import Store
from trusis.server.errors import LobbyError
from trusis.server.tables.hub import Hub
from trusis.server.tables.options import TableOptions
from trusis.server.tables.seats.seat import Reservation, held_for_another, reserved_entry


def _step(p: Player) -> bool:
    """One look at a seat's view: vote the first target by day, pass; True at the end."""
    p.pump(0.05)
    view = p.view
    if view is None:
        return False
    if view["status"] == "finished":
        return True
    me = view["players"][view["seat"] - 1]
    if me["alive"] and not me["passed"] and not me["left"]:
        legal = p.legal()
        if view["phase"]["kind"] == "day" and legal.get("vote", {}).get("targets") \
                and "vote" not in view["choices"]:
            p.command(do="vote", target=legal["vote"]["targets"][0])
        if "pass" in p.legal():
            p.command(do="pass")
    return False


def play_to_the_end(players: list[Player], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    done = [False] * len(players)
    while not all(done):
        assert time.monotonic() < deadline, "the game did not end in time"
        done = [_step(p) for p in players]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    with running_server("sqlite", tmp_path_factory.mktemp("rematch")) as proc:
        yield proc


def test_a_rematch_keeps_the_seats_of_the_people_and_bots_and_a_program_accepts_it(
        server) -> None:  # type: ignore[no-untyped-def]
    ann, bob, cid = (Guest(server.url, n) for n in ("Ann", "Bob", "Cid"))
    table = ann.create(seats=5, day_seconds=60, night_seconds=30)
    old = table["id"]
    assert ann.sit(old) == 1 and bob.sit(old) == 2
    old_token = ann.program(old, 3, "Prog")
    ann.bots(old, 2)
    ann.start(old)
    # Before the end there is nothing to play again.
    early = ann.http.post(f"/api/tables/{old}/rematch")
    assert early.status_code == 409 and early.json()["code"] == "not_finished"
    players = [Player(server, old, t) for t in (ann.token, bob.token, old_token)]
    play_to_the_end(players)
    bots = {s["seat"]: s for s in ann.http.get(f"/api/tables/{old}").json()["seats"]
            if s["kind"] == "bot"}

    # D19: only the host may propose in the first minute after the end.
    first = bob.http.post(f"/api/tables/{old}/rematch")
    assert first.status_code == 403 and first.json()["code"] == "host_first"
    assert first.json()["params"]["seconds"] > 0
    stranger = cid.http.post(f"/api/tables/{old}/rematch")
    assert stranger.status_code == 403 and stranger.json()["code"] == "not_host"

    proposed = ann.http.post(f"/api/tables/{old}/rematch")
    assert proposed.status_code == 200, proposed.text
    new_table = proposed.json()["table"]
    new = new_table["id"]
    assert new != old and new_table["status"] == "open"
    assert new_table["options"] == table["options"] and new_table["name"] == table["name"]
    seats = {s["seat"]: s for s in new_table["seats"]}
    assert seats[1]["kind"] == "person" and seats[1]["you"]  # who proposes sits at once
    assert seats[2]["kind"] == "reserved" and seats[2]["name"] == "Bob"
    assert seats[3]["kind"] == "reserved" and seats[3]["name"] == "Prog"
    for n, bot in bots.items():  # bots keep their seats, names and kinds
        assert (seats[n]["kind"], seats[n]["name"], seats[n]["bot_kind"]) == \
            ("bot", bot["name"], bot["bot_kind"])
    # A second click (or a second process) finds the same table.
    assert ann.http.post(f"/api/tables/{old}/rematch").json()["table"]["id"] == new
    assert ann.http.get(f"/api/tables/{old}").json()["rematch"] == new

    # Every client of the finished table is told, the program's included.
    for p in players:
        p.until(lambda q: any(m["type"] == "rematch" for m in q.messages), 10)
        frame = next(m for m in p.messages if m["type"] == "rematch")
        assert frame == {"type": "rematch", "table": new, "previous": old}
        outbound.validate_python(frame)  # as /api/protocol.schema.json promises
    bob_view = bob.http.get(f"/api/tables/{new}").json()
    assert {s["seat"]: s.get("for_you") for s in bob_view["seats"]}[2] is True

    # A kept seat is nobody else's: not a stranger's, not a bot's.
    taken = cid.http.post(f"/api/tables/{new}/seats", json={"seat": 2})
    assert taken.status_code == 409 and taken.json()["code"] == "seat_reserved"
    nobody = cid.http.post(f"/api/tables/{new}/rematch/accept")
    assert nobody.status_code == 404 and nobody.json()["code"] == "no_reservation"
    # A bot only keeps its seat: a person who asks for a seat takes the last bot's (D19).
    took = cid.http.post(f"/api/tables/{new}/seats", json={})
    assert took.status_code == 200 and took.json()["seat"] == 5, took.text
    assert {s["seat"]: (s["kind"], s["name"]) for s in took.json()["table"]["seats"]}[5] == \
        ("person", "Cid")
    assert took.json()["table"]["previous"] == old
    bot = ann.http.post(f"/api/tables/{new}/bots", json={"kind": "heuristic", "seat": 3})
    assert bot.status_code == 409 and bot.json()["code"] == "seat_reserved"
    unstarted = ann.http.post(f"/api/tables/{new}/start")
    assert unstarted.status_code == 409 and unstarted.json()["params"]["seats"] == [2, 3]
    # Outside a rematch, a bot's seat is taken (the host frees it first): unchanged.
    plain = ann.create(seats=5)["id"]
    ann.bots(plain, 5)
    kept_bot = cid.http.post(f"/api/tables/{plain}/seats", json={"seat": 1})
    assert kept_bot.status_code == 409 and kept_bot.json()["code"] == "seat_taken"

    # The program accepts with its old seat token, and gets a token for its new seat only.
    program = httpx.Client(base_url=server.url, headers={
        "Authorization": f"Bearer {old_token}"}, timeout=10)
    accepted = program.post(f"/api/tables/{new}/rematch/accept")
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["seat"] == 3
    new_token = accepted.json()["token"]
    assert new_token != old_token
    assert close_code(server, f"/ws/tables/{old}",
                      headers={"Authorization": f"Bearer {new_token}"}) == 4403
    assert close_code(server, f"/ws/tables/{new}",
                      headers={"Authorization": f"Bearer {old_token}"}) == 4403
    again = program.post(f"/api/tables/{new}/rematch/accept")  # a lost answer, asked again
    assert again.status_code == 200 and again.json()["seat"] == 3
    new_token = again.json()["token"]  # it replaces the one before (one per program and table)
    elsewhere = cid.create(seats=5)["id"]
    other = program.post(f"/api/tables/{elsewhere}/rematch/accept")
    assert other.status_code == 404 and other.json()["code"] == "not_a_rematch"
    at_own = program.post(f"/api/tables/{old}/rematch/accept")  # its own table: no rematch
    assert at_own.status_code == 404 and at_own.json()["code"] == "not_a_rematch"
    for answer in ("accept", "decline"):  # nor for a person
        plain = cid.http.post(f"/api/tables/{elsewhere}/rematch/{answer}")
        assert plain.status_code == 404 and plain.json()["code"] == "not_a_rematch"
    # The new seat token may not answer at its own table again: no fresh token for ever.
    renewed = httpx.Client(base_url=server.url, timeout=10,
                           headers={"Authorization": f"Bearer {new_token}"})
    minted = renewed.post(f"/api/tables/{new}/rematch/accept")
    assert minted.status_code == 403 and minted.json()["code"] == "token_elsewhere"

    # Bob declines: his seat is free for anyone at once, and Cid takes it.
    declined = bob.http.post(f"/api/tables/{new}/rematch/decline")
    assert declined.status_code == 200
    assert {s["seat"]: s["kind"] for s in declined.json()["table"]["seats"]}[2] is None
    assert cid.sit(new, 2) == 2  # Cid moves from the bot's old seat to Bob's
    ann.bots(new, 1)  # and the host seats a bot where Cid was

    # The series: game 1 finished (who won it, as its end screen says), game 2 open.
    end = ann.http.get(f"/api/tables/{old}/summary").json()
    series = ann.http.get(f"/api/tables/{new}/series").json()
    assert [(g["number"], g["table"], g["status"]) for g in series["games"]] == \
        [(1, old, "finished"), (2, new, "open")]
    assert series["teams"] == {end["winner"]: 1}
    names = {s["seat"]: s["name"] for s in ann.http.get(f"/api/tables/{old}").json()["seats"]}
    assert sorted(series["games"][0]["winners"]) == sorted(names[s] for s in end["winners"])
    wins = {p["name"]: (p["games"], p["wins"]) for p in series["players"]}
    assert wins["Ann"] == (1, 1 if 1 in end["winners"] else 0)
    assert [p["name"] for p in series["players"] if p["you"]] == ["Ann"]
    assert ann.http.get(f"/api/tables/{old}/series").json()["games"] == [
        {**g, "current": g["table"] == old} for g in series["games"]]

    # The new game: the program plays its seat with its new token; a new deal.
    started = ann.start(new)
    assert started["status"] == "running"
    assert all(s["kind"] != "reserved" for s in started["seats"])
    late = bob.http.post(f"/api/tables/{new}/rematch/accept")  # declined, and too late
    assert late.status_code == 409 and late.json()["code"] == "already_started"
    prog = Player(server, new, new_token)
    prog.until(lambda p: p.view is not None, 15)
    assert prog.seat == 3 and prog.view is not None and prog.view["role"]
    second = [Player(server, new, t) for t in (ann.token, cid.token)] + [prog]
    play_to_the_end(second)
    records = [ann.http.get(f"/api/tables/{t}/record").json() for t in (old, new)]
    assert records[0]["seed"] != records[1]["seed"]  # a new deal, from a new seed
    assert [r["players"][2] for r in records] == ["Prog", "Prog"]
    after = cid.http.get(f"/api/tables/{old}/series").json()
    assert [g["status"] for g in after["games"]] == ["finished", "finished"]
    assert sum(after["teams"].values()) == 2
    wins = {p["name"]: p for p in after["players"]}
    assert wins["Prog"]["games"] == 2 and wins["Cid"]["games"] == 1 and wins["Cid"]["you"]
    for p in players + second:
        p.close()
    program.close()


def test_a_kept_seat_falls_free_when_its_time_is_up_D_R1() -> None:
    """The seat a rematch keeps is kept for its player alone until `until`, then free."""
    now = time.time()
    kept = {2: Reservation("bob", "person", "Bob", now + 5)}
    assert held_for_another(kept, 2, "cid") and held_for_another(kept, 2, None)
    assert not held_for_another(kept, 2, "bob") and not held_for_another(kept, 3, "cid")
    assert reserved_entry(kept[2], "bob") == {"kind": "reserved", "name": "Bob",
                                              "until": now + 5, "for_you": True}
    gone = {2: Reservation("bob", "person", "Bob", now - 1)}
    assert not held_for_another(gone, 2, "cid") and reserved_entry(gone[2], "bob") == {}


def test_a_private_games_rematch_keeps_its_invite_and_survives_a_restart(
        tmp_path: Path) -> None:
    with running_server("sqlite", tmp_path) as server:
        ann, bob, eve = (Guest(server.url, n) for n in ("Ann", "Bob", "Eve"))
        table = ann.create(seats=5, day_seconds=60, night_seconds=30, private=True)
        old, invite = table["id"], table["invite"]
        ann.sit(old)
        bob.sit(old, invite=invite)
        ann.bots(old, 3)
        ann.start(old)
        players = [Player(server, old, t) for t in (ann.token, bob.token)]
        play_to_the_end(players)
        new = ann.http.post(f"/api/tables/{old}/rematch").json()["table"]["id"]
        players[1].until(lambda q: any(m["type"] == "rematch" for m in q.messages), 10)
        frame = next(m for m in players[1].messages if m["type"] == "rematch")
        assert frame["invite"] == invite  # the rematch keeps the invite link
        for p in players:
            p.close()
        server.kill()
        server.start()
        assert ann.http.get(f"/api/tables/{old}").json()["rematch"] == new
        # Private: without the invite the new table does not exist for Eve (404); Bob, for
        # whom a seat is kept, sees it and joins without it (the frame's invite is a courtesy).
        assert eve.http.get(f"/api/tables/{new}").status_code == 404
        assert eve.http.post(f"/api/tables/{new}/rematch/accept").status_code == 404
        seats = {s["seat"]: s for s in bob.http.get(f"/api/tables/{new}").json()["seats"]}
        assert seats[2]["kind"] == "reserved" and seats[2]["for_you"]
        assert "invite" not in bob.http.get(f"/api/tables/{new}").json()
        joined = bob.http.post(f"/api/tables/{new}/rematch/accept")
        assert joined.status_code == 200 and joined.json()["seat"] == 2


def test_who_may_propose_the_host_at_once_a_seats_holder_after_a_minute_D_R1() -> None:
    """The host first; once `HOST_FIRST_SECONDS` have gone by since the end, anyone who held
    a seat at the end (a group whose host went to bed goes on); a spectator never."""
    from types import SimpleNamespace

    from trusis.server.data.store import Player
    from trusis.server.errors import LobbyError
    from trusis.server.tables.rematch.offers import HOST_FIRST_SECONDS, may_propose

    end = 1_000_000.0
    lobby = SimpleNamespace(host_id="ann", seat_of=lambda pid: {"ann": 1, "bob": 2}.get(pid),
                            options=TableOptions())
    room = SimpleNamespace(status="finished", lobby=lobby,
                           host=SimpleNamespace(table=SimpleNamespace(
                               record=SimpleNamespace(times=[end - 5, end]))))
    ann, bob, eve = (Player(i, i.title(), "guest") for i in ("ann", "bob", "eve"))
    may_propose(room, ann, end + 1)  # type: ignore[arg-type]
    with pytest.raises(LobbyError) as early:
        may_propose(room, bob, end + 1)  # type: ignore[arg-type]
    assert early.value.code == "host_first" and early.value.params["seconds"] == 60
    may_propose(room, bob, end + HOST_FIRST_SECONDS + 0.1)  # type: ignore[arg-type]
    with pytest.raises(LobbyError) as watcher:
        may_propose(room, eve, end + 3600)  # type: ignore[arg-type]
    assert watcher.value.code == "not_host"
    room.status = "running"
    with pytest.raises(LobbyError) as running:
        may_propose(room, ann, end + 1)  # type: ignore[arg-type]
    assert running.value.code == "not_finished"


def proposed_rematch(server: ServerProcess, others: tuple[str, ...] = ("Ann",)
                     ) -> tuple[Guest, list[Guest], str]:
    """A game of Hostess (seat 1), `others` (the next seats) and bots, played to its end,
    and its rematch proposed by Hostess: the host, the others and the new table's id."""
    host = Guest(server.url, "Hostess")
    people = [Guest(server.url, n) for n in others]
    old = host.create(seats=5, day_seconds=60, night_seconds=30)["id"]
    host.sit(old, 1)
    for number, guest in enumerate(people, start=2):
        guest.sit(old, number)
    host.bots(old, 4 - len(people))
    host.start(old)
    players = [Player(server, old, g.token) for g in (host, *people)]
    play_to_the_end(players)
    for p in players:
        p.close()
    proposed = host.http.post(f"/api/tables/{old}/rematch")
    assert proposed.status_code == 200, proposed.text
    return host, people, str(proposed.json()["table"]["id"])


def test_D19_D39_sitting_elsewhere_gives_up_the_seat_kept_for_you(
        server: ServerProcess) -> None:
    """D39: a player holds one seat at a table. Ann, whose seat 2 the rematch keeps, takes a
    bot's seat instead: seat 2 is no longer kept (anyone may sit there), and accepting
    afterwards answers her one seat."""
    host, (ann,), new = proposed_rematch(server)
    seats = {s["seat"]: s for s in ann.http.get(f"/api/tables/{new}").json()["seats"]}
    assert seats[2]["kind"] == "reserved" and seats[2]["for_you"]
    assert ann.sit(new, 4) == 4
    seats = {s["seat"]: s for s in ann.http.get(f"/api/tables/{new}").json()["seats"]}
    assert seats[2]["kind"] is None and seats[4]["you"], seats
    assert [n for n, s in seats.items() if s.get("you")] == [4]
    accepted = ann.http.post(f"/api/tables/{new}/rematch/accept")
    assert accepted.status_code == 200 and accepted.json()["seat"] == 4, accepted.text
    cid = Guest(server.url, "Cid")
    assert cid.sit(new, 2) == 2
    host.close()
    ann.close()
    cid.close()


def test_D20_D40_a_kept_seat_keeps_its_players_name(server: ServerProcess) -> None:
    """Finding 2b (f_rematch_lookalike.py): a stranger named "Аnn" (a Cyrillic А) took a
    bot's seat at the rematch while Ann's seat was kept for her, and Ann then accepted it:
    two seats named alike (D20). A kept seat's name is taken (D40): the stranger is
    refused, so is a program seat or a bot of that name, and Ann takes her seat."""
    host, (ann,), new = proposed_rematch(server)
    mallory = Guest(server.url, "\u0410nn")
    refused = mallory.http.post(f"/api/tables/{new}/seats", json={"seat": 3})
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "name_confusable"
    assert refused.json()["params"]["other"] == "Ann"
    anywhere = mallory.http.post(f"/api/tables/{new}/seats", json={})
    assert anywhere.status_code == 409 and anywhere.json()["code"] == "name_confusable"
    program = host.http.post(f"/api/tables/{new}/seats/3/program", json={"name": "ANN"})
    assert program.status_code == 409 and program.json()["code"] == "name_confusable"
    accepted = ann.http.post(f"/api/tables/{new}/rematch/accept")
    assert accepted.status_code == 200 and accepted.json()["seat"] == 2, accepted.text
    names = [s["name"] for s in host.http.get(f"/api/tables/{new}").json()["seats"]]
    assert names.count("Ann") == 1 and "\u0410nn" not in names, names
    for guest in (host, ann, mallory):
        guest.close()


@pytest.mark.asyncio
async def test_D40_a_late_accept_beside_a_look_alike_is_refused(sqlite_store: Store) -> None:
    """D40: once a kept seat fell free (its two minutes over), a stranger with a look-alike
    name may sit; the player of the game before who accepts late is then the second and is
    refused (`name_confusable`, D20), as anyone sitting down would be — the host may remove
    the look-alike (D34). In-process: two minutes are too long to wait for over HTTP."""
    hub = Hub(sqlite_store, pace=0.0)
    host = await sqlite_store.new_player("Hostess", "guest")
    ann = await sqlite_store.new_player("Ann", "guest")
    mallory = await sqlite_store.new_player("\u0410nn", "guest")
    room = await hub.create(host, "again", TableOptions(seats=5))
    room.lobby.previous = "before"
    room.lobby.keep({2: Reservation(ann.id, "person", "Ann", time.time() + 60)})
    with pytest.raises(LobbyError) as kept:
        await hub.sit(room, mallory, None)
    assert kept.value.code == "name_confusable"
    room.lobby.keep({2: Reservation(ann.id, "person", "Ann", time.time() - 1)})  # over
    assert await hub.sit(room, mallory, 2) == 2  # a free seat like any other (D19)
    with pytest.raises(LobbyError) as late:
        await hub.answer_rematch(room, ann, "accept")
    assert late.value.code == "name_confusable" and late.value.params["other"] == "\u0410nn"
    assert room.lobby.seat_of(ann.id) is None
    await hub.close()


def test_a_program_accepting_again_replaces_its_seat_token(server) -> None:  # type: ignore[no-untyped-def]
    """Each accept of a program stored one more seat token for the new table: a loop of
    accepts grew the tokens without end. Now asking again replaces the token: only the
    last one handed out plays the new seat."""
    ann = Guest(server.url, "Ann again")
    old = ann.create(seats=5, day_seconds=60, night_seconds=30)["id"]
    ann.sit(old, 1)
    old_token = ann.program(old, 2, "Proggy")
    ann.bots(old, 3)
    ann.start(old)
    players = [Player(server, old, t) for t in (ann.token, old_token)]
    play_to_the_end(players)
    new = ann.http.post(f"/api/tables/{old}/rematch").json()["table"]["id"]
    program = httpx.Client(base_url=server.url, timeout=10,
                           headers={"Authorization": f"Bearer {old_token}"})
    tokens = []
    for _ in range(3):
        accepted = program.post(f"/api/tables/{new}/rematch/accept")
        assert accepted.status_code == 200 and accepted.json()["seat"] == 2, accepted.text
        tokens.append(accepted.json()["token"])
    for token in tokens[:-1]:  # replaced: they sign nobody in any more
        gone = httpx.post(f"{server.url}/api/tables/{new}/rematch/accept", timeout=10,
                          headers={"Authorization": f"Bearer {token}"})
        assert gone.status_code == 401, gone.text
    assert close_code(server, f"/ws/tables/{new}",
                      headers={"Authorization": f"Bearer {tokens[0]}"}) == 4401
    last = Player(server, new, tokens[-1])  # the last one plays the seat
    last.until(lambda p: p.seat == 2, 15)
    for p in [*players, last]:
        p.close()
    program.close()
    ann.close()
