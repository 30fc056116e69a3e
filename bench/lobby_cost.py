"""The lobby's HTTP cost: the server's CPU per request, two source trees side by side.

Usage: python bench/lobby_cost.py [--against DIR] [--tables N] [--seconds S] [--rounds R]

Every lobby page asks `GET /api/tables` every 5 s (lobby.js), so a thousand people in
the lobby are 200 listings a second, each of every open or running table. This starts
`trusis serve` (a fresh SQLite file, plain Python) with N open tables, then asks it, from
four concurrent clients for S seconds each: `GET /api/health` (the framework's floor),
`GET /api/tables` without and with a sign-in, and one table's `GET /api/tables/{id}`, and
prints the server's CPU per request, read from /proc (all its threads). With `--against
DIR` (a tree holding the `trusis` package, e.g. `git archive main src | tar -x -C /tmp/main`
then DIR=/tmp/main/src) each round runs both servers, in alternating order, and prints
this tree's CPU per request over the other's (< 1: this tree is cheaper). It prints
figures and never asserts them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 4


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(port: int, pid: int, tables: int, seconds: float) -> dict[str, float]:
    """CPU milliseconds per request, by what was asked."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
        token, first = "", ""
        for number in range(tables):
            if number % 4 == 0:  # a player hosts at most 5 open tables
                reply = await http.post("/api/guest", json={"name": f"Host {number}"})
                token = reply.json()["token"]
            reply = await http.post("/api/tables", json={"name": f"Table {number}",
                                                          "seats": 10},
                                    headers={"Authorization": f"Bearer {token}"})
            first = first or reply.json()["id"]
        signed = {"Authorization": f"Bearer {token}"}
        asks = {"health": ("/api/health", {}), "listing": ("/api/tables", {}),
                "listing, signed in": ("/api/tables", signed),
                "one table": (f"/api/tables/{first}", signed)}
        costs: dict[str, float] = {}
        for label, (path, headers) in asks.items():
            done = 0
            start, used = time.monotonic(), cpu_seconds(pid)

            async def ask(path: str = path, headers: dict[str, str] = headers,
                          until: float = start + seconds) -> None:
                nonlocal done
                while time.monotonic() < until:
                    reply = await http.get(path, headers=headers)
                    reply.raise_for_status()
                    done += 1

            await asyncio.gather(*(ask() for _ in range(WORKERS)))
            costs[label] = (cpu_seconds(pid) - used) / max(1, done) * 1e3
        return costs


def run(tree: Path, tables: int, seconds: float) -> dict[str, float]:
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="trusis-lobby-") as folder:
        env = dict(os.environ, PYTHONPATH=str(tree),
                   TRUSIS_LIMIT_GUESTS_PER_ADDRESS_HOUR="0",
                   TRUSIS_LIMIT_OPEN_TABLES_PER_ADDRESS="0")
        if "tables_per_address_hour" in (tree / "trusis/server/limits.py").read_text():
            env["TRUSIS_LIMIT_TABLES_PER_ADDRESS_HOUR"] = "0"  # not in older trees
        server = subprocess.Popen(
            [sys.executable, "-m", "trusis", "serve", "--port", str(port), "--database",
             f"sqlite+aiosqlite:///{folder}/bench.db", "--log-level", "warning"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/api/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            return asyncio.run(measure(port, server.pid, tables, seconds))
        finally:
            server.terminate()
            server.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, metavar="DIR")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    trees = {"this": ROOT / "src"}
    if args.against:
        trees["against"] = args.against.resolve()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} on "
          f"{os.cpu_count()} CPUs; {args.tables} open tables, {WORKERS} clients, "
          f"{args.seconds:g} s per request kind")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for round_ in range(args.rounds):
        for name in (list(trees) if round_ % 2 == 0 else list(reversed(trees))):
            costs = run(trees[name], args.tables, args.seconds)
            results[name].append(costs)
            print(f"round {round_ + 1} {name:8}: " + "; ".join(
                f"{label} {ms:.2f} ms" for label, ms in costs.items()), flush=True)
    if args.against:
        print("\nthis / against, CPU per request (< 1: this tree is cheaper):")
        for label in results["this"][0]:
            ratios = [a[label] / b[label] for a, b in zip(results["this"], results["against"],
                                                          strict=True)]
            print(f"  {label:20}: " + "  ".join(f"{x:.3f}" for x in ratios)
                  + f"   median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
