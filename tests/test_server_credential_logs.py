"""No credential reaches the server's output (issue 17).

A real `trusis serve` at the default log level, with the access log on as well, hands out
every kind of credential — guest cookies, bearer tokens, a program's seat token, a claim
code, passwords (and a wrong one) — and sees them used the ways clients use them, an old
agent's `?token=` and a claim code in a page's query included. Then the whole output of the
process (stdout and stderr) is read for every one of them.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from websockets.sync.client import connect
from websockets.typing import Subprotocol

from serverplay import Conn, close_code
from serverproc import hello, running_server

PASSWORDS = ["a first passphrase", "a second passphrase", "not the password at all"]


def test_no_credential_handed_out_is_ever_written_in_the_server_output(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    secrets: dict[str, str] = {}
    with running_server("sqlite", tmp_path, log=log,
                        extra=["--log-level", "info", "--access-log"]) as server:
        ann = httpx.Client(base_url=server.url, timeout=10)
        guest = ann.post("/api/guest", json={"name": "Ann"}).json()
        secrets["guest cookie"] = ann.cookies["trusis_session"]
        secrets["guest bearer"] = guest["token"]
        assert ann.post("/api/accounts", json={"name": "Ann", "password": PASSWORDS[0]}
                        ).status_code == 201
        secrets["account cookie"] = ann.cookies["trusis_session"]
        other = httpx.Client(base_url=server.url, timeout=10)
        assert other.post("/api/login", json={"name": "Ann", "password": PASSWORDS[2]}
                          ).status_code == 401
        assert other.post("/api/login", json={"name": "Ann", "password": PASSWORDS[0]}
                          ).status_code == 200
        secrets["login cookie"] = other.cookies["trusis_session"]
        assert ann.post("/api/password", json={"current": PASSWORDS[0],
                                               "password": PASSWORDS[1]}).status_code == 200
        for n, word in enumerate(PASSWORDS):
            secrets[f"password {n}"] = word
        table = ann.post("/api/tables", json={"seats": 5, "day_seconds": 3600}).json()
        tid = table["id"]
        ann.post(f"/api/tables/{tid}/seats", json={"seat": 1})
        program = ann.post(f"/api/tables/{tid}/seats/2/program", json={"name": "Robo"}).json()
        secrets["seat token"] = program["token"]
        for _ in range(3):
            ann.post(f"/api/tables/{tid}/bots", json={})
        assert ann.post(f"/api/tables/{tid}/start").status_code == 200
        bob = httpx.Client(base_url=server.url, timeout=10)
        secrets["second bearer"] = bob.post("/api/guest", json={"name": "Bob"}).json()["token"]
        # The WebSocket, every way a client carries its credential: a header, a cookie,
        # the subprotocol, and an old agent's `?token=` (refused now, and never logged).
        robo = Conn(server, tid, secrets["seat token"]).open()
        watcher = Conn(server, tid, "", headers={
            "Cookie": f"trusis_session={secrets['account cookie']}"}).open()
        with connect(f"{server.ws_url}/ws/tables/{tid}", open_timeout=10, subprotocols=[
                Subprotocol("trusis"), Subprotocol(f"trusis.bearer.{secrets['second bearer']}")
        ]) as ws:
            ws.send(hello())
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        assert close_code(server, f"/ws/tables/{tid}?token={secrets['seat token']}",
                          [hello()]) == 4401
        # A departed seat handed to a person: its claim code, opened as a link and used.
        assert robo.command(do="leave")["type"] == "ack"
        handed = ann.post(f"/api/tables/{tid}/seats/2/replace", json={"by": "person"}).json()
        secrets["claim code"] = handed["claim"]
        assert bob.get(handed["link"]).status_code == 200  # the page (the code: a fragment)
        bob.get(f"/t/{tid}?claim={handed['claim']}")  # a link of the old form, pasted
        assert bob.post(f"/api/tables/{tid}/claim", json={"code": handed["claim"]},
                        headers={"Authorization": f"Bearer {secrets['second bearer']}"}
                        ).json()["seat"] == 2
        robo.close()
        watcher.close()
        assert ann.post("/api/logout").status_code == 200
    output = log.read_text("utf-8", "replace")
    assert '"WebSocket /ws/tables/' in output and "[accepted]" in output  # lines were written
    assert "POST /api/login" in output  # the access log was on
    assert "token=[redacted]" in output and "claim=[redacted]" in output
    leaked = [what for what, value in secrets.items() if value in output]
    assert leaked == [], leaked
