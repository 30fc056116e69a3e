"""One server process per SQLite file.

A server keeps its games in memory and is their only writer (docs/architecture.md, "The
server"): a second `trusis serve` on the same file kept games of its own that the first
never listed, wrote rows the first did not know, and two started together on a new file
raced to create its schema (one died with "table players already exists"). Several
processes share a database through PostgreSQL and Redis, which say who owns which game;
on SQLite the second process stops before it opens anything.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # not a POSIX system: no lock, as before
    fcntl = None  # type: ignore[assignment]


class FileInUse(Exception):
    """Another process serves games from this SQLite file."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.path = path

    def sentence(self) -> str:
        return (f"another trusis serve already uses {self.path}: stop it, or give this one "
                "its own --database. Several processes share one PostgreSQL database with "
                "--redis (docs/deploy.md).")


def hold(path: Path) -> IO[bytes] | None:
    """Take `path`'s lock for as long as the process lives (the system lets go of it when
    the process ends, a SIGKILL included, so a crash never leaves the file locked); raise
    `FileInUse` if another process holds it."""
    if fcntl is None:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(path.name + ".lock")
    handle = os.fdopen(os.open(lock, os.O_CREAT | os.O_RDWR, 0o600), "r+b")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise FileInUse(path) from None
    return handle
