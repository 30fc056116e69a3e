"""What a chat message pays for the mute check (issue 18, mutes.py).

The process that owns a game asks whether the sender is muted before it applies a `say`
(commands.py): the database, unless it read the player as free to chat since the last
mute it was told of (D69, issue 39). This times that check for a player with a lifted
mute and a warning on record, on a fresh SQLite file and (when reachable) on PostgreSQL,
three ways side by side: the store's `MuteCheck` as a `say` meets it (kept: the player
was read already), the same check when it reads (a mute was told just before:
`forget`), and the async engine's read (`mutes.muted_until`, the moderation page's; a
`say`'s before 6 December).
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

from trusis.server.config import normalise_database_url
from trusis.server.data import mutes, sanctions
from trusis.server.data.store import Store


async def measure(url: str, checks: int) -> tuple[float, float, float]:
    """Microseconds per check, over `checks` checks: the store's kept answer, the store's
    read, the engine's."""
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
        check = store.mutes
        start = time.perf_counter()
        for _ in range(checks):
            assert await check.until(player.id) is None
        kept = time.perf_counter()
        for _ in range(checks):
            check.forget()
            assert await check.until(player.id) is None
        read = time.perf_counter()
        for _ in range(checks):
            assert await mutes.muted_until(store.engine, player.id) is None
        end = time.perf_counter()
        return ((kept - start) / checks * 1e6, (read - kept) / checks * 1e6,
                (end - read) / checks * 1e6)
    finally:
        await store.close()


async def postgres(server: str, checks: int) -> tuple[float, float, float] | None:
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
    print(f"sqlite:     {micro[0]:6.1f} µs per mute check kept, {micro[1]:.1f} µs when it "
          f"reads (the engine's read: {micro[2]:.0f} µs; {args.checks} checks each)")
    pg = asyncio.run(postgres(args.postgres, args.checks))
    print("postgresql: unreachable" if pg is None
          else f"postgresql: {pg[0]:6.1f} µs per mute check kept, {pg[1]:.0f} µs when it "
               f"reads (the engine's read: {pg[2]:.0f} µs; {args.checks} checks each)")

if __name__ == "__main__":
    main()
