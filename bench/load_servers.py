"""bench/load.py's servers: starting and stopping `trusis serve` (one process or several, on
SQLite or PostgreSQL and Redis) and the bare server, and what is read of them and the machine
(CPU, RSS, /api/health, /metrics). bench/restart.py starts its server with these too.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from trusis.server.connections.transport import DEFAULT_COMPRESSION, Compression

HOST = "127.0.0.1"
BENCH = Path(__file__).resolve().parent


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



def machine_load() -> str:
    """The machine's load averages and CPU count, printed beside every figure."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


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
    sqlite: Path | None = None  # or the SQLite file of this run alone
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
                 pace: float = 0.0, gc_file: Path | None = None,
                 log_level: str = "warning") -> Servers:
    """`trusis serve`: without a size, one process on a fresh SQLite file (as a user runs
    it by default); with one, `size` processes on one fresh PostgreSQL database and, if
    the server has --redis, one Redis of the bench's own. The processes start one after
    the other (the first migrates the database); all share the secret that signs tokens."""
    servers = Servers(name="")
    options = serve_options()
    env = dict(os.environ, PYTHONUNBUFFERED="1", TRUSIS_SECRET=secrets.token_urlsafe(32),
               XDG_DATA_HOME=str(folder / "data"))
    common = ["--host", HOST, "--bot-pace", f"{pace:g}", "--log-level", log_level]
    if "--ws-compression" in options:  # the bare server is given the same
        common += ["--ws-compression", compression]
    if "--limit" in options:  # every client comes from 127.0.0.1: what one address may
        # do is the whole bench's (docs/deploy.md, "Limits per player and per address")
        for name in ("guests_per_address_hour", "open_tables_per_address",
                     "running_tables_per_address", "sockets_per_address",
                     "tables_per_address_hour", "tables_per_player_hour"):
            common += ["--limit", f"{name}=0"]
    try:
        if size is None:
            # A file of this run's own: a second run in the same folder (`--metrics`,
            # `--gc-pin`) would otherwise restore the first one's games and play them too.
            servers.sqlite = folder / f"load-{secrets.token_hex(4)}.db"
            common += ["--database", f"sqlite:///{servers.sqlite}"]
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


WINDOWED = {"trusis_ack_seconds": "ack", "trusis_commit_seconds": "group commit",
            "trusis_store_wait_seconds": "an action's store wait",
            "trusis_broadcast_seconds": "broadcast wait", "trusis_loop_lag_seconds": "loop lag"}
"""The histograms whose window-only quantiles the report prints (the acks' answered "ack")."""

Buckets = dict[str, dict[float, float]]  # histogram -> upper bound -> cumulative count


def histogram_buckets(text: str) -> Buckets:
    """The cumulative buckets of WINDOWED in one /metrics text (acks answered "ack" only)."""
    out: Buckets = {name: {} for name in WINDOWED}
    for family in text_string_to_metric_families(text):
        if family.name not in WINDOWED:
            continue
        for sample in family.samples:
            if sample.name.endswith("_bucket") and sample.labels.get("answer", "ack") == "ack":
                bound = float(sample.labels["le"])
                out[family.name][bound] = out[family.name].get(bound, 0.0) + sample.value
    return out


def bucket_quantile(q: float, buckets: dict[float, float]) -> float | None:
    """Prometheus's histogram_quantile: linear within the bucket the rank falls in."""
    bounds = sorted(buckets)
    if not bounds or buckets[bounds[-1]] <= 0:
        return None
    rank = q * buckets[bounds[-1]]
    lower, below = 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if bound == float("inf"):
                return lower  # above the last finite bound: its bound, as Prometheus says
            return lower + (bound - lower) * (rank - below) / max(count - below, 1e-12)
        lower, below = bound, count
    return lower


class MetricsScrape:
    """Every second of the window, each process's /metrics, as a Prometheus would: how
    long a scrape took, the last `trusis_actions_total` (against the clients' count), and
    the latency histograms at the first and the last scrape — their difference is the
    window's alone, as the server measured it, beside what the clients measured."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.times: list[float] = []
        self.actions = [0.0 for _ in ports]
        self.first: list[Buckets | None] = [None for _ in ports]
        self.last: list[Buckets | None] = [None for _ in ports]
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
                        self.last[index] = histogram_buckets(text)
                        if self.first[index] is None:
                            self.first[index] = self.last[index]

    def window_quantiles(self) -> dict[str, tuple[float, float]]:
        """Each of WINDOWED's (p50, p99) in seconds, between the first and the last scrape,
        every process together; empty before two scrapes."""
        out: dict[str, tuple[float, float]] = {}
        for name, label in WINDOWED.items():
            window: dict[float, float] = {}
            for first, last in zip(self.first, self.last, strict=True):
                if first is None or last is None or first is last:
                    continue
                for bound, count in last[name].items():
                    window[bound] = window.get(bound, 0.0) + count - first[name].get(bound, 0.0)
            p50, p99 = bucket_quantile(0.5, window), bucket_quantile(0.99, window)
            if p50 is not None and p99 is not None:
                out[label] = (p50, p99)
        return out

    def __enter__(self) -> MetricsScrape:
        if self.ports:
            self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        if self.ports:
            self.thread.join(10)


