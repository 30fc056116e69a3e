"""A consistent copy of a running server's SQLite database (`trusis admin backup`).

SQLite's online backup API copies the database page by page under a read lock: the
copy is the database as of one committed transaction, whatever the server writes
meanwhile, and every action the server acknowledged before the copy began is in it
(group commits: an action is acknowledged once committed). With `pages=-1` the copy
is made in one step, so it never restarts because of a concurrent write. PostgreSQL
has its own tools (pg_dump, docs/deploy.md "Backups").
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url


class BackupError(Exception):
    """The copy could not be made; nothing was left at the destination."""


def sqlite_file(database_url: str) -> Path:
    """The file of an SQLite URL (`sqlite:///path`, any driver), or BackupError."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        raise BackupError(f"{url.get_backend_name()} is backed up with its own tools "
                          "(PostgreSQL: pg_dump, see docs/deploy.md \"Backups\")")
    if not url.database or url.database == ":memory:":
        raise BackupError("an in-memory database cannot be backed up")
    path = Path(url.database)
    if not path.exists():
        raise BackupError(no_database(path))
    return path


def no_database(path: Path) -> str:
    """What an admin command says of an SQLite file that is not there (it creates none)."""
    return (f"there is no database at {path}: start the server once (`trusis serve`), or "
            "pass --database with the URL the server is given")


def private_new_file(path: Path) -> None:
    """Create `path` empty, readable and writable by its owner only (0600) from its first
    moment, whatever the umask: a backup holds password hashes, chats, private messages and
    reports, as the live database (0600, config.private_file) does. A `.partial` left by a
    backup that was killed is ours and replaced; a symbolic link there is never followed."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0),
                     0o600))


def backup_sqlite(source: Path, destination: Path) -> int:
    """Copy `source` to `destination` (which must not exist); the copy's size in bytes.
    Written beside the destination first and renamed once complete, so that a failed or
    interrupted backup leaves no file that looks like a backup. The copy is created 0600
    before SQLite writes a byte to it (its journal takes the same mode), and keeps that
    mode through the rename: never a moment when others on the machine may read it."""
    if destination.exists():
        raise BackupError(f"{destination} exists already: give a new file name")
    partial = destination.with_name(destination.name + ".partial")
    try:
        private_new_file(partial)
        with contextlib.closing(sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True,
                                                timeout=30)) as src, \
                contextlib.closing(sqlite3.connect(partial)) as dst:
            src.execute("PRAGMA busy_timeout=30000")
            src.backup(dst, pages=-1)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
            problem = dst.execute("PRAGMA integrity_check").fetchone()[0]
        if problem != "ok":
            raise BackupError(f"the copy failed its integrity check: {problem}")
        os.replace(partial, destination)
    except (sqlite3.Error, OSError) as err:
        raise BackupError(f"the backup failed: {err}") from None
    finally:
        with contextlib.suppress(OSError):
            partial.unlink()
    return destination.stat().st_size
