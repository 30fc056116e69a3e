"""Issue 37: nothing lost, nothing twice. The mail server is down while a game makes
notifications; the game goes on (its actions are answered at once), the server is killed
(SIGKILL) with the mails queued, the mail server comes back, the game server restarts,
and every notification arrives exactly once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from liveplay import database_rows
from notifyhelp import MailSink
from serverproc import Guest, Player, ServerProcess, drop_database, new_database

PASSWORD = "a long and quite unguessable passphrase 71"


def _away_and_told(server: ServerProcess, table_id: str, alice: Guest,
                   programs: dict[int, Player]) -> None:
    """Alice opens the game and passes, leaves; the programs pass: a new phase she is told."""
    cookie = alice.http.cookies.get("trusis_session")
    her = Player(server, table_id, "", headers={"Cookie": f"trusis_session={cookie}"})
    her.until(lambda p: p.view is not None and "pass" in p.legal())
    assert her.command(do="pass")["type"] == "ack"
    her.close()
    time.sleep(0.3)
    for p in programs.values():
        p.until(lambda q: "pass" in q.legal())
        began = time.monotonic()
        assert p.command(do="pass")["type"] == "ack"
        assert time.monotonic() - began < 5  # a mail server that is down delays no game


def test_a_crash_with_mails_queued_loses_none_and_sends_none_twice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mail = MailSink()
    mail.start()
    for key, value in {**mail.env(), "TRUSIS_NOTIFY_POLL_SECONDS": "0.2",
                       "TRUSIS_NOTIFY_RETRY_SECONDS": "0.3"}.items():
        monkeypatch.setenv(key, value)
    database = new_database("sqlite", tmp_path)
    server = ServerProcess(database, log=tmp_path / "server.log")
    server.extra = ["--public-url", server.url]
    server.start()
    try:
        alice = Guest(server.url, "Alice")
        assert alice.http.post("/api/accounts", json={"name": "Alice", "password": PASSWORD}
                               ).status_code == 201
        del alice.http.headers["Authorization"]
        alice.http.put("/api/me/notifications", json={"prefs": {"email": {"whisper": True}}})
        alice.http.post("/api/me/email", json={"address": "alice@example.org"})
        confirm = mail.wait(lambda m: len(m) == 1)[0]
        link = next(w for w in confirm.get_content().split() if "/confirm?token=" in w)
        alice.http.post(link)
        assert alice.http.get("/api/me/notifications").json()["email"]["confirmed"]
        mail.stop()  # the mail server goes down

        table_id = alice.create(seats=5, bots_take_over=False, grace_seconds=600)["id"]
        alice.sit(table_id, 1)
        programs = {s: Player(server, table_id, alice.program(table_id, s, f"Robo{s}"))
                    for s in (2, 3, 4, 5)}
        alice.start(table_id)
        for p in programs.values():
            p.until(lambda q: q.view is not None and q.view["status"] == "running")
        assert programs[2].command(do="say", text="psst", to=1)["type"] == "ack"
        for _ in range(3):
            _away_and_told(server, table_id, alice, programs)
        for p in programs.values():
            p.close()
        deadline = time.monotonic() + 20
        while True:  # every notice has its delivery, tried and failed at least once
            rows = database_rows(server, "SELECT id, kind, state, attempts FROM deliveries "
                                         "WHERE kind != 'confirm'")
            if len(rows) == 5 and all(r["attempts"] >= 1 for r in rows):
                break
            assert time.monotonic() < deadline, [(r["kind"], r["attempts"]) for r in rows]
            time.sleep(0.2)
        assert all(r["state"] in ("queued", "claimed") for r in rows)
        server.kill()  # SIGKILL, with the mails queued
        mail.start()  # the mail server is back, on the same port
        server.start()
        mails = mail.wait(lambda m: len(m) >= 6, timeout=30)
        time.sleep(1.5)  # and no second copy comes
        mails = mail.mails()
        ids = [m["Message-ID"] for m in mails]
        assert len(ids) == len(set(ids)) == 6  # the confirmation, then each notice once
        sent = database_rows(server, "SELECT id, state FROM deliveries")
        assert {r["state"] for r in sent} == {"sent"}
        assert sorted(f"<{r['id']}@trusis.test>" for r in sent) == sorted(ids)
        subjects = [m["Subject"] for m in mails]
        assert sum("private message" in s for s in subjects) == 1
        assert sum("has begun" in s for s in subjects) == 3
        assert sum("has started" in s for s in subjects) == 1
        alice.close()
    finally:
        server.stop()
        mail.stop()
        drop_database(database)
