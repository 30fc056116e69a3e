"""The server's own files are its owner's alone (issue 17, "Requests from elsewhere"): the
SQLite database (with its -wal and -shm), the data folder and the secret key that signs
every session are created 0600 (0700), the key written whole before it appears.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from serverproc import ServerProcess


@pytest.fixture
def usual_umask() -> Iterator[None]:
    """The common umask (022): files would be readable by everyone unless made private."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_database_and_the_secret_key_are_private(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, usual_umask: None) -> None:
    monkeypatch.delenv("TRUSIS_SECRET", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    database = tmp_path / "games" / "trusis.db"
    database.parent.mkdir()
    server = ServerProcess(f"sqlite:///{database}")
    server.start()
    try:
        guest = httpx.post(server.url + "/api/guest", json={"name": "Ann"}, timeout=10)
        assert guest.status_code == 200  # something written: the WAL exists
        folder = tmp_path / "share" / "trusis"
        key = folder / "secret.key"
        assert mode(key) == 0o600 and len(key.read_text("utf-8").strip()) >= 48
        assert mode(folder) == 0o700
        # The VAPID key (issue 37) is made at start-up too, as private as the secret key.
        assert sorted(p.name for p in folder.iterdir()) == ["secret.key", "vapid.pem"]
        assert mode(folder / "vapid.pem") == 0o600  # and no temporary left
        files = [database, *(database.with_name(database.name + x) for x in ("-wal", "-shm"))]
        for path in files:
            if path.exists():
                assert mode(path) == 0o600, path
        assert mode(database) == 0o600
    finally:
        server.stop()


def test_an_existing_key_readable_by_others_is_made_private(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from trusis.server.config import secret_key

    monkeypatch.delenv("TRUSIS_SECRET", raising=False)
    key = tmp_path / "secret.key"
    key.write_text("an old key", "utf-8")
    key.chmod(0o644)
    assert secret_key(tmp_path) == "an old key"  # kept: everybody stays signed in
    assert mode(key) == 0o600


def test_an_existing_data_folder_open_to_others_is_made_private(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder an older version (or a person) made 0755 is tightened at the next start,
    as docs/deploy.md says (found by the review after issue 17's fixes)."""
    from trusis.server.config import data_dir

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    folder = tmp_path / "share" / "trusis"
    folder.mkdir(parents=True, mode=0o755)
    folder.chmod(0o755)
    assert data_dir() == folder and mode(folder) == 0o700
