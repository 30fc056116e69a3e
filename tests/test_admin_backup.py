"""`trusis admin backup` (docs/deploy.md, "Backups"): a copy taken mid-game from a running
`trusis serve` on SQLite holds every acknowledged action, and a fresh server started on
the copy resumes that game — its timers and bots included — which is then played to
the end (R30–R35)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from liveplay import action_rows, stored_record
from serverproc import (
    Guest,
    Player,
    ServerProcess,
    drop_database,
    new_database,
    postgres_available,
)
from test_server_game import _play_to_the_end


def admin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trusis", "admin", *args],
                          capture_output=True, text=True, timeout=60)


def test_a_backup_taken_mid_game_resumes_on_a_fresh_server_and_plays_to_the_end(
        tmp_path: Path) -> None:
    (tmp_path / "live").mkdir()
    live = ServerProcess(new_database("sqlite", tmp_path / "live"))
    live.start()
    copy = tmp_path / "copy.db"
    try:
        ann = Guest(live.url, "Ann")
        table = ann.create(seats=5, day_seconds=120, night_seconds=60)
        ann.sit(table["id"], 1)
        ann.bots(table["id"], 4)
        ann.start(table["id"])
        player = Player(live, table["id"], ann.token)
        player.until(lambda p: p.view is not None)
        # Day 1: Ann votes; the bots vote too (they pass once the people have); the day
        # waits for Ann's pass.
        legal = player.legal()
        assert player.command(do="vote", target=legal["vote"]["targets"][0])["type"] == "ack"
        deadline = time.monotonic() + 30
        while len(action_rows(live, table["id"])) < 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert player.view is not None and player.view["status"] == "running"
        acknowledged = len(action_rows(live, table["id"]))
        done = admin("backup", str(copy), "--database", live.database)  # the server runs
        assert done.returncode == 0, done.stderr
        assert "backed up to" in done.stdout
        player.close()
    finally:
        live.stop()
    # Nothing acknowledged before the copy is missing from it.
    restored = ServerProcess(f"sqlite:///{copy}")
    assert len(action_rows(restored, table["id"])) >= acknowledged
    restored.start()
    try:
        again = Player(restored, table["id"], ann.token, last_seq=None)
        again.until(lambda p: p.view is not None)
        assert again.view is not None and again.view["status"] == "running"
        assert again.view["phase"] == {"kind": "day", "number": 1}  # where the copy was taken
        assert again.view["choices"].get("vote") is not None  # Ann's vote, acknowledged
        _play_to_the_end(again)
        assert again.view["winner"] is not None
        end = ann.http.get(f"{restored.url}/api/tables/{table['id']}/summary").json()
        assert end["winner"] == again.view["winner"]
        record = stored_record(restored, table["id"])
        assert len(record.actions) > acknowledged  # the game went on from the copy
        again.close()
    finally:
        restored.stop()


def test_backup_refuses_what_it_cannot_copy_and_leaves_nothing(tmp_path: Path) -> None:
    existing = tmp_path / "there.db"
    existing.write_text("keep me")
    missing = admin("backup", str(tmp_path / "x.db"), "--database",
                    f"sqlite:///{tmp_path / 'none.db'}")
    assert missing.returncode == 2 and "there is no database" in missing.stderr
    assert not (tmp_path / "x.db").exists() and missing.stdout == ""
    (tmp_path / "db").mkdir()
    source = new_database("sqlite", tmp_path / "db")
    server = ServerProcess(source)
    server.start()
    server.stop()
    taken = admin("backup", str(existing), "--database", source)
    assert taken.returncode == 2 and "exists already" in taken.stderr
    assert existing.read_text() == "keep me"
    pg = admin("backup", str(tmp_path / "y.db"), "--database", "postgresql://u@127.0.0.1/x")
    assert pg.returncode == 2 and "pg_dump" in pg.stderr
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.skipif(not postgres_available() or shutil.which("pg_dump") is None,
                    reason="needs PostgreSQL (TRUSIS_TEST_POSTGRES) and pg_dump/pg_restore")
def test_postgresql_as_the_doc_says_pg_dump_mid_game_and_pg_restore_resume_the_game(
        tmp_path: Path) -> None:
    """docs/deploy.md, "Backups": pg_dump of a running server, pg_restore into an empty
    database, a server started on it plays the game to the end."""
    live = ServerProcess(new_database("postgresql", tmp_path))
    restored_url = new_database("postgresql", tmp_path)
    dump = tmp_path / "trusis.dump"
    live.start()
    try:
        ann = Guest(live.url, "Ann")
        table = ann.create(seats=5, day_seconds=120, night_seconds=60)
        ann.sit(table["id"], 1)
        ann.bots(table["id"], 4)
        ann.start(table["id"])
        player = Player(live, table["id"], ann.token)
        player.until(lambda p: p.view is not None)
        legal = player.legal()
        assert player.command(do="vote", target=legal["vote"]["targets"][0])["type"] == "ack"
        acknowledged = len(action_rows(live, table["id"]))
        subprocess.run(["pg_dump", "--format=custom", "--file", str(dump), live.database],
                       check=True, timeout=60)
        player.close()
    finally:
        live.stop()
        drop_database(live.database)
    try:
        subprocess.run(["pg_restore", "--no-owner", "--dbname", restored_url, str(dump)],
                       check=True, timeout=60)
        restored = ServerProcess(restored_url)
        assert len(action_rows(restored, table["id"])) >= acknowledged
        restored.start()
        try:
            again = Player(restored, table["id"], ann.token)
            again.until(lambda p: p.view is not None)
            assert again.view is not None and again.view["status"] == "running"
            assert again.view["choices"].get("vote") is not None
            _play_to_the_end(again)
            assert again.view["winner"] is not None
            again.close()
        finally:
            restored.stop()
    finally:
        drop_database(restored_url)


def test_the_backup_is_its_owners_alone_from_its_first_byte(tmp_path: Path) -> None:
    """Under the usual umask (0022) the copy was -rw-r--r--: anyone on the machine could
    read its password hashes, chats, private messages and reports, while the live database
    is 0600. It is created 0600, and not made so afterwards."""
    (tmp_path / "db").mkdir()
    source = new_database("sqlite", tmp_path / "db")
    server = ServerProcess(source)
    server.start()
    server.stop()
    copy = tmp_path / "copy.db"
    done = subprocess.run(
        ["sh", "-c", 'umask 0022 && exec "$0" -m trusis admin backup "$1" --database "$2"',
         sys.executable, str(copy), source], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert copy.stat().st_mode & 0o777 == 0o600, oct(copy.stat().st_mode)


def test_the_partial_copy_is_private_before_sqlite_writes_to_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No window where it is readable: the file SQLite opens to write the copy into is 0600
    already (its journal takes the file's mode), so no chmod follows."""
    from trusis.server.data import backup

    source = tmp_path / "live.db"
    with sqlite3.connect(source) as db:
        db.execute("CREATE TABLE t (x TEXT)")
        db.execute("INSERT INTO t VALUES ('a private message')")
    seen: dict[str, int] = {}
    real = sqlite3.connect

    def connect(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        path = Path(str(database))
        if path.name.endswith(".partial"):
            seen["mode"] = path.stat().st_mode & 0o777
        return real(database, *args, **kwargs)

    monkeypatch.setattr(backup.sqlite3, "connect", connect)
    monkeypatch.setattr(backup.Path, "chmod", lambda *a, **k: pytest.fail("chmod after"))
    old = os.umask(0o022)
    try:
        backup.backup_sqlite(source, tmp_path / "copy.db")
    finally:
        os.umask(old)
    assert seen == {"mode": 0o600}
    assert (tmp_path / "copy.db").stat().st_mode & 0o777 == 0o600
