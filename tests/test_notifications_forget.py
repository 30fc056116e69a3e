"""Issue 37: `GET /api/me/data` holds what a player's notifications kept, and deleting an
account forgets what its notifications kept — its e-mail address,
its browsers' push subscriptions, its preferences and its mails not yet sent — as it ends
its sessions (`DELETE /api/me`, `trusis admin delete`: data/personal.py). Against a real
`trusis serve` whose mail goes to an SMTP server the test runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from liveplay import database_rows
from notifyhelp import MailSink, PushSink, notifying_server
from serverproc import Guest, ServerProcess
from test_notifications_game import PASSWORD


@pytest.fixture
def parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
          ) -> Iterator[tuple[ServerProcess, MailSink, PushSink]]:
    with notifying_server(tmp_path, monkeypatch, public_url=False) as parts:
        yield parts


def test_a_deleted_account_leaves_no_address_subscription_or_preference(
        parts: tuple[ServerProcess, MailSink, PushSink]) -> None:
    server, mail, push = parts
    zoe = Guest(server.url, "Zoe")
    assert zoe.http.post("/api/accounts", json={"name": "Zoe", "password": PASSWORD}
                         ).status_code == 201
    del zoe.http.headers["Authorization"]
    assert zoe.http.put("/api/me/notifications", json={"prefs": {
        "lang": "en", "tz": "Europe/London"}}).status_code == 200
    assert zoe.http.post("/api/me/email", json={"address": "zoe@example.org"}).status_code == 202
    mail.wait(lambda m: len(m) == 1)
    assert zoe.http.post("/api/me/push", json=push.subscription("zoe").body).status_code == 201
    kept = ("mail_addresses", "push_subscriptions", "notify_prefs", "deliveries")
    for table in kept:
        assert database_rows(server, f"SELECT * FROM {table} WHERE player_id = ?", zoe.id)

    data = zoe.http.get("/api/me/data").json()  # everything kept about her says it
    assert [row["address"] for row in data["email"]] == ["zoe@example.org"]
    assert len(data["push_subscriptions"]) == 1 and data["notification_settings"]
    assert data["notifications_sent"][0]["kind"] == "confirm"
    assert zoe.http.delete("/api/me").json() == {"deleted": True}
    for table in kept:
        assert database_rows(server, f"SELECT * FROM {table} WHERE player_id = ?",
                             zoe.id) == [], table
    zoe.close()
