"""What a chat message pays for the uncached mute check (issue 18, sanctions.py).

The process that owns a game asks the database whether the sender is muted before it
applies a `say` (commands.py), so that a mute given on any process counts at once on
every other. This times that check, `sanctions.muted_until`, for a player with a lifted
mute and a warning on record, on a fresh SQLite file and (when reachable) on PostgreSQL.
No assertions: it is a measuring tape for docs/deploy.md ("Moderation").
Usage: python bench/mute_check.py [--checks 2000] [--postgres postgresql://postgres@127.0.0.1/test]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import tempfile
import time
from pathlib import Path

from trusis.server import sanctions
from trusis.server.config import normalise_database_url
from trusis.server.store import Store


async def measure(url: str, checks: int) -> float:
    """Microseconds per check, over `checks` checks."""
    store = Store(normalise_database_url(url))
    await store.migrate()
    try:
        player = await store.new_player("Ann", "guest")
        async with store.engine.begin() as conn:  # a record to look through, none in force
            await sanctions.give(conn, player.id, "warning", "be kind", "mod", None, None)
            lifted = await sanctions.give(conn, player.id, "mute", "spam", "mod",
                                          time.time() + 600, None)
            await sanctions.lift(conn, lifted)
        for _ in range(20):  # warm the pool
            await sanctions.muted_until(store.engine, player.id)
        start = time.perf_counter()
        for _ in range(checks):
            assert await sanctions.muted_until(store.engine, player.id) is None
        return (time.perf_counter() - start) / checks * 1e6
    finally:
        await store.close()


async def postgres(server: str, checks: int) -> float | None:
    import asyncpg

    name = f"trusis_bench_{secrets.token_hex(4)}"
    try:
        conn = await asyncpg.connect(server, timeout=3)
    except (OSError, asyncpg.PostgresError):
        return None
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
        return await measure(f"{server.rsplit('/', 1)[0]}/{name}", checks)
    finally:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=2000)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        micro = asyncio.run(measure(f"sqlite:///{Path(folder) / 'bench.db'}", args.checks))
    print(f"sqlite:     {micro:6.0f} µs per mute check ({args.checks} checks)")
    pg = asyncio.run(postgres(args.postgres, args.checks))
    print("postgresql: unreachable" if pg is None
          else f"postgresql: {pg:6.0f} µs per mute check ({args.checks} checks)")


if __name__ == "__main__":
    main()
