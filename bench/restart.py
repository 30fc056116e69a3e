"""`bench/load.py --restart N`: how long N running games in mid-play are out after a SIGKILL.

One `trusis serve` on a fresh SQLite file (as bench/load.py starts it, with its
--ws-compression). N tables of 10 seats: a guest creates each, sits, adds 9
heuristic bots; once every table is seated, all are started together (so that all
are in mid-play at the kill), without connecting, so that after its grace period
(5 s) a bot plays its seat too (R52, R53): ten bots, whose thinking time is
`--restart-pace` times a human's (default 5: at 1, ten bots end a game in
about 20 s), so that the games are in mid-play when the server is killed. After
`--seconds` of play the bench reads from the database how far the games got
(actions per running game), kills the server with SIGKILL, starts the same
command again at once, and times from the kill until the server answers
/api/health (it restores every running game before it listens) and until each
of the N games answered GET /api/tables/{id} (32 at a time): the time until
every game serves again. It prints the first start's time (an empty database)
beside it, the restored process's RSS and what it logged, and never asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx

import load_servers as load  # bench/load.py's server start-up, shared

SEATS = 10
GRACE = 5


RETRIED = [0, ""]
"""Set-up requests answered 5xx and tried again, and the last such answer."""


async def _post(http: httpx.AsyncClient, path: str, body: dict[str, Any],
                headers: dict[str, str] | None = None) -> dict[str, Any]:
    """A POST, tried again up to 3 times on a 5xx (counted and printed: SQLite can answer
    'database is locked' while hundreds of games commit)."""
    for attempt in range(4):
        reply = await http.post(path, json=body, headers=headers or {})
        if reply.status_code < 500 or attempt == 3:
            answer: dict[str, Any] = reply.raise_for_status().json()
            return answer
        RETRIED[0] = int(RETRIED[0]) + 1
        RETRIED[1] = f"{path}: {reply.status_code} {reply.text[:200]}"
        await asyncio.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


async def _set_up(port: int, tables: int) -> list[tuple[str, str]]:
    """N started tables, each a guest's with 9 bots: (table id, the guest's token)."""
    made: list[tuple[str, str]] = []
    gate = asyncio.Semaphore(8)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=120,
                                 limits=httpx.Limits(max_connections=8)) as http:
        async def one(number: int) -> None:
            async with gate:
                token = (await _post(http, "/api/guest", {"name": f"R{number}"}))["token"]
                auth = {"Authorization": f"Bearer {token}"}
                table = (await _post(http, "/api/tables", {
                    "name": f"restart {number}", "seats": SEATS, "day_seconds": 30,
                    "night_seconds": 15, "grace_seconds": GRACE}, auth))["id"]
                await _post(http, f"/api/tables/{table}/seats", {}, auth)
                for _ in range(SEATS - 1):
                    await _post(http, f"/api/tables/{table}/bots", {"kind": "heuristic"}, auth)
                made.append((table, token))

        async def start(table: str, token: str) -> None:
            async with gate:
                await _post(http, f"/api/tables/{table}/start", {},
                            {"Authorization": f"Bearer {token}"})

        # Every table seated first, then all started together: the games are all in
        # mid-play at the kill, however long the set-up took (one by one, the first ones
        # ended before the last began).
        await asyncio.gather(*(one(n) for n in range(tables)))
        await asyncio.gather(*(start(t, k) for t, k in made))
    return made


def _progress(database: Path) -> tuple[int, int, list[int]]:
    """(running games, finished games, actions recorded per running game) in the file."""
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        counts = dict(db.execute("SELECT status, count(*) FROM tables GROUP BY status")
                      .fetchall())
        actions = [n for (n,) in db.execute(
            "SELECT count(a.table_id) FROM tables t LEFT JOIN actions a ON a.table_id = t.id "
            "WHERE t.status = 'running' GROUP BY t.id")]
    return int(counts.get("running", 0)), int(counts.get("finished", 0)), actions


async def _all_serve(port: int, made: list[tuple[str, str]], began: float) -> list[float]:
    """Each game's GET answered, in seconds after `began` (32 at a time)."""
    gate = asyncio.Semaphore(32)
    times: list[float] = []
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60,
                                 limits=httpx.Limits(max_connections=32)) as http:
        async def one(table: str, token: str) -> None:
            async with gate:
                reply = await http.get(f"/api/tables/{table}",
                                       headers={"Authorization": f"Bearer {token}"})
                if reply.status_code == 200 and reply.json()["status"] in ("running",
                                                                            "finished"):
                    times.append(time.perf_counter() - began)

        await asyncio.gather(*(one(t, k) for t, k in made))
    return times


def restart_run(args: argparse.Namespace, folder: Path) -> None:

    print(f"restart: {args.restart} tables of {SEATS} seats, bots at pace "
          f"{args.restart_pace:g}, compression {args.compression}; {load.machine_load()}")
    began = time.perf_counter()
    servers = load.start_trusis(None, folder, None, compression=args.compression,
                                pace=args.restart_pace, log_level="info")
    empty = time.perf_counter() - began
    try:
        port = servers.ports[0]
        began = time.perf_counter()
        try:
            made = asyncio.run(_set_up(port, args.restart))
        except httpx.HTTPStatusError as err:
            raise SystemExit(f"set-up refused: {err}\n{load.tail(servers.logs[0])}") from None
        print(f"  set-up {time.perf_counter() - began:.1f} s; playing {args.seconds:g} s more"
              + (f"; {RETRIED[0]} set-up requests answered 5xx and tried again, the last: "
                 f"{RETRIED[1]}" if RETRIED[0] else ""))
        time.sleep(args.seconds)
        database = servers.sqlite
        assert database is not None
        proc = servers.procs[0]
        rss = load.rss_kib(proc.pid)
        proc.send_signal(signal.SIGKILL)
        killed = time.perf_counter()
        proc.wait()
        running, finished, actions = _progress(database)
        mean = sum(actions) / max(1, len(actions))
        print(f"  at the kill: {running} games running ({finished} finished), "
              f"{mean:.0f} actions recorded per running game (min "
              f"{min(actions, default=0)}, max {max(actions, default=0)}); RSS "
              f"{rss / 1024:.0f} MiB; {load.machine_load()}")
        log = open(servers.logs[0], "ab")  # noqa: SIM115 - the child keeps it
        again = subprocess.Popen(servers.commands[0], stdout=log, stderr=subprocess.STDOUT,
                                 env=servers.env)
        servers.procs[0] = again
        load.wait_healthy(again, port, "/api/health", servers.logs[0], "restarted server")
        listening = time.perf_counter() - killed
        times = asyncio.run(_all_serve(port, made, killed))
        served = max(times, default=float("nan"))
        print(f"  SIGKILL -> listening again {listening:.2f} s (the first start, on an empty "
              f"database: {empty:.2f} s); -> every game served again "
              f"{served:.2f} s ({len(times)} of {len(made)} answered); RSS "
              f"{load.rss_kib(again.pid) / 1024:.0f} MiB after the restore")
        print(f"  figure: restart with {running} running {SEATS}-seat games: {served:.2f} s "
              f"until every game serves again; {load.machine_load()}")
        restored = [line for line in servers.logs[0].read_text().splitlines()
                    if "tables restored in" in line]
        print(f"  the restarted server's own count: {restored[-1] if restored else '?'}")
    finally:
        load.stop_servers(servers)


if __name__ == "__main__":
    raise SystemExit("run it as: bench/load.py --restart N [--seconds S]")
