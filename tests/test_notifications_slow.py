"""Issue 37: a whole slow game (D62) told by mail, through every notification kind, against a
real `trusis serve` and an SMTP server the test runs (aiosmtpd).

Short settings drive it: phases of four hours, a reminder 4 s into each (the server's
TRUSIS_NOTIFY_REMINDER_BEFORE_SECONDS), a grace period asked of 5 s. Alice is away from the
start, as a slow game's player is: at a real-time table the 5 s would have handed her seat to
a bot, and a seat handed to a bot is told nothing (D56); at a slow table her seat stays hers
(D63), so she gets the start, Day 1's reminder, a whisper, each phase and the end — each once
— by mail, and Bob the same (but the whisper) by his browser (Web Push).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from liveplay import stored_record
from notifyhelp import MailSink, PushSink, notifying_server, vapid_checked
from serverproc import Guest, Player, ServerProcess
from test_notifications_game import PASSWORD, _pass_and_go, _phase

PHASE = 4 * 3600
BEFORE = PHASE - 4  # the reminder comes 4 s into each four-hour phase


@pytest.fixture
def parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
          ) -> Iterator[tuple[ServerProcess, MailSink, PushSink]]:
    with notifying_server(tmp_path, monkeypatch, reminder_before=BEFORE) as parts:
        yield parts


def _kind(subject: str) -> str:
    for kind, words in (("started", "the game has started"), ("reminder", "you have not passed"),
                        ("whisper", "a private message"), ("ended", "the game is over"),
                        ("confirm", "Confirm"), ("phase", "has begun")):
        if words in subject:
            return kind
    raise AssertionError(subject)


def test_D62_D63_a_slow_game_is_told_through_every_kind_and_nobody_is_replaced(
        parts: tuple[ServerProcess, MailSink, PushSink]) -> None:
    server, mail, push = parts
    alice, bob = Guest(server.url, "Alice"), Guest(server.url, "Bob")
    assert alice.http.post("/api/accounts", json={"name": "Alice", "password": PASSWORD}
                           ).status_code == 201
    del alice.http.headers["Authorization"]  # an account's sign-in is its cookie now
    everything = dict.fromkeys(("started", "phase", "reminder", "whisper", "ended"), True)
    assert alice.http.put("/api/me/notifications", json={"prefs": {
        "lang": "en", "tz": "America/New_York", "email": everything}}).status_code == 200
    assert alice.http.post("/api/me/email", json={"address": "alice@example.org"}
                           ).status_code == 202
    confirm = mail.wait(lambda m: len(m) == 1)[0]
    link = re.search(r"http://\S+/api/notifications/confirm\?token=\S+",
                     confirm.get_content()).group(0)  # type: ignore[union-attr]
    with httpx.Client() as browser:
        assert browser.post(link).status_code == 200
    assert bob.http.put("/api/me/notifications", json={"prefs": {
        "lang": "it", "tz": "Europe/Rome", "push": everything}}).status_code == 200
    # No page asks this process for its VAPID key first: as after a restart, or when another
    # process of a cluster served it to Bob's browser, the pushes are still sent.
    sub = push.subscription("bob")
    assert bob.http.post("/api/me/push", json=sub.body).status_code == 201

    table = alice.create(seats=5, slow=True, day_seconds=PHASE, night_seconds=PHASE,
                         grace_seconds=5, name="Across the ocean")
    table_id = table["id"]
    assert alice.sit(table_id, 1) == 1 and bob.sit(table_id, 2) == 2
    programs = {seat: Player(server, table_id, alice.program(table_id, seat, f"Robo{seat}"))
                for seat in (3, 4, 5)}
    started = time.time()
    alice.start(table_id)
    for p in programs.values():
        p.until(lambda q: q.view is not None and q.view["status"] == "running")
    assert programs[3].command(do="say", text="Alice, are you there?", to=1)["type"] == "ack"

    # She sleeps through the grace a real-time table would give her: Day 1's reminder comes.
    mail.wait(lambda m: any("you have not passed" in x["Subject"] for x in m))
    time.sleep(max(0.0, started + 6.5 - time.time()))  # past the 5 s the host asked
    seat = alice.http.get(f"/api/tables/{table_id}").json()["seats"][0]
    assert seat["kind"] == "person" and not seat.get("departed")  # still hers (D63)

    _pass_and_go(server, table_id, alice)
    _pass_and_go(server, table_id, bob)
    while True:  # the programs pass last; phases without a death: a draw after six
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
        _pass_and_go(server, table_id, alice)  # within 4 s: no reminder this phase
        _pass_and_go(server, table_id, bob)
    for p in programs.values():
        p.close()

    mail.wait(lambda m: any("the game is over" in x["Subject"] for x in m))
    push.wait(sub, lambda got: any("finita" in p["title"] for p in got))
    time.sleep(1.0)  # nothing more (a second copy, a late reminder) may come
    mails = mail.mails()
    kinds = [_kind(m["Subject"]) for m in mails]
    assert kinds.count("started") == 1 and kinds.count("reminder") == 1, kinds
    assert kinds.count("whisper") == 1 and kinds.count("ended") == 1, kinds
    assert kinds.count("phase") >= 5, kinds
    assert len({m["Message-ID"] for m in mails}) == len(mails)
    titles = [p["title"] for p in push.pushes(sub)]  # Bob, by his browser, in Italian
    key = bob.http.get("/api/notifications/push-key").json()["key"]
    for _path, headers, _body in push.kept:
        vapid_checked(headers, key, push.origin)
    assert sum("cominciata" in t for t in titles) == 1, titles
    assert sum("restano" in t for t in titles) == 1, titles  # Day 1's: he passed after it
    assert sum("è cominciato" in t for t in titles) == kinds.count("phase"), titles
    assert sum("finita" in t for t in titles) == 1, titles
    reminder = next(m for m in mails if _kind(m["Subject"]) == "reminder")
    assert "Across the ocean" in reminder["Subject"] and "Day 1" in reminder["Subject"]
    assert re.search(r"\b3 ?h", reminder["Subject"] + reminder.get_content()), \
        reminder["Subject"]  # hours left of a four-hour day, not minutes
    assert f"{server.url}/t/{table_id}" in reminder.get_content()
    record = stored_record(server, table_id)
    assert not [a for a in record.actions if a.do in ("replace", "leave")]  # nobody replaced
    for person in (alice, bob):
        person.close()
