"""What a request pays to learn who it comes from, now that no process caches sign-ins.

Every HTTP request and WebSocket upgrade asks the database for its token's owner
(identity.py): this times that lookup, `Store.token_owner`, on a fresh SQLite file
and (when reachable) on PostgreSQL, so docs/deploy.md can say what dropping the
per-process cache costs. No assertions: it is a measuring tape.
Usage: python bench/tokens.py [--lookups 2000] [--postgres postgresql://postgres@127.0.0.1/test]
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import tempfile
import time
from pathlib import Path

from trusis.server.config import normalise_database_url
from trusis.server.data.store import Store


async def measure(url: str, lookups: int) -> float:
    """Microseconds per lookup, over `lookups` lookups of 200 live tokens."""
    store = Store(normalise_database_url(url))
    await store.migrate()
    try:
        player = await store.new_player("Ann", "guest")
        tokens = [await store.new_token(player.id, "bearer") for _ in range(200)]
        for token in tokens[:20]:  # warm the pool
            await store.token_owner(token)
        start = time.perf_counter()
        for i in range(lookups):
            assert await store.token_owner(tokens[i % len(tokens)]) is not None
        return (time.perf_counter() - start) / lookups * 1e6
    finally:
        await store.close()


async def postgres(server: str, lookups: int) -> float | None:
    import asyncpg

    name = f"trusis_bench_{secrets.token_hex(4)}"
    try:
        conn = await asyncpg.connect(server, timeout=3)
    except (OSError, asyncpg.PostgresError):
        return None
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
        return await measure(f"{server.rsplit('/', 1)[0]}/{name}", lookups)
    finally:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lookups", type=int, default=2000)
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/test")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        micro = asyncio.run(measure(f"sqlite:///{Path(folder) / 'bench.db'}", args.lookups))
    print(f"sqlite:     {micro:6.0f} µs per token lookup ({args.lookups} lookups)")
    pg = asyncio.run(postgres(args.postgres, args.lookups))
    print("postgresql: unreachable" if pg is None
          else f"postgresql: {pg:6.0f} µs per token lookup ({args.lookups} lookups)")


if __name__ == "__main__":
    main()
