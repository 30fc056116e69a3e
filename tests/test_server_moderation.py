"""Moderation through a real `trusis serve` (issue 18, community half): roles from the
page, every report for moderators (R51) with no more than the reporter could read (R50),
warnings, mutes and bans (R52–R53 for the seats), the audit log, blocks (D33) and
removals from a waiting room (D34)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from modhelp import account, grant, sanction
from serverplay import Conn, close_code, command, people
from serverproc import Guest, ServerProcess, running_server
from trusis.rules.roles import ROLES


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path) as running:
        yield running


def test_roles_from_the_page(server: ServerProcess) -> None:
    """An admin grants and revokes moderator (and admin) from the page; nobody else can."""
    root, root_id = account(server.url, "Root")
    mona, mona_id = account(server.url, "Mona")
    gus = Guest(server.url, "Gus")
    grant(server, "Root", "admin")
    assert root.get("/api/staff").json()["roles"] == ["admin"]
    refused = mona.post("/api/staff", json={"name": "Mona", "role": "moderator"})
    assert refused.status_code == 403 and refused.json()["code"] == "not_admin"
    assert mona.get("/api/moderation/reports").json()["code"] == "not_staff"
    assert gus.http.get("/api/moderation/audit").status_code == 403
    done = root.post("/api/staff", json={"name": "mona", "role": "moderator",
                                         "reason": "trusted"})
    assert done.status_code == 200 and done.json()["changed"] is True
    assert mona.get("/api/staff").json()["roles"] == ["moderator"]
    assert mona.get("/api/moderation/reports").status_code == 200
    # a moderator is not an admin: no roles from them
    assert mona.post("/api/staff", json={"name": "Root", "role": "moderator"}
                     ).status_code == 403
    guest_role = root.post("/api/staff", json={"name": "Gus", "role": "moderator"})
    assert guest_role.status_code == 404 and guest_role.json()["code"] == "no_such_account"
    own = root.post("/api/staff", json={"name": "Root", "role": "admin", "grant": False})
    assert own.status_code == 409 and own.json()["code"] == "own_admin"
    assert root.post("/api/staff", json={"name": "Mona", "role": "moderator",
                                         "grant": False}).json()["changed"] is True
    assert mona.get("/api/moderation/reports").status_code == 403
    log = root.get("/api/moderation/audit").json()["log"]
    assert [(x["action"], x["actor_name"], x["target_name"]) for x in log] == [
        ("revoke_moderator", "Root", "Mona"), ("grant_moderator", "Root", "Mona"),
        ("grant_admin", None, "Root")]  # `trusis admin grant`: its line too
    assert log[2]["actor_id"] == "cli"
    assert log[1]["reason"] == "trusted" and mona_id and root_id


def test_reports_for_moderators_hold_only_what_the_reporter_read(
        server: ServerProcess) -> None:
    """R51: every report, newest first, with its state; R50: the excerpt is the reporter's
    view — no whisper between two other seats, and no role of the running game (D35)."""
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    table = people(server, 5)
    try:
        said = {(2, None): "hello all", (2, 3): "W23-marker", (4, 5): "W45-marker",
                (3, 2): "W32-marker", (1, None): "hi from Ann"}
        for (seat, to), text in said.items():
            body = {"do": "say", "text": text, **({"to": to} if to else {})}
            assert command(table.conns[seat], **body)["type"] == "ack"
        table.barrier()
        first = table.guests[2].http.post(f"/api/tables/{table.id}/reports",
                                          json={"seat": 3, "reason": "insults"})
        second = table.guests[5].http.post(f"/api/tables/{table.id}/reports",
                                           json={"seat": 1, "reason": "spam"})
        assert first.status_code == second.status_code == 201
        reply = mod.get("/api/moderation/reports")
        assert reply.status_code == 200
        reports = reply.json()["reports"]
        assert [r["id"] for r in reports] == [second.json()["id"], first.json()["id"]]
        by_bob = reports[1]
        assert by_bob["reporter"] == {"id": table.guests[2].id, "name": "Bob", "seat": 2}
        assert by_bob["about"] == {"id": table.guests[3].id, "name": "Cid", "seat": 3}
        assert by_bob["state"] == "open" and by_bob["table"]["id"] == table.id
        texts = [line["text"] for line in by_bob["chat"]]
        assert texts == ["hello all", "W23-marker", "W32-marker", "hi from Ann"]
        by_eve = reports[0]
        assert [line["text"] for line in by_eve["chat"]] == ["hello all", "W45-marker",
                                                             "hi from Ann"]
        # the canary: no whisper between two other seats, no role, on any moderator page
        pages = [reply.text, mod.get(f"/api/moderation/players/{table.guests[3].id}").text,
                 mod.get("/api/moderation/audit").text]
        assert "W45-marker" not in by_bob.__repr__() and "W23-marker" not in str(by_eve)
        for text in pages:
            assert '"role"' not in text and '"deal"' not in text
            for role in ROLES:
                assert f'"{role}"' not in text, role
        # acted on, dismissed: the state shows, the audit log says who and why
        decided = mod.post(f"/api/moderation/reports/{first.json()['id']}",
                           json={"state": "dismissed", "reason": "banter"})
        assert decided.status_code == 200
        still_open = mod.get("/api/moderation/reports", params={"state": "open"}).json()
        assert [r["id"] for r in still_open["reports"]] == [second.json()["id"]]
        bad = mod.post(f"/api/moderation/reports/{first.json()['id']}",
                       json={"state": "closed"})
        assert bad.status_code == 422
        assert mod.post("/api/moderation/reports/nope", json={"state": "acted"}
                        ).json()["code"] == "no_such_report"
        log = mod.get("/api/moderation/audit").json()["log"]
        assert (log[0]["action"], log[0]["reason"], log[0]["report_id"]) == (
            "dismissed", "banter", first.json()["id"])
        record = mod.get(f"/api/moderation/players/{table.guests[3].id}").json()
        assert [r["id"] for r in record["reports"]] == [first.json()["id"]]
        assert record["reports"][0]["state"] == "dismissed"
    finally:
        table.close()


def test_host_reads_reports_without_whispers_between_other_seats(
        server: ServerProcess) -> None:
    """R50, D35: the table's host — a player of the running game — reads its reports with
    only the lines the host's own seat could read: the reporter's whispers with a third
    seat stay for moderators."""
    table = people(server, 5)
    try:
        said = {(2, 3): "W23-marker", (3, 2): "W32-marker", (2, 1): "W21-marker",
                (2, None): "hello all"}
        for (seat, to), text in said.items():
            body = {"do": "say", "text": text, **({"to": to} if to else {})}
            assert command(table.conns[seat], **body)["type"] == "ack"
        table.barrier()
        assert table.guests[2].http.post(f"/api/tables/{table.id}/reports",
                                         json={"seat": 4, "reason": "spam"}).status_code == 201
        reply = table.guests[1].http.get(f"/api/tables/{table.id}/reports")  # Ann hosts
        assert reply.status_code == 200
        (found,) = reply.json()["reports"]
        assert [line["text"] for line in found["chat"]] == ["W21-marker", "hello all"]
        assert "W23-marker" not in reply.text and "W32-marker" not in reply.text
    finally:
        table.close()


def test_warning_is_seen_once(server: ServerProcess) -> None:
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    gus = Guest(server.url, "Gus")
    given = sanction(mod, gus.id, "warning", "be kind")
    warnings = gus.http.get("/api/me/warnings").json()["warnings"]
    assert [(w["id"], w["reason"]) for w in warnings] == [(given["id"], "be kind")]
    assert gus.http.post(f"/api/me/warnings/{given['id']}/seen").status_code == 200
    assert gus.http.get("/api/me/warnings").json()["warnings"] == []
    again = gus.http.post(f"/api/me/warnings/{given['id']}/seen")
    assert again.status_code == 404 and again.json()["code"] == "no_such_warning"
    record = mod.get(f"/api/moderation/players/{gus.id}").json()
    assert record["sanctions"][0]["kind"] == "warning" and record["sanctions"][0]["seen_at"]
    # "everything kept about you" holds the warning (not who gave it) and your blocks
    mine = gus.http.get("/api/me/data").json()
    assert [(x["kind"], x["reason"]) for x in mine["sanctions"]] == [("warning", "be kind")]
    assert "by_id" not in mine["sanctions"][0] and mine["blocks"] == []


def test_mute_refuses_public_and_private_chat_until_lifted(server: ServerProcess) -> None:
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    table = people(server, 5)
    try:
        cid = table.guests[3]
        refused = mod.post(f"/api/moderation/players/{cid.id}/sanctions",
                           json={"kind": "mute", "reason": "spam"})
        assert refused.status_code == 422 and refused.json()["code"] == "needs_duration"
        given = sanction(mod, cid.id, "mute", "spam", minutes=30)
        assert given["until"] is not None
        for body in ({"do": "say", "text": "still here"},
                     {"do": "say", "text": "psst", "to": 2}):
            answer = command(table.conns[3], **body)
            assert answer["type"] == "refused" and answer["code"] == "muted", answer
            assert "muted" in answer["message"]
        assert command(table.conns[2], do="say", text="not me")["type"] == "ack"
        # the mute counts at every table: the muted guest is refused elsewhere too
        host = Guest(server.url, "Hal")
        elsewhere = host.create(seats=5, day_seconds=3600, night_seconds=1800)["id"]
        host.sit(elsewhere)
        cid.sit(elsewhere)
        host.bots(elsewhere, 3)
        host.start(elsewhere)
        there = Conn(server, elsewhere, cid.token).open()
        try:
            assert command(there, do="say", text="hi")["code"] == "muted"
        finally:
            there.close()
        unsaid = mod.delete(f"/api/moderation/sanctions/{given['id']}")
        assert (unsaid.status_code, unsaid.json()["code"]) == (422, "needs_reason")
        assert command(table.conns[3], do="say", text="still muted")["code"] == "muted"
        assert mod.delete(f"/api/moderation/sanctions/{given['id']}",
                          params={"reason": "apologised"}).status_code == 200
        assert command(table.conns[3], do="say", text="sorry")["type"] == "ack"
        log = [(x["action"], x["reason"]) for x in mod.get("/api/moderation/audit").json()["log"]]
        assert log == [("lift_mute", "apologised"), ("mute", "spam"), ("grant_moderator", "")]
    finally:
        table.close()


def test_ban_ends_sessions_seats_and_sign_ins(server: ServerProcess) -> None:
    """A ban: tokens revoked and connections closed (4423, a ban's own code: D53), no
    login, no new guest from the banned browser, and the seat of a running game goes to a
    bot as if its player had left (R52, R53)."""
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    table = people(server, 5)
    bad, bad_id = account(server.url, "Badger")
    try:
        cid = table.guests[3]
        old_token = cid.token
        assert table.guests[2].http.post(f"/api/tables/{table.id}/reports", json={
            "seat": 3, "reason": "threats in the chat"}).status_code == 201
        ban = sanction(mod, cid.id, "ban", "threats")
        assert ban["until"] is None
        assert table.conns[3].wait_closed() == 4423
        assert cid.http.get("/api/me").json()["code"] == "banned"  # not "choose a name"
        again = httpx.post(server.url + "/api/guest", json={"name": "Cid again"},
                           headers={"Authorization": f"Bearer {old_token}"})
        assert again.status_code == 403 and again.json()["code"] == "banned"
        fresh = httpx.post(server.url + "/api/guest", json={"name": "Someone"})
        assert fresh.status_code == 200  # another browser is not refused
        info = table.guests[1].http.get(f"/api/tables/{table.id}").json()
        assert info["seats"][2]["kind"] == "bot"
        view = table.conns[1]
        view.until(lambda c: c.view is not None and c.view["players"][2].get("left"))
        # the report is still about Cid, though a bot holds his seat now
        about = mod.get("/api/moderation/reports").json()["reports"][0]["about"]
        assert (about["id"], about["name"], about["seat"]) == (cid.id, "Cid", 3)
        record = mod.get(f"/api/moderation/players/{cid.id}").json()
        assert [r["reason"] for r in record["reports"]] == ["threats in the chat"]
        # an account: no login while banned, a login again once the ban is lifted
        sanction(mod, bad_id, "ban", "cheating", minutes=60)
        assert bad.get("/api/me").status_code == 403
        login = httpx.post(server.url + "/api/login", json={"name": "Badger",
                                                            "password": "a long password"})
        assert login.status_code == 403 and login.json()["code"] == "banned"
        assert login.json()["params"]["until"] is not None
        # moderators may not sanction themselves, nor other staff (only an admin can)
        me = mod.get("/api/me").json()["player"]["id"]
        assert mod.post(f"/api/moderation/players/{me}/sanctions", json={
            "kind": "warning", "reason": "x"}).json()["code"] == "own_sanction"
        lifted = mod.get(f"/api/moderation/players/{bad_id}").json()["sanctions"][0]["id"]
        assert mod.delete(f"/api/moderation/sanctions/{lifted}",
                          params={"reason": "appeal heard"}).status_code == 200
        assert httpx.post(server.url + "/api/login", json={
            "name": "Badger", "password": "a long password"}).status_code == 200
        log = mod.get("/api/moderation/audit").json()["log"]
        assert [(x["action"], x["reason"], x["until"] is None) for x in log] == [
            ("lift_ban", "appeal heard", True), ("ban", "cheating", False),
            ("ban", "threats", True), ("grant_moderator", "", True)]
    finally:
        table.close()


def test_D36_D41_a_mute_and_a_ban_reach_the_program_seats_their_player_made(
        server: ServerProcess) -> None:
    """Finding 3 (f_mute_ban_via_program_seat.py): Mallory, muted, went on chatting through
    the program seat she handed out as host, and once banned the program seat reconnected,
    chatted and played: the mute and the token revocation looked at the program's own
    player id. A program seat answers for whoever made it (D41): their mute refuses its
    chat, their ban ends its tokens and connections and a bot takes its seat."""
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    mallory = Guest(server.url, "Mallory")
    table = mallory.create(seats=5, day_seconds=3600, night_seconds=1800)["id"]
    mallory.sit(table, 1)
    program = mallory.program(table, 2, "Helper")
    mallory.bots(table, 3)
    mallory.start(table)
    own, prog = Conn(server, table, mallory.token).open(), Conn(server, table, program).open()
    try:
        assert command(prog, do="say", text="before")["type"] == "ack"
        muted = sanction(mod, mallory.id, "mute", "abuse", minutes=60)
        assert command(own, do="say", text="still here?")["code"] == "muted"
        answer = command(prog, do="say", text="yes, through my program seat")
        assert answer["type"] == "refused" and answer["code"] == "muted", answer
        assert answer["params"]["until"] == pytest.approx(muted["until"])
        assert command(prog, do="say", text="psst", to=1)["code"] == "muted"
        assert mod.delete(f"/api/moderation/sanctions/{muted['id']}",
                          params={"reason": "lifted"}).status_code == 200
        assert command(prog, do="say", text="lifted")["type"] == "ack"
        sanction(mod, mallory.id, "ban", "abuse")
        assert own.wait_closed() == 4423
        assert prog.wait_closed() == 4423, "the program seat's connection stayed open"
        told = [m for m in prog.messages if m["type"] == "banned"]
        assert told == [{"type": "banned", "until": None, "reason": "abuse"}]
        assert close_code(server, f"/ws/tables/{table}",
                          headers={"Authorization": f"Bearer {program}"}) == 4401
        signed = httpx.get(f"{server.url}/api/me", headers={"Authorization": f"Bearer {program}"})
        assert signed.status_code == 401, signed.text  # not 403 seat_token: no such token
        seats = Guest(server.url, "Onlooker").http.get(f"/api/tables/{table}").json()["seats"]
        assert [s["kind"] for s in seats[:2]] == ["bot", "bot"], seats
    finally:
        own.close()
        prog.close()


def test_block_keeps_them_from_your_tables_and_remove_from_the_waiting_room(
        server: ServerProcess) -> None:
    """D33: a blocked player cannot sit at (or claim) a table the blocker hosts, and the
    blocker's page learns which seats to hide the chat of; D34: a person the host removed
    cannot sit there again."""
    ann, bob, cid = (Guest(server.url, n) for n in ("Ann", "Bob", "Cid"))
    first = ann.create(seats=5)["id"]
    assert bob.sit(first) == 1 and ann.sit(first) == 2 and cid.sit(first) == 3
    blocked = ann.http.post(f"/api/tables/{first}/blocks", json={"seat": 1})
    assert blocked.status_code == 201 and blocked.json()["blocked"]["name"] == "Bob"
    assert ann.http.get(f"/api/tables/{first}/blocked").json() == {"seats": [1]}
    assert bob.http.get(f"/api/tables/{first}/blocked").json() == {"seats": []}
    own = ann.http.post(f"/api/tables/{first}/blocks", json={"seat": 2})
    assert own.status_code == 409 and own.json()["code"] == "own_block"
    empty = ann.http.post(f"/api/tables/{first}/blocks", json={"seat": 5})
    assert empty.json()["code"] == "not_a_person"
    second = ann.create(seats=5)["id"]
    refused = bob.http.post(f"/api/tables/{second}/seats", json={"seat": None})
    assert refused.status_code == 403 and refused.json()["code"] == "blocked_by_host"
    assert cid.sit(second) == 1  # only the blocked one
    # a table Bob hosts: Ann's block does not keep Ann out of it
    third = bob.create(seats=5)["id"]
    assert ann.sit(third) == 1
    # removal: the host frees the seat, and that person cannot sit again
    not_host = cid.http.post(f"/api/tables/{second}/seats/1/remove")
    assert not_host.status_code == 403 and not_host.json()["code"] == "not_host"
    removed = ann.http.post(f"/api/tables/{second}/seats/1/remove")
    assert removed.status_code == 200 and removed.json()["seats"][0]["kind"] is None
    again = cid.http.post(f"/api/tables/{second}/seats", json={"seat": 2})
    assert again.status_code == 403 and again.json()["code"] == "removed"
    assert cid.sit(first) == 3  # another table of the same host: welcome
    assert [b["blocked_id"] for b in ann.http.get("/api/me/data").json()["blocks"]] == [bob.id]
    listed = ann.http.get("/api/me/blocks").json()["blocks"]
    assert [(b["id"], b["name"]) for b in listed] == [(bob.id, "Bob")]
    assert ann.http.delete(f"/api/me/blocks/{bob.id}").status_code == 200
    assert bob.sit(second) in (1, 3, 4, 5)
    assert ann.http.delete(f"/api/me/blocks/{bob.id}").json()["code"] == "not_blocked"


def test_only_staff_read_or_act_and_bad_input_changes_nothing(server: ServerProcess) -> None:
    """Every moderation route refuses a player who is not staff (403 not_staff) and a visitor
    (401); a malformed sanction is a 422 that records nothing."""
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    gus = Guest(server.url, "Gus")
    routes = [("GET", "/api/moderation/reports"), ("GET", "/api/moderation/audit"),
              ("GET", "/api/moderation/players?name=Gus"),
              ("GET", f"/api/moderation/players/{gus.id}"),
              ("POST", "/api/moderation/reports/x", {"state": "acted"}),
              ("POST", f"/api/moderation/players/{gus.id}/sanctions",
               {"kind": "warning", "reason": "x"}),
              ("DELETE", "/api/moderation/sanctions/x")]
    visitor = httpx.Client(base_url=server.url, timeout=10)
    for method, path, *body in routes:
        refused = gus.http.request(method, path, json=body[0] if body else None)
        assert (refused.status_code, refused.json()["code"]) == (403, "not_staff"), path
        assert visitor.request(method, path, json=body[0] if body else None
                               ).status_code == 401, path
    for bad in ({"kind": "kick", "reason": "x"}, {"kind": "mute", "reason": "x", "minutes": 0},
                {"kind": "ban", "reason": ""}, {"kind": "warning", "reason": "x" * 1001},
                {"kind": "warning", "reason": "x", "extra": 1}):
        reply = mod.post(f"/api/moderation/players/{gus.id}/sanctions", json=bad)
        assert reply.status_code == 422, bad
    blank = mod.post(f"/api/moderation/players/{gus.id}/sanctions",
                     json={"kind": "warning", "reason": "   "})
    assert blank.json()["code"] == "needs_reason"
    assert mod.post("/api/moderation/players/nobody/sanctions", json={
        "kind": "warning", "reason": "x"}).json()["code"] == "no_such_player"
    assert mod.get(f"/api/moderation/players/{gus.id}").json()["sanctions"] == []
    assert [x["action"] for x in mod.get("/api/moderation/audit").json()["log"]] == [
        "grant_moderator"]  # `trusis admin grant` above: nothing of the refused requests


def test_a_ban_frees_a_waiting_room_seat_and_a_mute_says_until_when(
        server: ServerProcess) -> None:
    """D36: in a waiting room a banned player's seat is freed; a mute's refusal carries its
    end."""
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    host, eve = Guest(server.url, "Hal"), Guest(server.url, "Eve")
    waiting = host.create(seats=5)["id"]
    assert eve.sit(waiting) == 1
    sanction(mod, eve.id, "ban", "spam bot", minutes=60)
    deadline = time.monotonic() + 15
    while host.http.get(f"/api/tables/{waiting}").json()["taken"] and \
            time.monotonic() < deadline:
        time.sleep(0.05)
    assert host.http.get(f"/api/tables/{waiting}").json()["taken"] == 0
    table = people(server, 5)
    try:
        muted = sanction(mod, table.guests[4].id, "mute", "flood", minutes=15)
        answer = command(table.conns[4], do="say", text="hey")
        assert answer["code"] == "muted"
        assert answer["params"]["until"] == pytest.approx(muted["until"])
    finally:
        table.close()


def test_a_reports_excerpt_keeps_each_writers_name_its_time_and_its_replay_step(
        server: ServerProcess) -> None:
    """Issue 38: a report's excerpt named each line's seat by its holder when read: Bob's
    own lines, once a bot played his seat, read "Bob (bot)" (the seat's name now), and no
    line said when it was written. Each line now keeps its writer's name then — Bob for
    his, "Bob (bot)" for the bot's —, its time, and the step of the replay (everything
    revealed) just after it, whose last action is that very line."""
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    table = people(server, 5)
    try:
        before = time.time()
        assert command(table.conns[2], do="say", text="B-own-line")["type"] == "ack"
        assert command(table.conns[2], do="leave")["type"] == "ack"
        host = table.guests[1].http
        handed = host.post(f"/api/tables/{table.id}/seats/2/replace", json={"by": "bot"})
        assert handed.status_code in (200, 201), handed.text
        table.barrier()
        assert command(table.conns[3], do="say", text="C-line-after")["type"] == "ack"
        table.barrier()
        after = time.time()
        filed = table.guests[3].http.post(f"/api/tables/{table.id}/reports",
                                          json={"seat": 2, "reason": "rude"})
        assert filed.status_code == 201, filed.text
        report = mod.get("/api/moderation/reports").json()["reports"][0]
        assert report["seats"]["2"] == "Bob (bot)"  # the seat's holder now ...
        lines = {line["text"]: line for line in report["chat"]}
        assert lines["B-own-line"]["name"] == "Bob"  # ... but the line is Bob's own
        assert lines["C-line-after"]["name"] == "Cid"
        for line in lines.values():
            assert before <= line["t"] <= after
        assert all(line["name"] == "Bob (bot)" for line in report["chat"]  # the bot's own
                   if line["from"] == 2 and line["text"] != "B-own-line")
        steps = [lines[t]["step"] for t in ("B-own-line", "C-line-after")]
        assert 1 <= steps[0] < steps[1]  # Bob's line, his leave, the hand-over, Cid's line
        hosts = host.get(f"/api/tables/{table.id}/reports").json()["reports"]
        assert [line["name"] for line in hosts[0]["chat"] if line["text"] == "B-own-line"] \
            == ["Bob"]
    finally:
        table.close()
