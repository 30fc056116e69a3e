"""A sanctioned player is told what happened to them (a moderator's trial on a real server):

- a ban closes their connections with its own code (4423, not a sign-out's 4401) after a
  `banned` frame that says until when and why, and every later request of theirs — a
  reload, a new guest name, a login, the WebSocket — answers with the same end and reason;
- a mute's refusal says when it ends;
- a warning reaches their open connections at once (a `warning` frame), not at the next
  page load only;
- a deleted player's open connections close and their seats go as a banned player's do
  (D36, D53): at once when they delete themselves, within `DELETED_CHECK_SECONDS` when an
  operator deletes them with `trusis admin delete` beside the running server.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from modhelp import account, grant, sanction
from serverplay import Conn, close_code, command, people
from serverproc import Guest, ServerProcess, running_server
from trusis.rules.i18n import render

BANNED = 4423
"""The close code of a ban (docs/protocol.md), not a sign-out's."""
SIGNED_OUT = 4401
DELETED_CHECK_SECONDS = 5.0
"""The bound docs/deploy.md gives for an operator's deletion to reach a running server
(`trusis.server.tables.deletions.DELETED_CHECK_SECONDS`)."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path) as running:
        yield running


def _seat_kind(guest: Guest, table: str, seat: int, kind: str, within: float = 15.0) -> str:
    deadline = time.monotonic() + within
    while True:
        found = str(guest.http.get(f"/api/tables/{table}").json()["seats"][seat - 1]["kind"])
        if found == kind or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_a_ban_tells_the_player_until_when_and_why(server: ServerProcess) -> None:
    """At the ban the connection hears `banned` (its end, its reason) and closes with 4423;
    from then on the banned browser's session, a new guest, the WebSocket and the
    account's login all answer with the same end and reason."""
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    table = people(server, 5)
    badger, badger_id = account(server.url, "Badger")
    try:
        cid = table.guests[3]
        given = sanction(mod, cid.id, "ban", "threats in the chat", minutes=24 * 60)
        assert table.conns[3].wait_closed() == BANNED != SIGNED_OUT
        told = [m for m in table.conns[3].messages if m["type"] == "banned"]
        assert told == [{"type": "banned", "until": pytest.approx(given["until"]),
                         "reason": "threats in the chat"}]
        # a reload: the session says who is banned, until when and why
        session = cid.http.get("/api/session")
        assert session.status_code == 200
        assert session.json() == {"player": None, "banned": {
            "until": pytest.approx(given["until"]), "reason": "threats in the chat"}}
        # the lobby's own requests: 403 banned with the same, not 401 "choose a name"
        mine = cid.http.get("/api/me/tables")
        assert (mine.status_code, mine.json()["code"]) == (403, "banned")
        assert mine.json()["params"] == {"until": pytest.approx(given["until"]),
                                         "reason": "threats in the chat"}
        again = cid.http.post("/api/guest", json={"name": "Cid again"})
        assert (again.status_code, again.json()["code"]) == (403, "banned")
        assert again.json()["params"]["reason"] == "threats in the chat"
        assert again.json()["params"]["until"] == pytest.approx(given["until"])
        assert close_code(server, f"/ws/tables/{table.id}",
                          headers={"Authorization": f"Bearer {cid.token}"}) == BANNED
        # a visitor with no session is told nothing of anyone's ban
        assert httpx.get(server.url + "/api/session").json() == {"player": None}
        # an account's login from a clean browser: refused with the end and the reason
        sanction(mod, badger_id, "ban", "cheating")
        assert badger.get("/api/session").json()["banned"] == {"until": None,
                                                               "reason": "cheating"}
        login = httpx.post(server.url + "/api/login", json={"name": "Badger",
                                                            "password": "a long password"})
        assert (login.status_code, login.json()["code"]) == (403, "banned")
        assert login.json()["params"] == {"until": None, "reason": "cheating"}
    finally:
        table.close()


def test_a_mute_refusal_says_until_when(server: ServerProcess) -> None:
    """`refusal.muted` says the end it carries: the server's sentence (for programs, in
    UTC) and the catalogues the page renders it from, in every language."""
    for lang in ("en", "fr", "it"):
        never = render("refusal.muted", {"until": None}, lang)
        dated = render("refusal.muted", {"until": 1_800_000_000.0}, lang)
        assert "2027-01-15 08:00 UTC" in dated, (lang, dated)
        assert never != dated and "{" not in never, (lang, never)
    assert render("refusal.muted", {"until": None}).endswith("for good")
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    table = people(server, 5)
    try:
        muted = sanction(mod, table.guests[2].id, "mute", "flood", minutes=30)
        answer = command(table.conns[2], do="say", text="hello?")
        assert answer["code"] == "muted"
        assert answer["params"]["until"] == pytest.approx(muted["until"])
        end = time.strftime("%H:%M", time.gmtime(muted["until"]))
        assert f"until {time.strftime('%Y-%m-%d', time.gmtime(muted['until']))} {end} UTC" \
            in answer["message"], answer["message"]
    finally:
        table.close()


def test_a_warning_reaches_the_open_connections_at_once(server: ServerProcess) -> None:
    """A warning given mid-game is a `warning` frame on every connection of its player
    (as `GET /api/me/warnings` lists it), and on nobody else's; read, it is seen."""
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    table = people(server, 5)
    second = Conn(server, table.id, table.guests[4].token).open()  # a second tab
    try:
        dee = table.guests[4]
        marks = table.marks()
        given = sanction(mod, dee.id, "warning", "mind your language")
        for conn in (table.conns[4], second):
            conn.until(lambda c: any(m["type"] == "warning" for m in c.messages))
        warning = next(m for m in second.messages if m["type"] == "warning")
        listed = dee.http.get("/api/me/warnings").json()["warnings"]
        assert warning == {"type": "warning", **listed[0]}
        assert (warning["id"], warning["reason"]) == (given["id"], "mind your language")
        table.barrier()
        for seat, conn in table.conns.items():
            if seat != 4:
                assert not [m for m in conn.since(marks[conn]) if m["type"] == "warning"]
        assert dee.http.post(f"/api/me/warnings/{given['id']}/seen").status_code == 200
        assert dee.http.get("/api/me/warnings").json()["warnings"] == []
    finally:
        second.close()
        table.close()


def test_D53_deleting_oneself_closes_the_connections_and_frees_the_seats(
        server: ServerProcess) -> None:
    """`DELETE /api/me`: the connections close (4401) and the seat of a running game goes
    to a bot at once, as a ban's does (D36, D53); a waiting room's seat is freed."""
    table = people(server, 5)
    try:
        eve = table.guests[5]
        host = Guest(server.url, "Hal")
        waiting = host.create(seats=5)["id"]
        assert eve.sit(waiting) == 1
        assert eve.http.delete("/api/me").status_code == 200
        assert table.conns[5].wait_closed() == SIGNED_OUT
        assert _seat_kind(table.guests[1], table.id, 5, "bot") == "bot"
        deadline = time.monotonic() + 15
        while host.http.get(f"/api/tables/{waiting}").json()["taken"] and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        assert host.http.get(f"/api/tables/{waiting}").json()["taken"] == 0
    finally:
        table.close()


def test_D53_an_operators_deletion_reaches_the_running_server_within_its_bound(
        server: ServerProcess) -> None:
    """`trusis admin delete` runs in a process of its own, on the database: the running
    server finds the deleted player among those it serves within DELETED_CHECK_SECONDS,
    closes their connections (4401) and hands their seat to a bot, as for a ban."""
    ivy = Guest(server.url, "Ivy")
    host = Guest(server.url, "Hal")
    game = host.create(seats=5, day_seconds=3600, night_seconds=1800)["id"]
    host.sit(game)
    assert ivy.sit(game) == 2
    host.bots(game, 3)
    host.start(game)
    conn = Conn(server, game, ivy.token).open()
    try:
        assert command(conn, do="say", text="still playing")["type"] == "ack"
        done = subprocess.run([sys.executable, "-m", "trusis", "admin", "delete", ivy.id,
                               "--yes", "--database", server.database],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        deleted_at = time.monotonic()
        assert conn.wait_closed(DELETED_CHECK_SECONDS + 3) == SIGNED_OUT
        assert time.monotonic() - deleted_at <= DELETED_CHECK_SECONDS + 2
        assert _seat_kind(host, game, 2, "bot") == "bot"
        seats = host.http.get(f"/api/tables/{game}").json()["seats"]
        assert "Ivy" not in str(seats)
        assert ivy.http.get("/api/me").status_code == 401
    finally:
        conn.close()
