"""Issue 37: a whole game through every notification kind, against real parts.

A real `trusis serve` sends its mails to an SMTP server the test runs (aiosmtpd) and its
pushes to a push service the test runs; each mail is parsed (headers, language, links) and
each push decrypted with the keys of the subscription the test made (RFC 8291), its VAPID
signature checked (RFC 8292). Short settings (a reminder 4 s into each phase) drive the
game: Alice (an account, French, e-mail) and Bob (a guest, Italian, push) are away while
three programs play on; the programs whisper a marker between themselves that no message
may carry, and one to Alice that only her mail may.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from liveplay import stored_record
from notifyhelp import notifying_server, vapid_checked
from serverproc import Guest, Player, ServerProcess
from trusis.rules.roles import ROLES

PASSWORD = "a long and quite unguessable passphrase 71"
BEFORE = 1800 - 4  # the reminder comes 4 s into each 30-minute phase


@pytest.fixture
def parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, ...]]:
    with notifying_server(tmp_path, monkeypatch, reminder_before=BEFORE) as parts:
        yield parts


def _pass_and_go(server: ServerProcess, table_id: str, person: Guest) -> None:
    """The person opens the game, passes, and closes it again (as a slow player does)."""
    cookie = person.http.cookies.get("trusis_session")
    player = Player(server, table_id, person.token,
                    headers={"Cookie": f"trusis_session={cookie}"} if cookie else None)
    try:
        player.until(lambda p: p.view is not None and p.view["status"] == "running"
                     and "pass" in p.legal())
        assert player.command(do="pass")["type"] == "ack"
    finally:
        player.close()
    time.sleep(0.3)  # the server sees the page closed


def _phase(player: Player) -> tuple[str, int]:
    assert player.view is not None
    return player.view["phase"]["kind"], player.view["phase"]["number"]


def _kind(subject: str) -> str:
    for kind, words in (("started", "a commencé"), ("reminder", "plus que"),
                        ("whisper", "message privé"), ("ended", "terminée"),
                        ("confirm", "Confirmez"), ("phase", "a commencé")):
        if words in subject:
            return "phase" if kind == "started" and re.search(r"(Jour|Nuit) \d", subject) \
                else kind
    raise AssertionError(subject)


def test_a_whole_game_is_told_by_mail_and_push_and_nothing_hidden_leaks(parts: Any) -> None:
    server, mail, push = parts
    alice, bob = Guest(server.url, "Alice"), Guest(server.url, "Bob")
    reply = alice.http.post("/api/accounts", json={"name": "Alice", "password": PASSWORD})
    assert reply.status_code == 201, reply.text
    del alice.http.headers["Authorization"]  # an account's sign-in is its cookie now
    everything = dict.fromkeys(("started", "phase", "reminder", "whisper", "ended"), True)
    assert alice.http.put("/api/me/notifications", json={"prefs": {
        "lang": "fr", "tz": "Europe/Paris", "email": everything}}).status_code == 200
    assert bob.http.put("/api/me/notifications", json={"prefs": {
        "lang": "it", "tz": "Europe/Rome", "push": everything}}).status_code == 200

    # Alice's address: only its confirmation is sent until she opens it (GET asks, POST does).
    assert alice.http.post("/api/me/email", json={"address": "alice@example.org"}
                           ).status_code == 202
    confirm = mail.wait(lambda m: len(m) == 1)[0]
    assert confirm["To"] == "alice@example.org" and "Confirmez" in confirm["Subject"]
    assert confirm["List-Unsubscribe"] is None  # not a notification
    link = re.search(r"http://\S+/api/notifications/confirm\?token=\S+",
                     confirm.get_content()).group(0)
    with httpx.Client() as browser:
        assert "<form" in browser.get(link).text
        assert alice.http.get("/api/me/notifications").json()["email"]["confirmed"] is False
        assert "alice@example.org" in browser.post(link).text
    assert alice.http.get("/api/me/notifications").json()["email"]["confirmed"] is True

    # Bob's browser subscribes with keys the test made.
    key = bob.http.get("/api/notifications/push-key").json()["key"]
    sub = push.subscription("bob")
    assert bob.http.post("/api/me/push", json=sub.body).status_code == 201

    table = alice.create(seats=5, day_seconds=1800, night_seconds=1800, bots_take_over=False,
                         grace_seconds=600, name="Slow Tuesday")
    table_id = table["id"]
    assert alice.sit(table_id, 1) == 1 and bob.sit(table_id, 2, table.get("invite")) == 2
    programs = {seat: Player(server, table_id, alice.program(table_id, seat, f"Robo{seat}"))
                for seat in (3, 4, 5)}
    alice.start(table_id)
    for p in programs.values():
        p.until(lambda q: q.view is not None and q.view["status"] == "running")

    secret = f"between-robots-{secrets.token_hex(4)}"
    for_alice = f"for-alice-{secrets.token_hex(4)}"
    assert programs[3].command(do="say", text=secret, to=4)["type"] == "ack"
    assert programs[3].command(do="say", text=for_alice, to=1)["type"] == "ack"
    _pass_and_go(server, table_id, alice)  # within 4 s: her reminder is cancelled
    push.wait(sub, lambda got: any("restano" in p["title"] for p in got))  # Bob's comes
    _pass_and_go(server, table_id, bob)
    while True:  # the programs pass last; phases without a death: a draw after six (R-D)
        for p in programs.values():
            p.until(lambda q: "pass" in q.legal() or q.view["status"] == "finished")
        if programs[3].view["status"] == "finished":
            break
        phase = _phase(programs[3])
        for p in programs.values():
            assert p.command(do="pass")["type"] == "ack"
        programs[3].until(lambda q, phase=phase: _phase(q) != phase
                          or q.view["status"] == "finished")
        if programs[3].view["status"] == "finished":
            break
        _pass_and_go(server, table_id, alice)
        _pass_and_go(server, table_id, bob)
    for p in programs.values():
        p.close()

    mails = mail.wait(lambda m: any("terminée" in x["Subject"] for x in m))
    pushes = push.wait(sub, lambda got: any("finita" in p["title"] for p in got))
    time.sleep(1.0)  # nothing more (a second copy, a late reminder) may come
    mails, pushes = mail.mails(), push.pushes(sub)

    # Every kind, each once per cause: Alice passed within 4 s of each phase, so she has
    # no reminder; Bob's only reminder is Day 1's.
    kinds = [_kind(m["Subject"]) for m in mails]
    assert kinds.count("confirm") == 1 and kinds.count("started") == 1
    assert kinds.count("whisper") == 1 and kinds.count("ended") == 1
    assert "reminder" not in kinds and kinds.count("phase") == 5, kinds
    titles = [p["title"] for p in pushes]
    assert sum("cominciata" in t for t in titles) == 1, titles
    assert sum("restano" in t for t in titles) == 1, titles
    assert sum("è cominciato" in t for t in titles) == 5, titles
    assert sum("finita" in t for t in titles) == 1, titles
    assert len({m["Message-ID"] for m in mails}) == len(mails)

    # Headers and words of a notification mail (RFC 8058, RFC 3834), in French.
    ended = next(m for m in mails if "terminée" in m["Subject"])
    assert ended["To"] == "alice@example.org" and ended["Content-Language"] == "fr"
    assert ended["From"] == "Trusis <games@trusis.test>"
    assert re.fullmatch(r"<[0-9a-f]{20}@trusis\.test>", ended["Message-ID"])
    assert ended["Auto-Submitted"] == "auto-generated"
    assert ended["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text = ended.get_content()
    assert "Slow Tuesday" in ended["Subject"] and f"{server.url}/t/{table_id}" in text
    assert "Personne n'a gagné" in text or "match nul" in text.lower() or "égalité" in text
    for p in pushes:
        assert p["url"] == f"{server.url}/t/{table_id}"
    for _path, headers, _body in push.kept:
        vapid_checked(headers, key, push.origin)
        assert headers["Content-Encoding"] == "aes128gcm"

    # Nothing hidden: the whisper between programs is in no message, Alice's only in
    # hers, and no role of another seat is named before the end.
    record = stored_record(server, table_id)
    roles = record.roles()
    said = [(1, m["Subject"] + m.get_content(), _kind(m["Subject"]) == "ended", "fr")
            for m in mails] + [(2, p["title"] + p["body"], "finita" in p["title"], "it")
                               for p in pushes]
    for seat, words, at_end, lang in said:
        assert secret not in words
        if seat == 2:
            assert for_alice not in words
        if not at_end:
            for other, role in enumerate(roles, 1):
                name = ROLES[role].name(lang)
                if other != seat and role != roles[seat - 1] and name.lower() != "trusis":
                    assert name not in words, (seat, name)
    assert sum(for_alice in w for s, w, _e, _l in said if s == 1) == 1

    # One click, without signing in: no more mail to that address (RFC 8058).
    url = ended["List-Unsubscribe"].strip("<>")
    with httpx.Client() as mailer:
        assert "<form" in mailer.get(url).text  # GET only asks
        assert alice.http.get("/api/me/notifications").json()["email"]["wanted"] is True
        done = mailer.post(url, content=b"List-Unsubscribe=One-Click",
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        assert done.status_code == 200 and "alice@example.org" in done.text
    assert alice.http.get("/api/me/notifications").json()["email"]["wanted"] is False
    for person in (alice, bob):
        person.close()
