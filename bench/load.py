"""Load: N tables x 10 protocol clients on loopback, against `trusis serve` and a bare server.

Usage: .venv/bin/python bench/load.py --tables N --seconds S [--processes N[,N...]]
                                      [--client-processes P] [--think T]
                                      [--spy FILE | --profile FILE] [--only trusis|bare]
                                      [--metrics] [--compression off|deflate|wide]
                                      [--gc] [--gc-pin A,B,C]
       .venv/bin/python bench/load.py --restart N --seconds S [--restart-pace P]

First `trusis serve` (a subprocess: uvicorn with ws="websockets-sansio", a fresh
SQLite file, only 127.0.0.1): N tables of 10 seats, every seat a protocol client
— a guest over HTTP, then one WebSocket — played by a trusis bot
(`create_bot("heuristic", seat)`) on the view and events that client receives,
its actions sent as `act` commands, one at a time. When a game ends its table's
ten clients open a new table and play again. Then the same clients, in the same
number and with one command in flight each, against bench/bare.py: a bare
FastAPI WebSocket server that broadcasts each message to the 10 clients of its
room, its frames padded to the game server's mean frame size: the transport's
limit on this machine. Both accept the clients' offer of per-message deflate
alike (`--compression`, the server's `--ws-compression`, default its default):
memory per table and CPU per action compare only with the same transport.

At the end it prints issue 19's figures for this run: the throughput as a ratio
to the bare server (with `--think 0`), ack and broadcast p99, the server's CPU
per action, its memory per table of 10 connected clients beside the bare
server's, the bytes on the wire per action (counted by the clients as the frames
arrive, compressed or not), with the machine's load average and CPU count before
and after. The issue's table is these commands (keep them short on a shared
machine; the set-up of 500 tables takes minutes):

    bench/load.py --tables 50 --seconds 20                        # saturation
    bench/load.py --tables 200 --seconds 30 --think 5 --gc        # human pace
    bench/load.py --tables 500 --seconds 30 --think 5 --only trusis
    bench/load.py --restart 1000 --seconds 10                     # bench/restart.py

`--gc` times every garbage collection of the game server (bench/gcwatch.py) and
prints the pauses in the window; `--gc-pin 700,10,10` first runs it with those
thresholds pinned (Python's own), then as it sets them, in the same run.
`--restart N` is another measurement: see bench/restart.py.

`--processes N` runs the game server as N `trusis serve` processes instead (issue
13's cluster): one fresh PostgreSQL database of the bench's own on the machine's
server (TRUSIS_TEST_POSTGRES, as the tests; dropped afterwards), one redis-server
of its own on a spare port (nothing kept on disk), and every process given
`--database` and `--redis` and the same TRUSIS_SECRET. Client i of a table
connects to process i mod N, takes its seat through it, and tables are created
and started through the processes in turn: no client sticks to the process that
owns its game. `--processes 1,2` runs 1 process, then 2, then the bare server,
in one run; the 1-process figure is then the cluster's own overhead (PostgreSQL
and Redis), and without `--processes` the server runs as by default, one process
on SQLite. For several processes it also prints each process's CPU and what its
/api/health said during the window (highest loop_lag_ms, send_queue and
commit_queue; games owned and followed), and how the sizes scale.

With `--think 0` (the default) every client sends its next command as soon as the
last is answered: that measures throughput, and the latencies are then only
queueing (2000 clients over what the server carries). `--think T` gives each
client a pause of random length (exponential, mean T seconds) before each
command, so that the latencies are those of a server carrying that load.

Printed for each: actions (or messages) per second, acknowledgement latency
(send to `ack`; for the bare server, to the sender's own copy) and broadcast
latency (send to each other client's receipt of the event it caused), p50 and
p99, frames out per second, the CPU each side used, and the server's memory per
table (its RSS after the run less its RSS before, divided by the tables); then
the ratio of the two throughputs; also the server's CPU time per action and the
CPU that other processes of this machine used meanwhile (figures taken on a
shared machine say how shared it was). Clients run in P client processes
(`--client-processes`; asyncio and the `websockets` library), tables split
between them. The run is bounded in tables and time and stops by itself.
`--spy FILE` samples both servers (the first process of several) with py-spy
(`pip install py-spy` into .venv) and prints where their event loops spend their
time; `--profile FILE` runs the game server under cProfile instead (it slows the
server). With PostgreSQL, the CPU of the machine's PostgreSQL processes is shown
apart. It prints figures and never asserts them.

`--metrics` says what the Prometheus metrics cost (docs/deploy.md, "Metrics"): each
size of the game server runs twice in the same run, first as it is by default (no
metrics), then with `--metrics-port` and `/metrics` scraped every second (Prometheus
scrapes every 15 s by default: this is the dearer case), and the ratio of the two
throughputs and of their CPU per action is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import multiprocessing as mp
import os
import pstats
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import httpx
import orjson
import websockets
from websockets.asyncio.client import ClientConnection

from trusis.bots.base import Bot
from trusis.bots.registry import create_bot
from trusis.server.transport import COMPRESSIONS, DEFAULT_COMPRESSION, Compression

HOST = "127.0.0.1"
SEATS = 10
MAX_TABLES = 1000
MAX_SECONDS = 600
BENCH = Path(__file__).resolve().parent
# The event a command causes at the other seats, by code: the commands it answers.
CAUSES = {"vote_cast": ("vote", "illusion"), "vote_withdrawn": ("vote", "illusion"),
          "trusis_vote": ("vote",), "trusis_vote_withdrawn": ("vote",), "passed": ("pass",),
          "said": ("say",)}
COMPRESSION: str | None = os.environ.get("LOAD_COMPRESSION", "deflate") or None
PATIENCE = 3  # a bot that says "not yet" this many times in a phase passes
SETUP_RETRIES = 2  # a 503 during the set-up of a table is tried again this many times


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def postgres_cpu() -> float:
    """CPU seconds used so far by this machine's PostgreSQL processes (a local server's
    backends live as long as the servers' connection pools, so a difference over the
    window is what PostgreSQL spent on the run, give or take a backend that came or went)."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            text = stat.read_text()
            if text.split(" ", 2)[1] == "(postgres)":
                total += cpu_seconds(int(text.split(" ", 1)[0]))
    return total


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]
    total = sum(values[:8])
    ticks = os.sysconf("SC_CLK_TCK")
    return (total - idle) / ticks, total / ticks


WIRE = [0]
"""Bytes the WebSocket clients of this process have received from the network so far."""


class CountingConnection(ClientConnection):
    """A client connection that counts what comes over the wire: the frames as sent,
    compressed or not, with their headers (a client reads them decompressed)."""

    def data_received(self, data: bytes) -> None:
        WIRE[0] += len(data)
        super().data_received(data)


def read_bytes() -> int:
    return WIRE[0]


def machine_load() -> str:
    """The machine's load averages and CPU count, printed beside every figure."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def percentile(samples: list[float], p: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


# -- the clients (in each client process) ------------------------------------------


@dataclass
class Stats:
    acks: list[float] = field(default_factory=list)
    broadcasts: list[float] = field(default_factory=list)
    acked: int = 0
    refused: int = 0
    frames: int = 0
    bytes: int = 0
    games: int = 0
    errors: int = 0
    error: str = ""  # the first client error, as printed
    retried: int = 0  # HTTP requests of the set-up tried again after a 503
    lost_tables: int = 0  # tables whose set-up was still refused after those tries
    lost_reason: str = ""
    sample: str = ""  # one game frame, whose text the bare server pads with


class Seat:
    """One client: a WebSocket, and for the game server a bot playing its seat."""

    def __init__(self, slot: Slot, index: int, token: str) -> None:
        self.slot = slot
        self.index = index
        self.token = token
        self.ws: ClientConnection | None = None
        self.seat = index + 1
        self.bot: Bot | None = None
        self.view: dict[str, Any] | None = None
        self.news: list[dict[str, Any]] = []
        self.pending: str | None = None
        self.sent_at = 0.0
        self.count = 0
        self.phase: tuple[str, int] = ("", 0)
        self.waits = 0
        self.acted = 0
        self.force_pass = False
        self.retry: asyncio.TimerHandle | None = None
        self.thinking = False  # --think: waiting before its next command
        self.thought = False


class Slot:
    """One table's ten clients, which open a new table when their game ends."""

    def __init__(self, run: ClientRun, number: int) -> None:
        self.run = run
        self.number = number
        self.seats: list[Seat] = []
        self.table_id = ""
        self.inflight: dict[int, tuple[float, str, set[int]]] = {}
        self.restarting = False
        self.games = 0  # tables this slot opened
        self.tasks: list[asyncio.Task[None]] = []


class ClientRun:
    """Every client of one client process, and what they measured."""

    def __init__(self, kind: str, ports: list[int], slots: list[int], seconds: float,
                 think: float) -> None:
        self.kind = kind
        self.think = think
        self.ports = ports
        """One per server process: the client of index i of a table uses ports[i % len]."""
        self.numbers = slots
        self.seconds = seconds
        self.stats = Stats()
        self.window = False
        self.acting = False
        self.slots: list[Slot] = []
        self.sent: dict[str, list[float]] = {}  # bare: message id -> [send time, receipts]
        self.https: list[httpx.AsyncClient] = []

    # -- set-up ------------------------------------------------------------

    async def setup(self) -> None:
        self.https = [httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=120,
                                        limits=httpx.Limits(max_connections=16))
                      for port in self.ports]
        gate = asyncio.Semaphore(8)

        async def one(number: int) -> Slot | None:
            async with gate:
                slot = Slot(self, number)
                if self.kind == "trusis":
                    try:
                        for index in range(SEATS):
                            reply = await self.post(index, "/api/guest", "",
                                                    {"name": f"T{number}.{index}"}, 200)
                            slot.seats.append(Seat(slot, index, reply["token"]))
                        await self.new_table(slot)
                    except RuntimeError as err:  # still refused: the run goes on without it
                        self.stats.lost_tables += 1
                        self.stats.lost_reason = str(err)
                        return None
                else:
                    slot.seats = [Seat(slot, index, "") for index in range(SEATS)]
                    slot.table_id = str(number)
                await self.connect(slot)
                return slot

        self.slots = [slot for slot in await asyncio.gather(*(one(n) for n in self.numbers))
                      if slot is not None]

    def http_(self, index: int) -> httpx.AsyncClient:
        """The HTTP client of server process `index` (modulo their number)."""
        assert self.https
        return self.https[index % len(self.https)]

    def port_(self, index: int) -> int:
        return self.ports[index % len(self.ports)]

    async def post(self, index: int, path: str, token: str, body: dict[str, Any],
                   expected: int) -> dict[str, Any]:
        """POST through server process `index`; a 503 (a game's owner not answering, as
        while a lease changes hands) is tried again a few times, as a client would, and
        counted."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        for attempt in range(SETUP_RETRIES + 1):
            reply = await self.http_(index).post(path, json=body, headers=headers)
            if reply.status_code == expected:
                answer: dict[str, Any] = reply.json()
                return answer
            if reply.status_code != 503 or attempt == SETUP_RETRIES:
                raise RuntimeError(f"POST {path} through process {index % len(self.ports) + 1}"
                                   f": {reply.status_code} {reply.text}")
            self.stats.retried += 1
            await asyncio.sleep(0.5 * (attempt + 1))
        raise AssertionError("unreachable")

    async def new_table(self, slot: Slot) -> None:
        """A table created and started through one process (the processes take turns,
        table after table and game after game), each seat taken through the process its
        client plays on."""
        through = slot.number + slot.games
        slot.games += 1
        host = slot.seats[0].token
        reply = await self.post(through, "/api/tables", host, {
            "name": f"load {slot.number}", "seats": SEATS, "day_seconds": 30,
            "night_seconds": 15}, 201)
        slot.table_id = reply["id"]
        for seat in slot.seats:
            reply = await self.post(seat.index, f"/api/tables/{slot.table_id}/seats",
                                    seat.token, {}, 200)
            seat.seat = reply["seat"]
        await self.post(through, f"/api/tables/{slot.table_id}/start", host, {}, 200)

    async def connect(self, slot: Slot) -> None:
        for seat in slot.seats:
            if self.kind == "trusis":
                seat.bot = create_bot("heuristic", seat.seat, random.randrange(1 << 30))
                seat.view, seat.news, seat.pending = None, [], None
                seat.phase, seat.waits, seat.acted, seat.force_pass = ("", 0), 0, 0, False
                seat.ws = await websockets.connect(
                    f"ws://{HOST}:{self.port_(seat.index)}/ws/tables/{slot.table_id}",
                    max_size=None,
                    compression=COMPRESSION, create_connection=CountingConnection,
                    additional_headers={"Authorization": f"Bearer {seat.token}"})
                await seat.ws.send(orjson.dumps({"type": "hello", "protocol": 1}).decode())
            else:
                seat.ws = await websockets.connect(
                    f"ws://{HOST}:{self.port_(seat.index)}/ws/{slot.table_id}",
                    max_size=None, create_connection=CountingConnection,
                    compression=COMPRESSION)
            slot.tasks.append(asyncio.create_task(self.read(seat)))

    async def restart(self, slot: Slot) -> None:
        """A new game on this table: a new table for the same ten clients."""
        await asyncio.sleep(0.05)
        for seat in slot.seats:
            if seat.ws is not None:
                await seat.ws.close()
        slot.tasks = []
        slot.inflight = {}
        try:
            await self.new_table(slot)
            await self.connect(slot)
        except Exception as err:
            self.stats.errors += 1
            self.stats.error = self.stats.error or f"a new game's set-up: {err!r}"[:300]
            return
        slot.restarting = False
        if self.acting:
            for seat in slot.seats:
                self.act(seat)

    # -- reading ------------------------------------------------------------

    async def read(self, seat: Seat) -> None:
        ws = seat.ws
        assert ws is not None
        try:
            async for frame in ws:
                self.take(seat, frame)
        except websockets.ConnectionClosed:
            pass
        except Exception as err:
            self.stats.errors += 1
            self.stats.error = self.stats.error or f"reading: {err!r}"[:300]

    def take(self, seat: Seat, frame: str | bytes) -> None:
        now = time.perf_counter()
        stats = self.stats
        message = orjson.loads(frame)
        if self.window:
            stats.frames += 1
            stats.bytes += len(frame)
            if self.kind == "trusis" and not stats.sample and message["type"] == "events":
                stats.sample = frame if isinstance(frame, str) else frame.decode()
        if self.kind == "bare":
            self.take_bare(seat, message, now)
            return
        kind = message["type"]
        if kind in ("snapshot", "events"):
            seat.view = message["view"]
            events = message.get("events", [])
            if kind == "snapshot":
                seat.news = list(events)
            else:
                seat.news.extend(events)
                if self.window:
                    self.broadcast_samples(seat, events, now)
            if seat.view["status"] == "finished":
                slot = seat.slot
                if self.acting and not slot.restarting and seat.index == 0:
                    slot.restarting = True
                    stats.games += 1
                    asyncio.get_running_loop().create_task(self.restart(slot))
                return
            self.act(seat)
        elif kind in ("ack", "refused") and message["id"] == seat.pending:
            if self.window:
                stats.acks.append(now - seat.sent_at)
                if kind == "ack":
                    stats.acked += 1
                else:
                    stats.refused += 1
            seat.pending = None
            if kind == "refused":
                seat.force_pass = True  # as the bot driver does: a refused bot passes
            self.act(seat)

    def broadcast_samples(self, seat: Seat, events: list[dict[str, Any]], now: float) -> None:
        inflight = seat.slot.inflight
        for event in events:
            causes = CAUSES.get(event["code"])
            if causes is None or event["params"].get("auto"):
                continue
            params = event["params"]
            actor = params.get("voter", params.get("seat"))
            sent = inflight.get(actor) if actor != seat.seat else None
            if sent is not None and sent[1] in causes and seat.seat not in sent[2]:
                sent[2].add(seat.seat)
                self.stats.broadcasts.append(now - sent[0])

    # -- acting -------------------------------------------------------------

    def act(self, seat: Seat) -> None:
        """The bot's next command for this seat, if it may act and has none in flight."""
        if not self.acting or seat.pending is not None or seat.view is None or \
                seat.ws is None or seat.slot.restarting:
            return
        view = seat.view
        if view["status"] != "running":
            return
        me = view["players"][seat.seat - 1]
        if not me["alive"] or me["passed"] or me["left"] or not self.thinks(seat):
            return
        phase = (view["phase"]["kind"], view["phase"]["number"])
        if phase != seat.phase:
            seat.phase, seat.waits, seat.acted, seat.force_pass = phase, 0, 0, False
        command: dict[str, Any]
        if seat.force_pass or seat.acted >= 12:
            command = {"do": "pass"}
        else:
            assert seat.bot is not None
            seat.bot.observe(view, seat.news)
            seat.news = []
            action = seat.bot.act()
            if action is None:
                seat.waits += 1
                if seat.waits < PATIENCE:
                    if seat.retry is None:
                        seat.retry = asyncio.get_running_loop().call_later(
                            0.3, self._retry, seat)
                    return
                command = {"do": "pass"}
            else:
                command = {"do": action.do}
                if action.do not in ("pass", "say", "leave"):
                    command["target"] = action.target
                if action.do == "illusion" and action.target is not None:
                    command["shown"] = action.shown
                if action.do == "say":
                    command["text"] = action.text
                    if action.to is not None:
                        command["to"] = action.to
        seat.acted += 1
        self.send(seat, command)

    def thinks(self, seat: Seat) -> bool:
        """--think: whether the seat has had its pause before this command (a pause of
        random length, the given mean, exponential) — then it decides on the view it has."""
        if self.think <= 0:
            return True
        if seat.thought:
            seat.thought = False
            return True
        if not seat.thinking:
            seat.thinking = True
            asyncio.get_running_loop().call_later(random.expovariate(1 / self.think),
                                                  self._thought, seat)
        return False

    def _thought(self, seat: Seat) -> None:
        seat.thinking = False
        seat.thought = True
        if self.kind == "bare":
            self.act_bare(seat)
        else:
            self.act(seat)

    def _retry(self, seat: Seat) -> None:
        seat.retry = None
        self.act(seat)

    def send(self, seat: Seat, command: dict[str, Any]) -> None:
        seat.count += 1
        client_id = f"{seat.slot.number}:{seat.seat}:{seat.count}"
        seat.pending = client_id
        seat.sent_at = time.perf_counter()
        seat.slot.inflight[seat.seat] = (seat.sent_at, command["do"], set())
        data = orjson.dumps({"type": "act", "id": client_id, "action": command}).decode()
        assert seat.ws is not None
        asyncio.get_running_loop().create_task(self._send(seat.ws, data))

    async def _send(self, ws: ClientConnection, data: str) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(data)

    # -- the bare server: one message in flight per client, no thinking --------

    def take_bare(self, seat: Seat, message: dict[str, Any], now: float) -> None:
        client_id = message["id"]
        if client_id == seat.pending:
            if self.window:
                self.stats.acks.append(now - seat.sent_at)
                self.stats.acked += 1
            seat.pending = None
            self.act_bare(seat)
            return
        sent = self.sent.get(client_id)
        if sent is None:
            return
        if self.window:
            self.stats.broadcasts.append(now - sent[0])
        sent[1] += 1
        if sent[1] >= SEATS - 1:
            del self.sent[client_id]

    def act_bare(self, seat: Seat) -> None:
        if not self.acting or seat.ws is None or not self.thinks(seat):
            return
        seat.count += 1
        client_id = f"{seat.slot.number}:{seat.seat}:{seat.count}"
        seat.pending = client_id
        seat.sent_at = time.perf_counter()
        self.sent[client_id] = [seat.sent_at, 0]
        target = (seat.seat + seat.count) % SEATS + 1
        data = orjson.dumps({"type": "act", "id": client_id,
                             "action": {"do": "vote", "target": target}}).decode()
        asyncio.get_running_loop().create_task(self._send(seat.ws, data))

    # -- the run --------------------------------------------------------------

    async def main(self, barrier: Barrier) -> dict[str, Any]:
        await self.setup()
        await asyncio.to_thread(barrier.wait)  # every process is set up
        cpu = time.process_time()
        wire = read_bytes()
        start = time.perf_counter()
        self.acting = self.window = True
        for slot in self.slots:
            for seat in slot.seats:
                if self.kind == "bare":
                    self.act_bare(seat)
                else:
                    self.act(seat)
        await asyncio.sleep(self.seconds)
        self.window = False
        self.acting = False
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu
        wire = read_bytes() - wire
        await asyncio.to_thread(barrier.wait)  # the window is over everywhere
        for slot in self.slots:
            for seat in slot.seats:
                if seat.ws is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(seat.ws.close(), 5)
        for http in self.https:
            await http.aclose()
        stats = self.stats
        return {"acks": stats.acks, "broadcasts": stats.broadcasts, "acked": stats.acked,
                "refused": stats.refused, "frames": stats.frames, "bytes": stats.bytes,
                "games": stats.games, "errors": stats.errors, "error": stats.error,
                "retried": stats.retried,
                "lost_tables": stats.lost_tables, "lost_reason": stats.lost_reason,
                "elapsed": elapsed, "cpu": cpu, "wire": wire,
                "sample": stats.sample}


def client_process(kind: str, ports: list[int], slots: list[int], seconds: float,
                   think: float, barrier: Barrier, results: Any) -> None:
    try:
        results.put(asyncio.run(ClientRun(kind, ports, slots, seconds, think).main(barrier)))
    except BaseException as err:  # tell the parent rather than leave it at the barrier
        barrier.abort()
        results.put({"error": repr(err)})


# -- the servers, and the run of each (in the parent) ------------------------------


POSTGRES = os.environ.get("TRUSIS_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
"""The PostgreSQL server to create the bench's databases on (as tests/serverproc.py)."""
HEALTH_FIGURES = ("loop_lag_ms", "send_queue", "commit_queue")
"""Figures of /api/health whose highest value in the window is printed (when a process
answers them): the ones that say a process is overloaded."""


@dataclass
class Servers:
    """The server processes of one run, and what they stand on."""

    name: str
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)
    database: str = ""  # a PostgreSQL database of the bench's own, dropped afterwards
    logs: list[Path] = field(default_factory=list)
    redis: subprocess.Popen[bytes] | None = None
    metrics_ports: list[int] = field(default_factory=list)  # with --metrics: scraped
    commands: list[list[str]] = field(default_factory=list)  # to start a process again
    env: dict[str, str] = field(default_factory=dict)


@functools.cache
def serve_options() -> frozenset[str]:
    """The options `trusis serve --help` lists: what this checkout's server accepts."""
    env = dict(os.environ, COLUMNS="200", TERM="dumb", NO_COLOR="1")
    out = subprocess.run([sys.executable, "-m", "trusis", "serve", "--help"], env=env,
                         capture_output=True, text=True, check=True).stdout
    return frozenset(re.findall(r"(?<![\w-])--[a-z][a-z-]*", out))


async def _postgres(statement: str) -> None:
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(POSTGRES, timeout=10)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def new_postgres() -> str:
    """A fresh PostgreSQL database on the machine's server: its URL."""
    name = f"trusis_load_{secrets.token_hex(6)}"
    try:
        asyncio.run(_postgres(f'CREATE DATABASE "{name}"'))
    except (OSError, ImportError) as err:
        raise SystemExit(f"no PostgreSQL at {POSTGRES} (TRUSIS_TEST_POSTGRES): {err!r}") \
            from err
    return f"{POSTGRES.rsplit('/', 1)[0]}/{name}"


def drop_postgres(url: str) -> None:
    asyncio.run(_postgres(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)'))


def start_redis(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A redis-server of the bench's own on a spare port, nothing kept on disk."""
    binary = shutil.which("redis-server") or "/usr/bin/redis-server"
    if not Path(binary).exists():
        raise SystemExit("several processes need Redis: install redis-server")
    port = free_port()
    log = open(folder / "redis.log", "ab")  # noqa: SIM115 - the child keeps it
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", HOST, "--save", "",
                             "--appendonly", "no", "--dir", str(folder)],
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"redis-server exited:\n{tail(folder / 'redis.log')}")
        with contextlib.suppress(OSError), socket.create_connection((HOST, port), 1) as sock:
            sock.sendall(b"PING\r\n")
            if sock.recv(16).startswith(b"+PONG"):
                return proc, f"redis://{HOST}:{port}/0"
        time.sleep(0.05)
    proc.kill()
    raise SystemExit("redis-server did not answer")


def tail(path: Path, lines: int = 30) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    return ""


def wait_healthy(proc: subprocess.Popen[bytes], port: int, path: str, log: Path,
                 what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the {what} exited:\n{tail(log)}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://{HOST}:{port}{path}", timeout=1).status_code == 200:
                return
        time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"the {what} did not answer:\n{tail(log)}")


def start_trusis(size: int | None, folder: Path, profile: str | None,
                 metrics: bool = False, compression: Compression = DEFAULT_COMPRESSION,
                 pace: float = 0.0, gc_file: Path | None = None) -> Servers:
    """`trusis serve`: without a size, one process on a fresh SQLite file (as a user runs
    it by default); with one, `size` processes on one fresh PostgreSQL database and, if
    the server has --redis, one Redis of the bench's own. The processes start one after
    the other (the first migrates the database); all share the secret that signs tokens."""
    servers = Servers(name="")
    options = serve_options()
    env = dict(os.environ, PYTHONUNBUFFERED="1", TRUSIS_SECRET=secrets.token_urlsafe(32),
               XDG_DATA_HOME=str(folder / "data"))
    common = ["--host", HOST, "--bot-pace", f"{pace:g}", "--log-level", "warning"]
    if "--ws-compression" in options:  # the bare server is given the same
        common += ["--ws-compression", compression]
    if "--limit" in options:  # every client comes from 127.0.0.1: what one address may
        # do is the whole bench's (docs/deploy.md, "Limits per player and per address")
        for name in ("guests_per_address_hour", "open_tables_per_address",
                     "sockets_per_address"):
            common += ["--limit", f"{name}=0"]
    try:
        if size is None:
            common += ["--database", f"sqlite:///{folder / 'load.db'}"]
            servers.name = "trusis serve (1 process, SQLite)"
            size = 1
        else:
            servers.database = new_postgres()
            common += ["--database", servers.database]
            store = "PostgreSQL"
            if "--redis" in options:
                servers.redis, redis_url = start_redis(folder)
                common += ["--redis", redis_url]
                store += " + Redis"
            servers.name = f"trusis serve ({size} process{'es' * (size > 1)}, {store})"
        if metrics:
            servers.name += ", metrics scraped every 1 s"
        for index in range(size):
            port = free_port()
            node = ["--node", f"load{index + 1}"] if "--node" in options and \
                servers.redis is not None else []
            scraped = []
            if metrics:
                servers.metrics_ports.append(free_port())
                scraped = ["--metrics-port", str(servers.metrics_ports[-1])]
            watched = gc_file is not None and index == 0
            if watched:
                env["GCWATCH_FILE"] = str(gc_file)
            command = [sys.executable,
                       *([str(BENCH / "gcwatch.py")] if watched else []),
                       *(["-m", "cProfile", "-o", profile] if profile and index == 0 else []),
                       "-m", "trusis", "serve", "--port", str(port), *common, *node, *scraped]
            log_path = folder / f"trusis-{size}-{index + 1}.log"
            log = open(log_path, "ab")  # noqa: SIM115 - the child keeps it
            proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
            servers.commands.append(command)
            servers.env = env
            servers.procs.append(proc)
            servers.ports.append(port)
            servers.logs.append(log_path)
            wait_healthy(proc, port, "/api/health", log_path,
                         f"trusis server (process {index + 1} of {size})")
    except BaseException:
        stop_servers(servers)
        raise
    return servers


def start_bare(folder: Path, pad: int, compression: Compression) -> Servers:
    env = dict(os.environ, PYTHONUNBUFFERED="1", BARE_PAD=str(pad))
    if (folder / "filler.txt").exists():
        env["BARE_FILLER"] = str(folder / "filler.txt")
    port = free_port()
    log_path = folder / "bare.log"
    log = open(log_path, "ab")  # noqa: SIM115 - the child keeps it
    proc = subprocess.Popen([sys.executable, str(BENCH / "bare.py"), "--port", str(port),
                             "--compression", compression],
                            stdout=log, stderr=subprocess.STDOUT, env=env)
    servers = Servers(name="bare", procs=[proc], ports=[port])
    try:
        wait_healthy(proc, port, "/health", log_path, "bare server")
    except BaseException:
        stop_servers(servers)
        raise
    return servers


def stop_servers(servers: Servers) -> None:
    """A clean stop of every process (SIGINT, so that cProfile writes its file), then
    Redis, then the database."""
    for proc in servers.procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    for proc in servers.procs:
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if servers.redis is not None:
        servers.redis.terminate()
        try:
            servers.redis.wait(10)
        except subprocess.TimeoutExpired:
            servers.redis.kill()
            servers.redis.wait()
    if servers.database:
        drop_postgres(servers.database)


class HealthWatch:
    """Every second of the window, each process's /api/health: the highest of the
    figures that say it is overloaded, and its last answer."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.peaks: list[dict[str, float]] = [{} for _ in ports]
        self.last: list[dict[str, Any]] = [{} for _ in ports]
        self.failures = [0 for _ in ports]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)

    def watch(self) -> None:
        with httpx.Client(timeout=2) as http:
            while not self.stop.wait(1.0):
                for index, port in enumerate(self.ports):
                    try:
                        reply = http.get(f"http://{HOST}:{port}/api/health")
                        answer = reply.json()
                    except (httpx.HTTPError, ValueError):
                        self.failures[index] += 1
                        continue
                    if reply.status_code != 200:
                        self.failures[index] += 1
                    self.last[index] = answer
                    for key in HEALTH_FIGURES:
                        if isinstance(answer.get(key), int | float):
                            peak = self.peaks[index]
                            peak[key] = max(peak.get(key, 0.0), float(answer[key]))

    def __enter__(self) -> HealthWatch:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join(10)


class MetricsScrape:
    """Every second of the window, each process's /metrics, as a Prometheus would: how
    long a scrape took, and the last `trusis_actions_total` (against the clients' count)."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.times: list[float] = []
        self.actions = [0.0 for _ in ports]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.watch, daemon=True)

    def watch(self) -> None:
        with httpx.Client(timeout=5) as http:
            while not self.stop.wait(1.0):
                for index, port in enumerate(self.ports):
                    began = time.perf_counter()
                    with contextlib.suppress(httpx.HTTPError):
                        text = http.get(f"http://{HOST}:{port}/metrics").text
                        self.times.append(time.perf_counter() - began)
                        found = re.search(r"^trusis_actions_total (\S+)$", text, re.M)
                        if found:
                            self.actions[index] = float(found.group(1))

    def __enter__(self) -> MetricsScrape:
        if self.ports:
            self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        if self.ports:
            self.thread.join(10)


def meet(barrier: Barrier, results: Any, servers: Servers) -> None:
    """The parent's turn at the barrier; a client process that failed aborts it, and
    then what it said (and the state of the servers) is the error."""
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        said = []
        with contextlib.suppress(Exception):
            while True:
                said.append(results.get(timeout=5).get("error"))
        exited = [f"process {i + 1} exited with {proc.returncode}"
                  for i, proc in enumerate(servers.procs) if proc.poll() is not None]
        logs = "".join(f"\n-- the end of {path.name}:\n{tail(path, 15)}"
                       for path in servers.logs)
        raise SystemExit(f"a client process failed: {said} {exited}{logs}") from None


def run(kind: str, args: argparse.Namespace, folder: Path, pad: int = 0,
        size: int | None = None, metrics: bool = False,
        pin: str | None = None) -> dict[str, Any]:
    profile = profile_file(args.profile, size) if args.profile else None
    gc_file = folder / f"gc-{size}-{secrets.token_hex(4)}.json" \
        if args.gc and kind == "trusis" else None
    os.environ.pop("GCWATCH_THRESHOLD", None)
    if pin:  # bench/gcwatch.py keeps these thresholds whatever the server sets
        os.environ["GCWATCH_THRESHOLD"] = pin
    try:
        servers = start_trusis(size, folder, profile, metrics, args.compression,
                               gc_file=gc_file) \
            if kind == "trusis" else start_bare(folder, pad, args.compression)
    finally:
        os.environ.pop("GCWATCH_THRESHOLD", None)
    if pin:
        servers.name += f", collector thresholds pinned at {pin}"
    window = (0.0, 0.0)
    pids = [proc.pid for proc in servers.procs]
    try:
        rss_before = [rss_kib(pid) for pid in pids]
        context = mp.get_context("fork")
        barrier = context.Barrier(args.client_processes + 1, timeout=900)
        results = context.Queue()
        numbers = list(range(args.tables))
        workers = [context.Process(target=client_process, daemon=True, args=(
            kind, servers.ports, numbers[i::args.client_processes], args.seconds, args.think,
            barrier, results))
            for i in range(args.client_processes)]
        for worker in workers:
            worker.start()
        set_up = time.perf_counter()
        meet(barrier, results, servers)
        set_up = time.perf_counter() - set_up
        cpu = [cpu_seconds(pid) for pid in pids]
        redis_cpu = cpu_seconds(servers.redis.pid) if servers.redis else 0.0
        pg_cpu = postgres_cpu() if servers.database else 0.0
        busy = machine_busy()
        spy = None
        if args.spy:
            spy = subprocess.Popen([str(Path(sys.executable).with_name("py-spy")), "record",
                                    "--pid", str(pids[0]), "--rate", "250", "--format", "raw",
                                    "--duration", str(int(args.seconds)),
                                    "--output", spy_file(args.spy, kind, size)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with HealthWatch(servers.ports if kind == "trusis" else []) as health, \
                MetricsScrape(servers.metrics_ports) as scrapes:
            began = time.perf_counter()
            meet(barrier, results, servers)
            window = (began, time.perf_counter())
        if spy is not None:
            spy.wait(60)
        cpu = [cpu_seconds(pid) - before for pid, before in zip(pids, cpu, strict=True)]
        if servers.redis is not None:
            redis_cpu = cpu_seconds(servers.redis.pid) - redis_cpu
        if servers.database:
            pg_cpu = max(0.0, postgres_cpu() - pg_cpu)
        now = machine_busy()
        busy = (now[0] - busy[0], now[1] - busy[1])
        rss_after = [rss_kib(pid) for pid in pids]
        parts = [results.get(timeout=120) for _ in workers]
        for worker in workers:
            worker.join(30)
    finally:
        stop_servers(servers)
    failed = [p["error"] for p in parts if "games" not in p]  # a client process that raised
    if failed:
        raise SystemExit(f"a client process failed: {failed}")
    total: dict[str, Any] = {"acks": [], "broadcasts": [], "set_up": set_up,
                             "server_cpu": sum(cpu), "process_cpu": cpu,
                             "redis_cpu": redis_cpu, "redis": servers.redis is not None,
                             "postgres_cpu": pg_cpu, "postgres": bool(servers.database),
                             "machine_busy": busy[0], "machine_total": busy[1],
                             "rss_before": sum(rss_before), "rss_after": sum(rss_after),
                             "name": servers.name, "peaks": health.peaks,
                             "health": health.last, "unhealthy": health.failures,
                             "scrapes": scrapes.times, "scraped_actions": sum(scrapes.actions)}
    for part in parts:
        total["acks"] += part["acks"]
        total["broadcasts"] += part["broadcasts"]
        for key in ("acked", "refused", "frames", "bytes", "games", "errors", "retried",
                    "lost_tables", "cpu", "wire"):
            total[key] = total.get(key, 0) + part[key]
    total["elapsed"] = max(p["elapsed"] for p in parts)
    total["think"] = args.think
    total["gc"] = collections(gc_file, window) if gc_file is not None else None
    total["sample"] = next((p["sample"] for p in parts if p["sample"]), "")
    total["error"] = next((p["error"] for p in parts if p["error"]), "")
    total["lost_reason"] = next((p["lost_reason"] for p in parts if p["lost_reason"]), "")
    return total


def report(name: str, unit: str, r: dict[str, Any], tables: int) -> float:
    elapsed = r["elapsed"]
    rate = float(r["acked"] / elapsed)
    ms = 1000.0
    per_table = (r["rss_after"] - r["rss_before"]) / tables
    print(f"{name}: {tables} tables x {SEATS} clients, {elapsed:.1f} s "
          f"(set-up {r['set_up']:.1f} s), think {r['think']:g} s")
    print(f"  {rate:10.0f} {unit}/s acknowledged ({r['refused']} refused, "
          f"{r['games']} games ended, {r['errors']} client errors"
          + (f", {r['retried']} HTTP requests tried again after a 503" if r["retried"] else "")
          + ")")
    if r["errors"]:
        print(f"  the first client error: {r['error']}")
    if r["lost_tables"]:
        print(f"  {r['lost_tables']} of the {tables} tables could not be set up and are left "
              f"out; the last refusal: {r['lost_reason'][:300]}")
    print(f"  ack latency        p50 {percentile(r['acks'], 50) * ms:7.1f} ms   "
          f"p99 {percentile(r['acks'], 99) * ms:7.1f} ms   ({len(r['acks'])} samples)")
    print(f"  broadcast latency  p50 {percentile(r['broadcasts'], 50) * ms:7.1f} ms   "
          f"p99 {percentile(r['broadcasts'], 99) * ms:7.1f} ms   "
          f"({len(r['broadcasts'])} samples)")
    print(f"  frames out {r['frames'] / elapsed:9.0f}/s, "
          f"{r['bytes'] / max(1, r['frames']):6.0f} bytes each; on the wire "
          f"{r['wire'] / max(1, r['frames']):6.0f} bytes each "
          f"({r['wire'] / max(1, r['acked']) / 1024:.1f} KiB per {unit[:-1]}, "
          f"{r['wire'] / elapsed / 1024 ** 2:.1f} MiB/s)")
    others = r["machine_busy"] - r["server_cpu"] - r["cpu"] - r["redis_cpu"] - \
        r["postgres_cpu"]
    cores = r["machine_total"] / elapsed
    print(f"  server CPU per {unit[:-1]} {r['server_cpu'] / max(1, r['acked']) * ms:.2f} ms "
          f"(per frame out {r['server_cpu'] / max(1, r['frames']) * 1e6:.0f} us)")
    print(f"  server CPU {r['server_cpu'] / elapsed * 100:5.0f}%, client CPU "
          f"{r['cpu'] / elapsed * 100:5.0f}% (of one core); "
          + (f"PostgreSQL {r['postgres_cpu'] / elapsed * 100:.0f}%, " if r["postgres"] else "")
          + (f"redis-server {r['redis_cpu'] / elapsed * 100:.0f}%; " if r["redis"] else "")
          + "other processes on this machine "
          f"{max(0.0, others) / elapsed * 100:.0f}% (of {cores:.0f} cores)")
    print(f"  server RSS {r['rss_before'] / 1024:.0f} MiB -> {r['rss_after'] / 1024:.0f} MiB: "
          f"{per_table:.0f} KiB per table")
    if r.get("gc"):
        print_collections(r["gc"])
    if r.get("scrapes"):
        print(f"  /metrics scraped {len(r['scrapes'])} times, p50 "
              f"{percentile(r['scrapes'], 50) * ms:.1f} ms, p99 "
              f"{percentile(r['scrapes'], 99) * ms:.1f} ms; trusis_actions_total "
              f"{r['scraped_actions']:.0f} at the last scrape")
    if len(r["process_cpu"]) > 1 or any(r["peaks"]):
        for index, cpu in enumerate(r["process_cpu"]):
            health = r["health"][index] if index < len(r["health"]) else {}
            peaks = r["peaks"][index] if index < len(r["peaks"]) else {}
            shown = [f"CPU {cpu / elapsed * 100:.0f}%"]
            shown += [f"{key} max {value:g}" for key, value in peaks.items()]
            shown += [f"{key} {health[key]}" for key in ("owned", "followed", "clients",
                                                         "redis") if key in health]
            if r["unhealthy"][index]:
                shown.append(f"{r['unhealthy'][index]} health checks failed")
            print(f"  process {index + 1}: " + ", ".join(shown))
    return rate


def collections(path: Path, window: tuple[float, float]) -> dict[str, Any]:
    """The collector's pauses in the window, by generation (bench/gcwatch.py's file: its
    times are perf_counter's, CLOCK_MONOTONIC, the same in every process)."""
    data = orjson.loads(path.read_bytes()) if path.exists() else {"pauses": []}
    pauses = [(g, s, n, c) for when, g, s, n, c in data["pauses"]
              if window[0] <= when <= window[1]]
    by = {g: sorted(s for gen, s, _, _ in pauses if gen == g) for g in (0, 1, 2)}
    freed = {g: sum(n for gen, _, n, _ in pauses if gen == g) for g in (0, 1, 2)}
    cpu = {g: max((c for gen, _, _, c in pauses if gen == g), default=0.0) for g in (0, 1, 2)}
    return {"by": by, "freed": freed, "cpu": cpu, "threshold": data.get("threshold"),
            "frozen": data.get("frozen"), "seconds": window[1] - window[0]}


def print_collections(found: dict[str, Any]) -> None:
    ms = 1000.0
    parts = []
    for gen, pauses in found["by"].items():
        if pauses:
            parts.append(f"gen{gen} {len(pauses)}x, total {sum(pauses) * ms:.0f} ms, p99 "
                         f"{percentile(pauses, 99) * ms:.1f} ms, max {pauses[-1] * ms:.1f} ms "
                         f"(CPU {found['cpu'][gen] * ms:.1f} ms), "
                         f"{found['freed'][gen]} objects freed")
    print(f"  collector (threshold {found['threshold']}, {found['frozen']} objects frozen): "
          + ("; ".join(parts) or "no collection") + " in the window")


def figures(runs: dict[str, dict[str, Any]], bare: dict[str, Any] | None,
             args: argparse.Namespace, load_before: str) -> None:
    """Issue 19's table, for what this run measured, with the machine's load beside it."""
    print(f"\nfigures ({args.tables} tables x {SEATS} clients, think {args.think:g} s, "
          f"compression {args.compression}, {args.seconds:g} s):")
    print(f"  machine: before {load_before}; after {machine_load()}")

    def rate(r: dict[str, Any]) -> float:
        return float(r["acked"]) / r["elapsed"]

    def per_table(r: dict[str, Any]) -> float:
        return float(r["rss_after"] - r["rss_before"]) / args.tables

    for name, game in runs.items():
        print(f"  {name}:")
        if bare is not None and args.think == 0:
            print(f"    throughput {rate(game) / rate(bare):.2f}x the bare server "
                  f"({rate(game):.0f} vs {rate(bare):.0f}/s)")
        print(f"    ack p99 {percentile(game['acks'], 99) * 1000:.0f} ms, broadcast p99 "
              f"{percentile(game['broadcasts'], 99) * 1000:.0f} ms")
        print(f"    server CPU per action {game['server_cpu'] / max(1, game['acked']) * 1000:.2f}"
              f" ms")
        memory = f"    memory per table of {SEATS} clients {per_table(game):.0f} KiB"
        if bare is not None:
            memory += (f", the bare server's {per_table(bare):.0f} KiB "
                       f"({per_table(game) / max(1.0, per_table(bare)):.2f}x)")
        print(memory)
        print(f"    on the wire {game['wire'] / max(1, game['acked']) / 1024:.1f} KiB per action")


def metrics_cost(plain: dict[str, Any], metered: dict[str, Any]) -> str:
    """The line that says what metrics cost: throughput and CPU per action, with over
    without, from two runs of the same size in the same bench run."""
    def rate(r: dict[str, Any]) -> float:
        return float(r["acked"]) / r["elapsed"]

    def cpu(r: dict[str, Any]) -> float:
        return float(r["server_cpu"]) / max(1, r["acked"])

    return (f"metrics: with/without {rate(metered) / rate(plain):.2f}x the throughput, "
            f"{cpu(metered) / cpu(plain):.2f}x the server CPU per action "
            f"({cpu(plain) * 1000:.2f} ms -> {cpu(metered) * 1000:.2f} ms), "
            f"ack p50 {percentile(plain['acks'], 50) * 1000:.0f} ms -> "
            f"{percentile(metered['acks'], 50) * 1000:.0f} ms")


def print_profile(path: str, top: int = 35) -> None:
    stats = pstats.Stats(path)
    print(f"\nwhere the game server's time goes (cProfile, {path}):")
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)


def spy_file(path: str, kind: str, size: int | None = None) -> str:
    """Where py-spy writes: FILE for the game server on SQLite, FILE.2p for its first
    process of 2, FILE.bare for the bare server."""
    if kind != "trusis":
        return f"{path}.bare"
    return path if size is None else f"{path}.{size}p"


def profile_file(path: str, size: int | None) -> str:
    """Where cProfile writes for one size (the first process of several)."""
    return path if size is None else f"{path}.{size}p"


IDLE = ("Runner.run (runners.py", "_connection_worker_thread (core.py:59)",
        "_worker (thread.py:81)")
"""Leaves that py-spy shows for a thread waiting (the loop's poll, idle worker threads)."""


def print_spy(path: str, name: str, top: int = 30) -> None:
    """py-spy's samples (collapsed stacks) of the event loop's thread, waits left out:
    the functions it was running, and the share of samples each was on the stack for."""
    own: dict[str, int] = {}
    inside: dict[str, int] = {}
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = [f.split(" (")[0] + " (" + f.split(" (")[-1].rsplit("/", 1)[-1]
                  for f in stack.split(";")] if stack else []
        if not frames or "Thread._bootstrap" in stack or frames[-1].startswith(IDLE):
            continue
        n = int(count)
        total += n
        own[frames[-1]] = own.get(frames[-1], 0) + n
        for frame in set(frames):
            inside[frame] = inside.get(frame, 0) + n
    print(f"\nwhere {name}'s event loop spends its time (py-spy, {total} busy samples):")
    print("  own time:")
    for frame, n in sorted(own.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {100 * n / total:5.1f}%  {frame}")
    print("  on the stack (inclusive):")
    for frame, n in sorted(inside.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {100 * n / total:5.1f}%  {frame}")


def sizes(text: str) -> list[int]:
    """--processes: one size, or several separated by commas (`1,2`)."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("server process counts, e.g. 2 or 1,2") from None
    if not values or not all(1 <= v <= 8 for v in values):
        raise argparse.ArgumentTypeError("server process counts 1..8, e.g. 2 or 1,2")
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--processes", type=sizes, metavar="N[,N...]",
                        help="run `trusis serve` as N processes on one fresh PostgreSQL "
                             "database and one Redis, the clients of every table spread "
                             "across them; 1,2: one size after the other (default: one "
                             "process on SQLite)")
    parser.add_argument("--client-processes", type=int, default=1, metavar="P",
                        help="client processes (tables split between them)")
    parser.add_argument("--think", type=float, default=0.0, metavar="SECONDS",
                        help="mean pause of each client before each command (exponential); "
                             "0: as fast as the server answers, its throughput")
    parser.add_argument("--profile", metavar="FILE", help="cProfile the game server into FILE")
    parser.add_argument("--spy", metavar="FILE", help="py-spy the game server into FILE "
                        "(pip install py-spy into .venv)")
    parser.add_argument("--only", choices=("trusis", "bare"), help="run one server only")
    parser.add_argument("--compression", choices=COMPRESSIONS, default=DEFAULT_COMPRESSION,
                        help="the servers' WebSocket per-message deflate, the same for both "
                             "(`trusis serve --ws-compression`; the clients always offer it, "
                             f"as browsers do; default {DEFAULT_COMPRESSION}, the server's)")
    parser.add_argument("--metrics", action="store_true",
                        help="run each size of the game server twice, without metrics and "
                             "with /metrics scraped every second, and print what they cost")
    parser.add_argument("--gc", action="store_true",
                        help="time the game server's garbage collections (bench/gcwatch.py) "
                             "and print their pauses in the window")
    parser.add_argument("--gc-pin", metavar="A,B,C",
                        help="with --gc: run the game server first with the collector's "
                             "thresholds pinned at A,B,C (Python's default: 700,10,10), "
                             "then as it sets them itself")
    parser.add_argument("--restart", type=int, metavar="N",
                        help="instead: N running 10-seat games (bots), --seconds of play, "
                             "SIGKILL, and the time until every game serves again "
                             "(bench/restart.py)")
    parser.add_argument("--restart-pace", type=float, default=5.0, metavar="PACE",
                        help="with --restart: the bots' pace (1: a human's; default 5, "
                             "so that games are in mid-play when the server is killed)")
    args = parser.parse_args()
    if args.gc_pin and not re.fullmatch(r"\d+,\d+,\d+", args.gc_pin):
        parser.error("--gc-pin A,B,C: three whole numbers, e.g. 700,10,10")
    if args.gc_pin:
        args.gc = True
    if args.restart is not None:
        if not 1 <= args.restart <= 5000:
            parser.error("--restart 1..5000")
        from restart import restart_run

        with tempfile.TemporaryDirectory(prefix="trusis-restart-") as tmp:
            restart_run(args, Path(tmp))
        return
    if not 1 <= args.tables <= MAX_TABLES or not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--tables 1..{MAX_TABLES}, --seconds up to {MAX_SECONDS}")
    if not 1 <= args.client_processes <= 8:
        parser.error("--client-processes 1..8")
    counts: list[int | None] = list(args.processes) if args.processes else [None]
    if args.only != "bare" and any(n is not None and n > 1 for n in counts) and \
            "--redis" not in serve_options():
        print("note: this `trusis serve` has no --redis yet: several processes cannot share "
              "games, so only the sizes of 1 process run (on PostgreSQL)")
        counts = [n for n in counts if n is None or n == 1]
    rates: dict[str, float] = {}
    costs: list[str] = []
    runs: dict[str, dict[str, Any]] = {}
    load_before = machine_load()
    print(f"{load_before}; compression {args.compression}")
    with tempfile.TemporaryDirectory(prefix="trusis-load-") as tmp:
        folder = Path(tmp)
        pad = 1500
        if args.only != "bare":
            for count in counts:
                if args.gc_pin:  # the server as before, then as it is, in the same run
                    pinned = run("trusis", args, folder, size=count, pin=args.gc_pin)
                    report(pinned["name"], "actions", pinned, args.tables)
                    runs[pinned["name"]] = pinned
                game = run("trusis", args, folder, size=count)
                rates[game["name"]] = report(game["name"], "actions", game, args.tables)
                runs[game["name"]] = game
                if not (folder / "filler.txt").exists() and game["sample"]:
                    pad = int(game["bytes"] / max(1, game["frames"]))
                    (folder / "filler.txt").write_text(game["sample"])
                if args.metrics:
                    metered = run("trusis", args, folder, size=count, metrics=True)
                    report(metered["name"], "actions", metered, args.tables)
                    costs.append(metrics_cost(game, metered))
        bare_rate = None
        bare = None
        if args.only != "trusis":
            bare = run("bare", args, folder, pad)
            bare_rate = report(f"bare broadcast (1 process, frames padded to {pad} bytes of "
                               "game text)", "messages", bare, args.tables)
        if rates and bare_rate and args.think == 0:
            for name, rate in rates.items():
                print(f"ratio: {name} carries {rate / bare_rate:.2f}x the bare transport's "
                      f"throughput")
        elif rates and bare_rate:
            print("paced (--think): both servers carry the load offered; compare latencies "
                  "(run with --think 0 for the throughput ratio)")
        if len(rates) > 1 and args.think == 0:
            (first, base), *others = rates.items()
            for name, rate in others:
                print(f"scaling: {name} carries {rate / base:.2f}x {first}")
        for line in costs:
            print(line)
        figures(runs, bare, args, load_before)
    if args.profile:
        for count in counts:
            if Path(profile_file(args.profile, count)).exists():
                print_profile(profile_file(args.profile, count))
    if args.spy:
        for count in counts:
            path = spy_file(args.spy, "trusis", count)
            if Path(path).exists():
                print_spy(path, "trusis serve" + (f" ({count} processes, the first)"
                                                  if count else ""))
        if Path(spy_file(args.spy, "bare")).exists():
            print_spy(spy_file(args.spy, "bare"), "the bare server")


if __name__ == "__main__":
    main()
