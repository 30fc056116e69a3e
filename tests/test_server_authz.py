"""The authorisation matrix: every command by everyone who may not send it, and the lobby.

Every command (vote, illusion, protect, extra_vote, kamikaze, revive, sweep,
foresee, pass, say, leave) is sent over a real connection as a stranger (a
signed-in guest with no seat: a spectator), as a person whose seat went to a
bot, by a dead seat, by the wrong role, in the wrong phase, by a seat that has
passed, with a seat number in the payload, before the start and after the end.
Each is refused with the engine's code (D1, D2, R14) and changes nothing: every
seat's view, read from a fresh connection, is the same before and after, and no
client receives anything but the refusal. The cells the rules allow (R15, R50:
the dead chat; D6: the dead leave; D9: chat after the end) are checked apart.

Each stage (a table in a given state) is shared by its cells, which is sound
exactly because a refusal changes nothing: a cell that broke that would fail,
and so would the cells after it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from serverplay import ALL_POWERS_SET, Conn, People, command, people, quiet_since
from serverproc import Guest, ServerProcess, running_server

COMMANDS = ["vote", "illusion", "protect", "extra_vote", "kamikaze", "revive", "sweep",
            "foresee", "pass", "say", "leave"]
GAME = [c for c in COMMANDS if c not in ("say", "leave")]  # the powers and pass
HOLDERS = {"illusion": "ILLUSIONIST", "protect": "PRIEST", "extra_vote": "WISE_WOMAN",
           "kamikaze": "KAMIKAZE", "revive": "WHITE_KNIGHT", "sweep": "SWEEPER",
           "foresee": "ORACLE"}
NIGHT_POWERS = ["protect", "extra_vote", "kamikaze", "sweep", "foresee"]


@dataclass
class Stage:
    """A table in a given state, and every view of it as the cells must leave them."""

    tab: People
    before: dict[int | None, dict[str, Any]]

    def action(self, do: str, actor: int | None) -> dict[str, Any]:
        """`do` with targets the rules would take from a seat allowed to act."""
        view = self.tab.conns[1].view or {}
        alive = [int(s) for s in view.get("alive", [])] or list(self.tab.conns)
        dead = [p["seat"] for p in view.get("players", []) if not p["alive"]]
        other = next(s for s in alive if s != actor)
        if do == "illusion":
            return {"do": do, "target": other, "shown": other}
        if do == "revive":
            return {"do": do, "target": dead[0] if dead else other}
        if do == "say":
            return {"do": do, "text": f"{do} from {actor}"}
        if do in ("pass", "leave"):
            return {"do": do}
        return {"do": do, "target": other}

    def holder(self, role: str) -> int:
        return self.tab.seat_of(role)

    def lacking(self, do: str) -> int:
        """An alive seat that has not passed and whose role lacks `do` now."""
        view = self.tab.conns[1].view or {}
        for seat, conn in self.tab.conns.items():
            me = view["players"][seat - 1]
            if not me["alive"] or me["passed"] or me["left"]:
                continue
            if conn.role != HOLDERS.get(do) and not (do == "revive"
                                                     and conn.role == "BLACK_KNIGHT"):
                if do == "vote" and conn.role == "TRUSIS":
                    continue
                return seat
        raise AssertionError(f"no seat lacks {do}")

    def refused(self, conn: Conn, action: dict[str, Any], code: str,
                params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send `action` on `conn`: refused with `code`, and nothing changed anywhere."""
        marks = self.tab.marks()
        answer = command(conn, **action)
        assert answer["type"] == "refused", (action, answer)
        assert answer["code"] == code, (action, answer)
        assert isinstance(answer["params"], dict)
        if params is not None:
            assert answer["params"] == params, (action, answer)
        assert isinstance(answer["message"], str) and answer["message"]
        assert "{" not in answer["message"], answer["message"]  # every placeholder filled
        self.tab.barrier()
        for other, mark in marks.items():
            allowed = ("refused",) if other is conn else ()
            assert quiet_since(other, mark, allowed) == [], (other.seat, action)
        assert self.tab.views() == self.before, action
        return answer


def stage(tab: People) -> Stage:
    tab.barrier()
    return Stage(tab, tab.views())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("authz")) as proc:
        yield proc


@pytest.fixture(scope="module")
def day(server: ServerProcess) -> Iterator[Stage]:
    """Day 1 at a table of eight holding every power, and a stranger watching."""
    tab = people(server, 8, set={"custom": ALL_POWERS_SET})
    tab.watch("Stranger")
    yield stage(tab)
    tab.close()


@pytest.fixture(scope="module")
def night(server: ServerProcess) -> Iterator[Stage]:
    """Night 1 at a table of eight: the Wise Woman died by the vote, the Priest passed."""
    tab = people(server, 8, set={"custom": ALL_POWERS_SET})
    victim = tab.seat_of("WISE_WOMAN")
    for seat in tab.conns:
        target = victim if seat != victim else next(s for s in tab.conns if s != victim)
        assert tab.play(seat, do="vote", target=target)["type"] == "ack"
    tab.all_pass()
    view = tab.conns[1].view
    assert view is not None and view["phase"] == {"kind": "night", "number": 1}
    assert view["players"][victim - 1]["alive"] is False
    assert tab.play(tab.seat_of("PRIEST"), do="pass")["type"] == "ack"
    yield stage(tab)
    tab.close()


@pytest.fixture(scope="module")
def ended(server: ServerProcess) -> Iterator[Stage]:
    """A finished game: the Trusis voted out on Day 1 (R31: the Humans win)."""
    tab = people(server, 5)
    trusis = tab.seat_of("TRUSIS")
    for seat in tab.conns:
        target = trusis if seat != trusis else next(s for s in tab.conns if s != trusis)
        tab.play(seat, do="vote", target=target)
    tab.all_pass()
    assert tab.conns[1].view is not None and tab.conns[1].view["status"] == "finished"
    yield stage(tab)
    tab.close()


@pytest.fixture(scope="module")
def former(server: ServerProcess) -> Iterator[Stage]:
    """Seat 5 left and the host handed it to a bot (R53): its person now only watches."""
    tab = people(server, 5)
    assert tab.play(5, do="leave")["type"] == "ack"
    reply = tab.host.http.post(f"/api/tables/{tab.id}/seats/5/replace", json={"by": "bot"})
    assert reply.status_code == 200, reply.text
    person = tab.conns.pop(5)
    person.until(lambda c: c.view is not None and c.view["seat"] is None)  # a new snapshot
    again = tab.connect(tab.guests.pop(5))  # a new connection of that person: a spectator
    assert again.seat is None and again.view is not None and again.view["seat"] is None
    tab.watchers += [person, again]
    yield stage(tab)
    tab.close()


# -- the matrix ---------------------------------------------------------------------


@pytest.mark.parametrize("do", COMMANDS)
def test_a_stranger_can_send_no_command(day: Stage, do: str) -> None:
    stranger = day.tab.watchers[0]
    assert stranger.seat is None
    day.refused(stranger, day.action(do, None), "spectator", {})


@pytest.mark.parametrize("do", COMMANDS)
def test_R53_a_person_whose_seat_went_to_a_bot_is_a_spectator(
        former: Stage, do: str) -> None:
    """Both its old connection and a new one: the seat comes from the seats as they are."""
    for conn in former.tab.watchers:
        assert conn.view is not None and conn.view["seat"] is None
        former.refused(conn, former.action(do, None), "spectator", {})


@pytest.mark.parametrize("do", COMMANDS)
def test_a_command_naming_a_seat_is_refused_as_a_bad_message(day: Stage, do: str) -> None:
    """The seat comes from the connection: another seat's number, or even one's own, in
    the payload is refused naming the field, before any rule is asked."""
    tab = day.tab
    ann = tab.connect(tab.guests[1])  # its own connection: 20 malformed frames close one
    tab.watchers.append(ann)
    for seat in (2, 1):
        marks = tab.marks()
        frame = {"type": "act", "id": f"{do}-as-{seat}",
                 "action": {**day.action(do, 1), "seat": seat}}
        ann.ws.send(json.dumps(frame))
        ann.until(lambda c, i=frame["id"]: any(m.get("id") == i for m in c.messages))
        error = next(m for m in ann.messages if m.get("id") == frame["id"])
        assert (error["type"], error["code"], error["field"]) == (
            "error", "bad_message", "action.seat")
        tab.barrier()
        for conn, mark in marks.items():
            assert quiet_since(conn, mark, ("error",) if conn is ann else ()) == []
    tab.watchers.remove(ann)
    ann.close()
    assert tab.views() == day.before


@pytest.mark.parametrize("do", GAME)
def test_R15_a_dead_seat_takes_no_game_action(night: Stage, do: str) -> None:
    dead = night.holder("WISE_WOMAN")
    night.refused(night.tab.conns[dead], night.action(do, dead), "actor_dead", {"seat": dead})


@pytest.mark.parametrize("do", GAME)
def test_R11_a_seat_that_passed_takes_no_game_action(night: Stage, do: str) -> None:
    priest = night.holder("PRIEST")
    night.refused(night.tab.conns[priest], night.action(do, priest), "already_passed",
                  {"seat": priest})


@pytest.mark.parametrize("do", ["illusion", "revive"])
def test_D2_the_wrong_role_by_day(day: Stage, do: str) -> None:
    seat = day.lacking(do)
    answer = day.refused(day.tab.conns[seat], day.action(do, seat), "wrong_role")
    assert HOLDERS[do] in answer["params"]["holders"]


@pytest.mark.parametrize("do", ["vote", "protect", "extra_vote", "kamikaze", "revive", "sweep",
                                "foresee"])
def test_D2_the_wrong_role_by_night(night: Stage, do: str) -> None:
    seat = night.lacking(do)
    code = "night_vote_not_trusis" if do == "vote" else "wrong_role"
    night.refused(night.tab.conns[seat], night.action(do, seat), code)


@pytest.mark.parametrize("do", NIGHT_POWERS)
def test_D2_a_night_power_by_day(day: Stage, do: str) -> None:
    seat = day.holder(HOLDERS[do])
    day.refused(day.tab.conns[seat], day.action(do, seat), "wrong_phase_day", {"power": do})


def test_D2_a_day_power_by_night(night: Stage) -> None:
    seat = night.holder("ILLUSIONIST")
    night.refused(night.tab.conns[seat], night.action("illusion", seat), "wrong_phase_night",
                  {"power": "illusion"})


def test_R14_targets_the_rules_do_not_allow(night: Stage) -> None:
    """With the right role in the right phase, a target another seat's number may not be."""
    dead = night.holder("WISE_WOMAN")
    trusis = night.holder("TRUSIS")
    sweeper = night.holder("SWEEPER")
    knight = night.holder("WHITE_KNIGHT")
    conns = night.tab.conns
    night.refused(conns[trusis], {"do": "vote", "target": trusis}, "target_self")
    night.refused(conns[trusis], {"do": "vote", "target": dead}, "target_dead")
    night.refused(conns[sweeper], {"do": "sweep", "target": 9}, "no_such_seat")
    night.refused(conns[sweeper], {"do": "sweep", "target": 0}, "no_such_seat")
    night.refused(conns[knight], {"do": "revive", "target": trusis}, "target_alive")
    night.refused(conns[sweeper], {"do": "sweep", "target": None}, "cannot_withdraw")
    night.refused(conns[trusis], {"do": "say", "text": "to myself", "to": trusis},
                  "whisper_self")
    night.refused(conns[trusis], {"do": "dance"}, "unknown_action", {"do": "dance"})


@pytest.mark.parametrize("do", [c for c in COMMANDS if c != "say"])
def test_D13_after_the_end_every_command_but_chat_is_refused(ended: Stage, do: str) -> None:
    ended.refused(ended.tab.conns[2], ended.action(do, 2), "game_over", {})


@pytest.mark.parametrize("do", [c for c in COMMANDS if c != "say"])  # chat: D45 takes it
def test_before_the_start_no_command_is_played(server: ServerProcess, do: str) -> None:
    tab = people(server, 5, start=False)
    ann = tab.conns[1]
    marks = tab.marks()  # every connection has joined: the lobby shows them connected
    info = tab.host.http.get(f"/api/tables/{tab.id}").json()
    answer = command(ann, **Stage(tab, {}).action(do, 1))
    assert (answer["type"], answer["code"], answer["params"]) == ("refused", "not_started", {})
    tab.barrier()
    for conn, mark in marks.items():
        assert quiet_since(conn, mark, ("refused",) if conn is ann else ()) == []
    assert tab.host.http.get(f"/api/tables/{tab.id}").json() == info
    tab.close()


def test_R15_R50_D6_D9_what_the_rules_allow_the_dead_and_the_finished(
        server: ServerProcess) -> None:
    """The cells of the matrix that are not refusals: the dead chat (R15, R50) and may
    leave (D6); after the end everybody may still chat (D9)."""
    tab = people(server, 5)
    trusis = tab.seat_of("TRUSIS")
    victim = next(s for s in tab.conns if s != trusis)
    for seat in tab.conns:
        tab.play(seat, do="vote", target=victim if seat != victim else trusis)
    tab.all_pass()
    assert tab.conns[1].view is not None and not tab.conns[1].view["players"][victim - 1]["alive"]
    assert tab.play(victim, do="say", text="from beyond")["type"] == "ack"
    assert tab.play(victim, do="say", text="psst", to=trusis)["type"] == "ack"
    assert tab.play(victim, do="leave")["type"] == "ack"
    assert tab.play(victim, do="say", text="gone")["code"] == "actor_left"  # D8
    alive = tab.alive()
    tab.all_pass(alive)  # Night 1 goes by; on Day 2 the Trusis is voted out
    for seat in alive:
        other = next(s for s in alive if s != trusis)
        answer = tab.play(seat, do="vote", target=trusis if seat != trusis else other)
        assert answer["type"] == "ack", answer
    tab.all_pass(alive)
    assert tab.conns[1].view is not None and tab.conns[1].view["status"] == "finished"
    assert tab.play(trusis, do="say", text="well played")["type"] == "ack"
    tab.close()


# -- the lobby over HTTP ---------------------------------------------------------------


def lobby_error(reply: Any, status: int, code: str) -> dict[str, Any]:
    """A lobby refusal: the status, and a body of exactly code, params and message."""
    assert reply.status_code == status, reply.text
    body: dict[str, Any] = reply.json()
    assert set(body) == {"code", "params", "message"}, body
    assert body["code"] == code, body
    assert isinstance(body["params"], dict) and isinstance(body["message"], str)
    assert body["message"]
    return body


def test_only_the_host_adds_bots_frees_seats_starts_and_hands_seats_over(
        server: ServerProcess) -> None:
    host = Guest(server.url, "Host")
    table = host.create(seats=5, day_seconds=3600)
    tid = table["id"]
    host.sit(tid, 1)
    bob = Guest(server.url, "Bob")
    bob.sit(tid, 2)
    stranger = Guest(server.url, "Stranger")
    for who in (bob, stranger):
        before = host.http.get(f"/api/tables/{tid}").json()
        lobby_error(who.http.post(f"/api/tables/{tid}/bots", json={"kind": "heuristic"}),
                    403, "not_host")
        lobby_error(who.http.delete(f"/api/tables/{tid}/seats/1"), 403, "not_host")
        lobby_error(who.http.post(f"/api/tables/{tid}/seats/4/program", json={"name": "X"}),
                    403, "not_host")
        lobby_error(who.http.post(f"/api/tables/{tid}/start"), 403, "not_host")
        lobby_error(who.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "bot"}),
                    403, "not_host")
        assert host.http.get(f"/api/tables/{tid}").json() == before
    host.bots(tid, 3)
    host.start(tid)
    for who in (bob, stranger):
        for by in ("bot", "person"):
            lobby_error(who.http.post(f"/api/tables/{tid}/seats/2/replace", json={"by": by}),
                        403, "not_host")
    present = Conn(server, tid, host.token).open()  # connected and playing: not departed
    lobby_error(host.http.post(f"/api/tables/{tid}/seats/1/replace", json={"by": "bot"}),
                409, "not_left")
    present.close()
    lobby_error(host.http.post(f"/api/tables/{tid}/start"), 409, "already_started")
    lobby_error(host.http.post(f"/api/tables/{tid}/bots", json={}), 409, "already_started")


def test_a_games_record_and_end_screen_are_secret_until_it_ends(server: ServerProcess) -> None:
    host = Guest(server.url, "Host")
    table = host.create(seats=5, day_seconds=3600)
    tid = table["id"]
    for path in ("record", "summary"):  # an open table
        lobby_error(host.http.get(f"/api/tables/{tid}/{path}"), 403, "game_running")
    host.sit(tid, 1)
    host.bots(tid, 4)
    host.start(tid)
    seated_bob = Guest(server.url, "Watcher")
    for who in (host, seated_bob):
        for path in ("record", "summary"):
            lobby_error(who.http.get(f"/api/tables/{tid}/{path}"), 403, "game_running")
            lobby_error(who.http.get(f"/api/tables/{tid}/{path}?lang=fr"), 403, "game_running")
    info = host.http.get(f"/api/tables/{tid}").json()
    assert not {"seed", "deal", "record", "actions"} & keys(info)  # only the composition
    assert all("role" not in seat for seat in info["seats"])


def keys(data: Any) -> set[str]:
    """Every key anywhere in a JSON document."""
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in keys(v)}
    if isinstance(data, list):
        return {k for v in data for k in keys(v)}
    return set()


def test_a_private_table_is_hidden_without_its_invite(server: ServerProcess) -> None:
    host = Guest(server.url, "Host")
    table = host.create(seats=5, private=True)
    tid, invite = table["id"], table["invite"]
    stranger = Guest(server.url, "Stranger")
    missing = lobby_error(stranger.http.get("/api/tables/no-such-table"), 404, "no_such_table")
    for reply in (stranger.http.get(f"/api/tables/{tid}"),
                  stranger.http.get(f"/api/tables/{tid}", params={"invite": "wrong"}),
                  stranger.http.post(f"/api/tables/{tid}/seats", json={}),
                  stranger.http.get(f"/api/tables/{tid}/record"),
                  stranger.http.get(f"/api/tables/{tid}/summary")):
        body = lobby_error(reply, 404, "no_such_table")
        assert body["params"] == missing["params"]  # as if it did not exist
    assert tid not in {t["id"] for t in stranger.http.get("/api/tables").json()["tables"]}
    assert tid not in {t["id"] for t in host.http.get("/api/tables").json()["tables"]}
    seen = stranger.http.get(f"/api/tables/{tid}", params={"invite": invite})
    assert seen.status_code == 200 and "invite" not in seen.json()  # the host's only
    assert host.http.get(f"/api/tables/{tid}").json()["invite"] == invite
    assert stranger.sit(tid, invite=invite) == 1
    assert stranger.http.get(f"/api/tables/{tid}").status_code == 200  # seated: known


def test_every_lobby_refusal_has_a_code_params_and_a_message(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as anonymous:  # no cookie, no token
        lobby_error(anonymous.get("/api/me"), 401, "not_signed_in")
        lobby_error(anonymous.post("/api/tables", json={"seats": 5}), 401, "not_signed_in")
        lobby_error(anonymous.get("/api/me", headers={"Authorization": "Bearer nope"}), 401,
                    "not_signed_in")
    host = Guest(server.url, "Host")
    body = lobby_error(host.http.post("/api/tables", json={"seats": 4}), 422,
                       "setup.too_few_players")
    assert body["params"] == {"minimum": 5, "players": 4}  # R1
    body = lobby_error(host.http.post("/api/tables", json={
        "seats": 5, "set": {"custom": {"PRIEST": 9}}}), 422, "setup.too_many_roles")
    assert body["params"] == {"roles": 9, "players": 5}  # R4: both numbers
    table = host.create(seats=5)
    tid = table["id"]
    lobby_error(host.http.post(f"/api/tables/{tid}/start"), 409, "seats_empty")
    lobby_error(host.http.delete(f"/api/tables/{tid}/seats/mine"), 409, "not_seated")
    lobby_error(host.http.delete(f"/api/tables/{tid}/seats/3"), 409, "seat_empty")
    lobby_error(host.http.post(f"/api/tables/{tid}/bots", json={"kind": "nobody"}), 422,
                "unknown_bot")
    host.sit(tid, 1)
    other = Guest(server.url, "Other")
    lobby_error(other.http.post(f"/api/tables/{tid}/seats", json={"seat": 1}), 409, "seat_taken")
    lobby_error(other.http.post(f"/api/tables/{tid}/seats", json={"seat": 6}), 422,
                "no_such_seat")
    lobby_error(host.http.post(f"/api/tables/{tid}/seats/2/replace", json={}), 409,
                "not_running")
    host.bots(tid, 4)
    lobby_error(other.http.post(f"/api/tables/{tid}/seats", json={}), 409, "table_full")
    lobby_error(host.http.get("/api/i18n/xx"), 404, "no_such_language")
    # Bodies that do not fit the lobby's models are refused in the same shape.
    body = lobby_error(host.http.post("/api/tables", json={"seats": 5, "day_seconds": 3}),
                       422, "bad_request")
    assert body["params"] == {"field": "day_seconds", "ge": 30}
    body = lobby_error(host.http.post("/api/tables", json={"seats": 5, "colour": "red"}),
                       422, "bad_request")
    assert body["params"]["field"] == "colour"
    body = lobby_error(host.http.post("/api/tables", content=b"{not json",
                                      headers={"Content-Type": "application/json"}),
                       422, "bad_request")
    body = lobby_error(host.http.post("/api/guest", json={}), 422, "bad_request")
    assert body["params"]["field"] == "name"
    body = lobby_error(host.http.get("/api/balance", params={"players": "many"}), 422,
                       "bad_request")
    assert body["params"]["field"] == "players"
