"""A migrated `Store` on a fresh SQLite file, for tests that drive the store in-process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from trusis.server.data.store import Store


@pytest_asyncio.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[Store]:
    store = Store(f"sqlite+aiosqlite:///{tmp_path / 'store.db'}")
    await store.migrate()
    try:
        yield store
    finally:
        await store.close()
