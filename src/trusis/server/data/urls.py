"""A database URL read without opening it: which file an SQLite URL names, and how it is
shown in a log line (password hidden). The one place outside the store that parses one."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import make_url


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite database URL (None: another database, memory, or a URI)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    if parsed.database.startswith("file:"):
        return None  # a URI names its own options
    return Path(parsed.database)


def shown(url: str) -> str:
    """The URL as a log line may carry it: its password replaced by `***`."""
    return make_url(url).render_as_string(hide_password=True)
