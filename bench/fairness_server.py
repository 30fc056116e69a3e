"""The fairness measurement on a real server (bench/fairness.py --where server).

Starts `trusis serve` on loopback (SQLite in a temporary folder, the per-address limits
relaxed as the test suite relaxes them), then plays `tables` tables per style, `concurrent`
at a time: a guest hosts a table of `seats` seats, hands one seat to a program (the person)
and fills the others with bots, and starts it; the person connects over the WebSocket
protocol (docs/protocol.md) and plays its Day 1 (bench/people.py) on the wall clock, while
the server's bots play at its pace. The events the person's seat received make its `Day1`
(bench/fairness.py's `read_day`). Only the standard library, httpx and websockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from fairness import Day1, read_day
from people import plan

RELAXED = ("GUESTS_PER_ADDRESS_HOUR", "OPEN_TABLES_PER_ADDRESS", "RUNNING_TABLES_PER_ADDRESS",
           "TABLES_PER_ADDRESS_HOUR", "RUNNING_TABLES_PER_PLAYER", "TABLES_PER_PLAYER_HOUR")
PERSON = "Pat"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def serving(pace: float) -> Iterator[str]:
    """A `trusis serve` on loopback at bot pace `pace`; yields its base URL."""
    port = free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    for name in RELAXED:
        env[f"TRUSIS_LIMIT_{name}"] = "100000"
    with tempfile.TemporaryDirectory() as folder:
        proc = subprocess.Popen(
            [sys.executable, "-m", "trusis", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--database", f"sqlite:///{Path(folder) / 'trusis.db'}", "--bot-pace", f"{pace:g}",
             "--log-level", "warning"], env=env, stdout=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(url + "/api/health", timeout=1).status_code == 200:
                        break
                if proc.poll() is not None:
                    raise RuntimeError("trusis serve exited")
                time.sleep(0.2)
            yield url
        finally:
            proc.terminate()
            proc.wait(20)


async def _post(http: httpx.AsyncClient, path: str, body: Any = None) -> Any:
    reply = await http.post(path, json=body if body is not None else {})
    reply.raise_for_status()
    return reply.json()


async def table_day(url: str, style: str, seed: int, seats: int, kind: str, day: float,
                    custom: dict[str, int] | None = None) -> Day1:
    """One table (the standard set, or `custom`): set it up, start it, and play the
    person's Day 1 over the WebSocket."""
    rng = random.Random(seed)
    person = 1 + seed % seats
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        host = await _post(http, "/api/guest", {"name": f"Host {seed}"})
        http.headers["Authorization"] = f"Bearer {host['token']}"
        options = {"name": f"fairness {seed}", "seats": seats, "day_seconds": int(day),
                   "night_seconds": 15, "set": {"custom": custom} if custom else {"standard": True}}
        table = await _post(http, "/api/tables", options)
        tid = table["id"]
        token = (await _post(http, f"/api/tables/{tid}/seats/{person}/program",
                             {"name": PERSON}))["token"]
        for _ in range(seats - 1):
            await _post(http, f"/api/tables/{tid}/bots", {"kind": kind})
        await _post(http, f"/api/tables/{tid}/start")
    events: list[dict[str, Any]] = []
    ws_url = url.replace("http", "ws", 1) + f"/ws/tables/{tid}"
    async with connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
        await ws.send(json.dumps({"type": "hello", "protocol": 1, "last_seq": None}))
        started, names = await _first_view(ws, events, day)
        moves = plan(style, person, seats, day, rng, names)
        done = False
        count = 0
        while not done:
            wait = (started + moves[0].at - time.time()) if moves else 5.0
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), max(0.0, wait)))
            except TimeoutError:
                if moves:
                    move = moves.pop(0)
                    action = move.action.to_dict()
                    action.pop("seat", None)
                    action["phase"] = {"kind": "day", "number": 1}
                    count += 1
                    await ws.send(json.dumps({"type": "act", "id": f"p{count}",
                                              "action": action}))
                continue
            for event in message.get("events", []) if message["type"] == "events" else []:
                events.append(event)
                if event["code"] in ("phase_started", "game_over"):
                    done = True
    return read_day(style, person, seats, events, started)


async def _first_view(ws: Any, events: list[dict[str, Any]],
                      day: float) -> tuple[float, dict[int, str]]:
    """Wait for the game's first snapshot: when Day 1 began (its deadline less its length;
    the server's clock is this machine's) and the seats' names."""
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "snapshot":
            view, clock = message["view"], message["clock"]
            events.extend(message.get("events", []))
            return float(clock["deadline"]) - day, {p["seat"]: p["name"] for p in view["players"]}


def server_days(style: str, tables: int, seed: int, seats: int, kind: str, pace: float,
                day: float, concurrent: int) -> list[Day1]:
    """`tables` Day 1s of `style` on one real server, `concurrent` tables at a time."""

    async def run(url: str) -> list[Day1]:
        gate = asyncio.Semaphore(concurrent)

        async def one(i: int) -> Day1:
            async with gate:
                return await table_day(url, style, seed + i, seats, kind, day)

        return list(await asyncio.gather(*(one(i) for i in range(tables))))

    with serving(pace) as url:
        return asyncio.run(run(url))
