"""The server's log lines through a real `trusis serve` (docs/deploy.md, "Logs").

`--log-format json`: every line of the output is one JSON object with the request,
table and seat ids, and after a whole game with private chat (R50) at a private
table, no line holds a token, an invite code, a whisper's text or a role id. The
default text lines blank invite codes too (a private table's WebSocket address is
logged by uvicorn at info level).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed

from liveplay import action_rows, sqlite_path
from serverproc import Guest, Player, ServerProcess, new_database
from test_server_game import _play_to_the_end
from trusis.rules.roles import ROLES

WHISPER = "meet me by the old lighthouse 7f3a"


def _private_game(server: ServerProcess) -> tuple[Guest, dict[str, Any], list[str]]:
    """Ann hosts a private table of 5 (4 bots), whispers to seat 2 (R50), chats publicly,
    and plays to the end; her connection uses the invite link. Secrets: what no log holds."""
    ann = Guest(server.url, "Ann")
    table = ann.create(seats=5, private=True, day_seconds=60, night_seconds=30)
    ann.sit(table["id"], 1, invite=table["invite"])
    ann.bots(table["id"], 4)
    ann.start(table["id"])
    player = Player(server, table["id"], ann.token, invite=table["invite"])
    player.until(lambda p: p.view is not None)
    assert player.command(do="say", text=WHISPER, to=2)["type"] == "ack"
    assert player.command(do="say", text="good luck everyone")["type"] == "ack"
    secrets = [ann.token, table["invite"], WHISPER]
    _play_to_the_end(player)
    player.close()
    ann.close()
    return ann, table, secrets


def test_json_logs_parse_name_their_ids_and_hold_no_secret(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = ServerProcess(new_database("sqlite", tmp_path), log=log,
                           extra=["--log-format", "json", "--log-level", "info",
                                  "--access-log"])
    server.start()
    try:
        _ann, table, secrets = _private_game(server)
    finally:
        server.stop()
    lines = log.read_text("utf-8").splitlines()
    assert len(lines) > 10
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    for record in records:
        assert {"time", "level", "logger", "message", "request_id", "table", "seat"} <= \
            set(record), record
    at_table = [r for r in records if r["table"] == table["id"]]
    assert any(r["logger"] == "uvicorn.access" for r in at_table)  # the lobby's requests
    sockets = [r for r in at_table if "WebSocket" in r["message"]]
    assert sockets and all(r["request_id"] for r in sockets)
    closed = [r for r in at_table if r["message"] == "connection closed (seat)"]
    assert closed and all(r["seat"] == 1 for r in closed)  # Ann's connection, seat 1
    # A connection's lines share its request id: opened, then closed.
    assert {r["request_id"] for r in closed} <= {r["request_id"] for r in sockets}
    assert len({r["request_id"] for r in records if r["request_id"]}) > 5  # one per request
    assert any("Trusis is ready" in r["message"] for r in records)  # a JSON line too
    text = log.read_text("utf-8")
    for secret in secrets:
        assert secret not in text
    for role in ROLES:  # no role id, before the end or after
        assert role not in text, role


def test_text_logs_blank_invite_codes(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = ServerProcess(new_database("sqlite", tmp_path), log=log,
                           extra=["--log-level", "info"])
    server.start()
    try:
        _ann, table, secrets = _private_game(server)
    finally:
        server.stop()
    text = log.read_text("utf-8")
    assert f"/ws/tables/{table['id']}?invite=[redacted]" in text  # the line is there, blanked
    assert "INFO:     Application startup complete." in text  # uvicorn's usual lines
    for secret in secrets:
        assert secret not in text


def test_an_action_that_cannot_be_stored_is_logged_without_its_text(tmp_path: Path) -> None:
    """A store failure is logged with its exception; the database driver's message must not
    carry the statement's parameters, which hold the action (here a whisper, R50)."""
    log = tmp_path / "server.log"
    server = ServerProcess(new_database("sqlite", tmp_path), log=log,
                           extra=["--log-format", "json"])
    server.start()
    try:
        ann = Guest(server.url, "Ann")
        table = ann.create(seats=5, day_seconds=600, night_seconds=600)
        ann.sit(table["id"], 1)
        ann.bots(table["id"], 4, kind="random")
        ann.start(table["id"])
        player = Player(server, table["id"], ann.token)
        player.until(lambda p: p.view is not None)
        # The bots' first actions stored: the count has settled (a fixed 0.5 s could end
        # before they were, on a loaded machine; a bot's action then met the planted row
        # instead of the whisper).
        taken, settled, deadline = -1, time.monotonic(), time.monotonic() + 30
        while time.monotonic() - settled < 1.5:
            assert time.monotonic() < deadline, "the bots never settled"
            count = len(action_rows(server, table["id"]))
            if count != taken:
                taken, settled = count, time.monotonic()
            time.sleep(0.1)
        with contextlib.closing(sqlite3.connect(sqlite_path(server), timeout=10)) as conn:
            conn.execute("INSERT INTO actions (table_id, idx, data) VALUES (?, ?, '{}')",
                         (table["id"], taken))  # the index the next action will need
            conn.commit()
        player.send("w1", do="say", text=WHISPER, to=2)
        with contextlib.suppress(ConnectionClosed):  # the failed command may close it
            player.until(lambda p: "w1" in p.answers, 15)
        player.close()
    finally:
        server.stop()
    records = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    failed = [r for r in records if "could not be stored" in r["message"]]
    assert failed and failed[0]["table"] == table["id"]
    assert "IntegrityError" in json.dumps(failed[0])  # the cause is still named
    assert WHISPER not in log.read_text("utf-8")
