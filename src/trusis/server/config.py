"""Server settings: where it listens, where it keeps games, which secret signs cookies."""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from trusis.bots.expert import ROLLOUTS
from trusis.server.data.urls import sqlite_file
from trusis.server.limits.settings import Limits
from trusis.server.tables.thinking import THREADS

APP_NAME = "trusis"


def data_path() -> Path:
    """Where the user's data folder for Trusis is (platformdirs), without creating it:
    `~/.local/share/trusis` on Linux (`$XDG_DATA_HOME/trusis` when that is set),
    `~/Library/Application Support/trusis` on macOS, `%LOCALAPPDATA%\\trusis` on Windows
    (docs/deploy.md, "One process")."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    """The user's data folder for Trusis (`data_path`), created if missing, readable by
    its owner only: it holds the games and the key that signs everybody's sessions."""
    path = data_path()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if path.stat().st_mode & 0o077:  # made by an older version, or by hand: tightened
        path.chmod(0o700)
    return path


def private_file(path: Path) -> None:
    """Create `path` empty with mode 0600 if it is missing, or take group's and others'
    rights away if it has them: a database or a key is its owner's alone."""
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        if path.stat().st_mode & 0o077:
            with contextlib.suppress(PermissionError):
                path.chmod(0o600)


def private_sqlite(url: str) -> None:
    """An SQLite database file is created 0600 before SQLite opens it: its journal and
    shared-memory files (-wal, -shm) then take the same mode."""
    if (path := sqlite_file(url)) is not None:
        private_file(path)


def default_database_url(create: bool = True) -> str:
    """An embedded SQLite file in the user's data folder: no other service needed. With
    `create` false the folder is not made (`trusis admin` reads a database, never starts
    one)."""
    return f"sqlite+aiosqlite:///{(data_dir() if create else data_path()) / 'trusis.db'}"


def normalise_database_url(url: str) -> str:
    """Accept the usual spellings and pick the async driver the server uses.

    `postgresql://…` and `postgres://…` become `postgresql+asyncpg://…`;
    `sqlite:///path` becomes `sqlite+aiosqlite:///path`.
    """
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+asyncpg://" + url[len(prefix):]
    if url.startswith("sqlite://") and not url.startswith("sqlite+"):
        return "sqlite+aiosqlite://" + url[len("sqlite://"):]
    return url


def secret_key(folder: Path | None = None) -> str:
    """The key that signs session cookies, kept in the data folder so that a restart
    keeps everybody signed in. Created on first use with `secrets`. `TRUSIS_SECRET`, when
    set, is the key instead: several processes must sign with the same one."""
    given = os.environ.get("TRUSIS_SECRET", "").strip()
    if given:
        return given
    path = (folder or data_dir()) / "secret.key"
    if not path.exists():
        # Written whole to a private temporary file (mkstemp: 0600), then linked into
        # place: nobody ever reads a half-written key, or one others may read, and of two
        # processes starting together the second keeps the first one's key.
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".secret-")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(secrets.token_urlsafe(48))
                out.flush()
                os.fsync(out.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
        finally:
            os.unlink(temporary)
    private_file(path)
    return path.read_text("utf-8").strip()


@dataclass
class Settings:
    """Everything `create_app` needs; `trusis serve` fills it from its options."""

    database_url: str = field(default_factory=default_database_url)
    secret: str = ""
    host: str = "127.0.0.1"
    port: int = 8000
    origins: tuple[str, ...] = ()
    """Extra origins allowed to open a WebSocket (the server's own is always allowed)."""
    allowed_hosts: tuple[str, ...] = ()
    """`--allowed-host`: names this server answers to besides addresses, `localhost` and
    the hosts of `public_url` and `origins` (api/guard.py; "*": any)."""
    secure_cookies: bool = False
    """Mark cookies `Secure` (behind HTTPS)."""
    token_days: float = 30.0
    """How long a session cookie or a token signs in after it was handed out."""
    bot_pace: float = 1.0
    """Scales the bots' thinking time: 1 is a human pace, 0 makes them instant (tests)."""
    bot_rollouts: int = ROLLOUTS
    """An expert bot's CPU budget: plays of the engine per decision (docs/bots.md)."""
    bot_threads: int = THREADS
    """Threads thinking for the expert bots, off the event loop; 0: experts play `normal`."""
    balance_games: int = 200
    """Heuristic games behind one balance estimate."""
    max_frame: int = 16 * 1024
    ready_message: str = ""
    """Printed once the server is ready (by `trusis serve`: the address to open)."""
    log_json: bool = False
    """`--log-format json`: the ready message is a log line too, so that every line of
    the output is JSON."""
    redis_url: str | None = None
    """Several processes (docs/deploy.md): the Redis they share, beside their PostgreSQL."""
    node: str = field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}"
                                              f"-{secrets.token_hex(2)}")
    """This process's name in the cluster (its leases are held under it)."""
    lease_seconds: float = 5.0
    """How long a game's lease lasts unrenewed: how soon another process takes over."""
    metrics_port: int | None = None
    """Serve `/metrics` (Prometheus) on this port of its own, and nothing else there."""
    metrics_token: str = ""
    """Serve `/metrics` on the main port too, to whoever sends this bearer token."""
    public_url: str = ""
    """The address players open (`--public-url`): the links of notifications. Empty:
    http://localhost:PORT, right for one computer only."""
    notifications: bool = True
    """Run the notifications' outbox (e-mail when TRUSIS_SMTP_HOST is set, Web Push)."""
    data_folder: Path | None = None
    """Where the VAPID key is kept (None: the user's data folder, as the secret key)."""
    limits: Limits = field(default_factory=Limits.from_env)
    """What one player or one address may use (limits/settings.py; `--limit`, `TRUSIS_LIMIT_*`)."""

    def __post_init__(self) -> None:
        self.database_url = normalise_database_url(self.database_url)
