"""`trusis admin` on a real server's database (docs/deploy.md, "Administration"), on
SQLite and PostgreSQL: tables and players listed (never an invite code), server roles
granted to accounts only and revoked, a player's data exported and deleted as their
own deletion does (/api/me/data, DELETE /api/me)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from serverproc import Guest, ServerProcess, postgres_available, running_server

KINDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(
    not postgres_available(), reason="no PostgreSQL at TRUSIS_TEST_POSTGRES"))]


def admin(server: ServerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trusis", "admin", *args, "--database",
                           server.database], capture_output=True, text=True, timeout=60)


def admin_json(server: ServerProcess, *args: str) -> Any:
    done = admin(server, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(params=KINDS)
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server(request.param, tmp_path) as running:
        yield running


def _account(server: ServerProcess, name: str) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=server.url, timeout=10)
    reply = client.post("/api/accounts", json={"name": name, "password": "a long password"})
    assert reply.status_code == 201, reply.text
    return client, str(client.get("/api/me").json()["player"]["id"])


def test_tables_players_and_roles(server: ServerProcess) -> None:
    rita, rita_id = _account(server, "Rita")
    gus = Guest(server.url, "Gus")
    table = rita.post("/api/tables", json={"name": "Rita's", "seats": 5,
                                           "private": True}).json()
    listed = admin_json(server, "tables")["tables"]
    assert [(t["id"], t["status"], t["host"], t["taken"], t["seats"], t["private"])
            for t in listed] == [(table["id"], "open", "Rita", 0, 5, True)]
    assert table["invite"] not in admin(server, "tables").stdout  # never the invite
    assert admin_json(server, "tables", "--status", "running")["tables"] == []
    bad = admin(server, "tables", "--status", "paused")
    assert bad.returncode == 2 and bad.stdout == "" and "--status" in bad.stderr
    people = {p["name"]: p for p in admin_json(server, "players")["players"]}
    assert people["Rita"]["account"] and not people["Gus"]["account"]
    assert people["Gus"]["id"] == gus.id and people["Rita"]["roles"] == []

    granted = admin(server, "grant", "Rita", "moderator")  # by account name
    assert granted.returncode == 0 and "now holds the role moderator" in granted.stdout
    assert "already holds" in admin(server, "grant", rita_id, "moderator").stdout
    assert admin(server, "grant", rita_id, "admin").returncode == 0
    refused = admin(server, "grant", gus.id, "admin")  # a guest: roles go to accounts
    assert refused.returncode == 2 and "not a registered account" in refused.stderr
    unknown = admin(server, "grant", "Rita", "king")
    assert unknown.returncode == 2 and "king" in unknown.stderr
    nobody = admin(server, "grant", "Nobody", "admin")
    assert nobody.returncode == 2 and "no player" in nobody.stderr
    assert "guest" not in nobody.stderr, nobody.stderr
    # A trial: `grant Gus moderator` answered "no player has the id or account name 'Gus'"
    # while Gus sat at a table, as a guest. It now says so, and how to find the id.
    by_name = admin(server, "grant", "Gus", "moderator")
    assert by_name.returncode == 2 and len(by_name.stderr.splitlines()) == 1, by_name.stderr
    assert "1 guest is called 'Gus'" in by_name.stderr, by_name.stderr
    assert "trusis admin players --name Gus" in by_name.stderr, by_name.stderr
    held = admin_json(server, "staff")["staff"]
    assert sorted((s["name"], s["role"], s["granted_by"]) for s in held) == [
        ("Rita", "admin", "cli"), ("Rita", "moderator", "cli")]
    people = {p["name"]: p for p in admin_json(server, "players")["players"]}
    assert people["Rita"]["roles"] == ["admin", "moderator"] and people["Gus"]["roles"] == []
    assert "no longer holds" in admin(server, "revoke", "Rita", "admin").stdout
    assert "did not hold" in admin(server, "revoke", "Rita", "admin").stdout
    assert [s["role"] for s in admin_json(server, "staff")["staff"]] == ["moderator"]
    rita.close()
    gus.close()


def test_export_and_delete_a_player(server: ServerProcess) -> None:
    rita, rita_id = _account(server, "Rita")
    rita.post("/api/tables", json={"name": "Rita's", "seats": 5})
    admin(server, "grant", "Rita", "moderator")
    exported = admin(server, "export", "Rita")
    assert exported.returncode == 0, exported.stderr
    data = json.loads(exported.stdout)
    own = rita.get("/api/me/data").json()  # the same document as the player's own
    assert data["player"] == own["player"] and data["player"]["id"] == rita_id
    assert "password_hash" not in data["player"]
    assert [r["role"] for r in data["staff_roles"]] == ["moderator"]

    asked = admin(server, "delete", "Rita")  # without --yes: nothing happens
    assert asked.returncode == 0 and "--yes" in asked.stdout
    assert admin_json(server, "players")["players"][0]["deleted"] is False
    done = admin(server, "delete", rita_id, "--yes")
    assert done.returncode == 0 and "deleted 'Rita'" in done.stdout
    gone = admin_json(server, "players")["players"][0]
    assert gone["deleted"] and gone["name"] == "Deleted player" and not gone["account"]
    assert admin_json(server, "staff")["staff"] == []
    assert admin(server, "export", "Rita").returncode == 2  # the account name is freed
    # Her sessions end: the running server may know her cookie from its cache, so the
    # check is made once it has restarted (docs/deploy.md, "Administration").
    server.stop()
    server.start()
    assert rita.get("/api/me").status_code == 401
    rita.close()


def test_a_deletion_is_one_transaction_with_its_audit_line(server: ServerProcess) -> None:
    """`trusis admin delete` forgot the player in one transaction and wrote its audit line
    in a second (D37: an act and its line are one): a reason refused after the first, or a
    crash between them, left a deleted player with no line saying who or why. Now a reason
    is refused before anything happens, and a failed line undoes the deletion."""
    rita, rita_id = _account(server, "Rita")
    rita.close()
    long = admin(server, "delete", rita_id, "--yes", "--reason", "x" * 1001)
    assert long.returncode == 2 and "text_too_long" in long.stderr, long.stderr
    assert admin_json(server, "players")["players"][0]["deleted"] is False
    if server.database.startswith("sqlite"):  # the audit line fails: a crash between the two
        path = server.database.removeprefix("sqlite:///")
        with sqlite3.connect(path) as db:
            db.execute("CREATE TRIGGER no_lines BEFORE INSERT ON moderation_log "
                       "BEGIN SELECT RAISE(ABORT, 'the disk is full'); END")
        failed = admin(server, "delete", rita_id, "--yes", "--reason", "asked by mail")
        assert failed.returncode == 2 and "nothing was deleted" in failed.stderr, failed.stderr
        assert len(failed.stderr.splitlines()) == 1
        assert admin_json(server, "players")["players"][0]["deleted"] is False
        with sqlite3.connect(path) as db:
            db.execute("DROP TRIGGER no_lines")
    done = admin(server, "delete", rita_id, "--yes", "--reason", "asked by mail")
    assert done.returncode == 0, done.stderr
    assert admin_json(server, "players")["players"][0]["deleted"] is True


def test_an_admin_command_without_a_database_says_so_and_creates_nothing(
        tmp_path: Path) -> None:
    """An operator's trial: `trusis admin grant Opal admin` without --database, on a machine
    where the server ran with another one, quietly created an empty SQLite file in the data
    folder and answered "no player has the id or account name 'Opal'". Every admin command
    now says there is no database there, and creates neither the file nor the folder."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    default = tmp_path / "data" / "trusis" / "trusis.db"
    missing = tmp_path / "nowhere.db"
    for args in (["grant", "Opal", "admin"], ["revoke", "Opal", "moderator"], ["players"],
                 ["staff"], ["delete", "Opal", "--yes"], ["backup", str(tmp_path / "b.db")],
                 ["grant", "Opal", "admin", "--database", f"sqlite:///{missing}"]):
        done = subprocess.run([sys.executable, "-m", "trusis", "admin", *args],
                              capture_output=True, text=True, timeout=60, env=env)
        where = missing if "--database" in args else default
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
        assert f"there is no database at {where}: start the server once" in done.stderr
        assert "--database" in done.stderr, done.stderr
    assert not (tmp_path / "data").exists() and not missing.exists()
    assert not (tmp_path / "b.db").exists()
