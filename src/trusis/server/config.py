"""Server settings: where it listens, where it keeps games, which secret signs cookies."""

from __future__ import annotations

import os
import secrets
import socket
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from trusis.server.limits import Limits

APP_NAME = "trusis"


def data_dir() -> Path:
    """The user's data folder for Trusis (platformdirs), created if missing."""
    path = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_database_url() -> str:
    """An embedded SQLite file in the user's data folder: no other service needed."""
    return f"sqlite+aiosqlite:///{data_dir() / 'trusis.db'}"


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
    if path.exists():
        return path.read_text("utf-8").strip()
    key = secrets.token_urlsafe(48)
    path.write_text(key, "utf-8")
    path.chmod(0o600)
    return key


@dataclass
class Settings:
    """Everything `create_app` needs; `trusis serve` fills it from its options."""

    database_url: str = field(default_factory=default_database_url)
    secret: str = ""
    host: str = "127.0.0.1"
    port: int = 8000
    origins: tuple[str, ...] = ()
    """Extra origins allowed to open a WebSocket (the server's own is always allowed)."""
    secure_cookies: bool = False
    """Mark cookies `Secure` (behind HTTPS)."""
    bot_pace: float = 1.0
    """Scales the bots' thinking time: 1 is a human pace, 0 makes them instant (tests)."""
    balance_games: int = 200
    """Heuristic games behind one balance estimate."""
    max_frame: int = 16 * 1024
    ready_message: str = ""
    """Printed once the server is ready (by `trusis serve`: the address to open)."""
    redis_url: str | None = None
    """Several processes (docs/deploy.md): the Redis they share, beside their PostgreSQL."""
    node: str = field(default_factory=lambda: f"{socket.gethostname()}-{os.getpid()}"
                                              f"-{secrets.token_hex(2)}")
    """This process's name in the cluster (its leases are held under it)."""
    lease_seconds: float = 5.0
    """How long a game's lease lasts unrenewed: how soon another process takes over."""
    limits: Limits = field(default_factory=Limits.from_env)
    """What one player or one address may use (limits.py; `--limit`, `TRUSIS_LIMIT_*`)."""

    def __post_init__(self) -> None:
        self.database_url = normalise_database_url(self.database_url)
