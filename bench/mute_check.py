"""What a chat message pays for the uncached mute check (issue 18, mutes.py).

The process that owns a game asks the database whether the sender is muted before it
applies a `say` (commands.py), so that a mute given on any process counts at once on
every other. This times that check for a player with a lifted mute and a warning on
record, on a fresh SQLite file and (when reachable) on PostgreSQL, two ways side by side:
the store's `MuteCheck` (what a `say` waits for) and the async engine's read
(`mutes.muted_until`, the moderation page's; a `say`'s before 6 December).
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

from trusis.server import mutes, sanctions
from trusis.server.config import normalise_database_url
from trusis.server.store import Store


async def measure(url: str, checks: int) -> tuple[float, float]:
    """Microseconds per check, over `checks` checks: the store's, the engine's."""
    store = Store(normalise_database_url(url))
    await store.migrate()
    try:
        player = await store.new_player("Ann", "guest")
        async with store.engine.begin() as conn:  # a record to look through, none in force
            await sanctions.give(conn, player.id, "warning", "be kind", "mod", None, None)
            lifted = await sanctions.give(conn, player.id, "mute", "spam", "mod",
                                          time.time() + 600, None)
            await sanctions.lift(conn, lifted)
        for _ in range(20):  # warm the pool and the check's connection
            await mutes.muted_until(store.engine, player.id)
            await store.mutes.until(player.id)
        start = time.perf_counter()
        for _ in range(checks):
            assert await store.mutes.until(player.id) is None
        middle = time.perf_counter()
        for _ in range(checks):
            assert await mutes.muted_until(store.engine, player.id) is None
        end = time.perf_counter()
        return (middle - start) / checks * 1e6, (end - middle) / checks * 1e6
    finally:
        await store.close()


async def postgres(server: str, checks: int) -> tuple[float, float] | None:
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
    print(f"sqlite:     {micro[0]:6.0f} µs per mute check (the engine's read: {micro[1]:.0f} µs,"
          f" {micro[1] / micro[0]:.0f}x; {args.checks} checks each)")
    pg = asyncio.run(postgres(args.postgres, args.checks))
    print("postgresql: unreachable" if pg is None
          else f"postgresql: {pg[0]:6.0f} µs per mute check (the engine's read: {pg[1]:.0f} µs;"
               f" {args.checks} checks each)")


if __name__ == "__main__":
    main()
