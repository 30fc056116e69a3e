"""Load: N tables x 10 protocol clients on loopback, against `trusis serve` and a bare server.

Usage: .venv/bin/python bench/load.py --tables N --seconds S [--processes N[,N...]]
                                      [--client-processes P] [--think T]
                                      [--spy FILE | --profile FILE] [--only trusis|bare]
                                      [--metrics] [--compression off|deflate|wide]
                                      [--gc] [--gc-pin A,B,C] [--warmup S]
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
command, so that the latencies are those of a server carrying that load. The
clients wait through the set-up, so when they begin every one has its first move
to make at once — 10,000 clients at `--think 5` send 2,000 commands a second for
the first seconds, three times what the game server carries at 1,000 tables — a
burst no steady pace has: the window therefore begins after `--warmup S` seconds
of play (by default three pauses, 15 s at `--think 5`; none with `--think 0`),
whose acknowledgement p50 and p99 are printed apart, as what a synchronised start
(a restart, say) costs.

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
(`pip install py-spy` into .venv; 100 a second, without stopping the server: a
sampler that stops it, as py-spy does by default, made the latencies its own)
and prints where their event loops spend their time; `--profile FILE` runs the
game server under cProfile instead (it slows the server). With PostgreSQL, the
CPU of the machine's PostgreSQL processes is shown apart. It prints figures and
never asserts them.

`--metrics` says what the Prometheus metrics cost (docs/deploy.md, "Metrics"): each
size of the game server runs twice in the same run, first as it is by default (no
metrics), then with `--metrics-port` and `/metrics` scraped every second (Prometheus
scrapes every 15 s by default: this is the dearer case), and the ratio of the two
throughputs and of their CPU per action is printed. The metered run also prints the
window's ack, broadcast-wait and loop-lag quantiles as the server measured them (its
histograms at the first and the last scrape): a tail the clients see and the server does
not is the machine's (clients and server share its cores), not the server's.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

from load_clients import client_process
from load_report import (
    collections,
    figures,
    metrics_cost,
    print_profile,
    print_spy,
    profile_file,
    report,
    spy_file,
)
from load_servers import (
    HealthWatch,
    MetricsScrape,
    Servers,
    cpu_seconds,
    machine_busy,
    machine_load,
    postgres_cpu,
    rss_kib,
    serve_options,
    start_bare,
    start_trusis,
    stop_servers,
    tail,
)
from restart import restart_run
from transport_cost import per_frame_seconds
from trusis.server.connections.transport import COMPRESSIONS, DEFAULT_COMPRESSION

MAX_TABLES = 1000
MAX_SECONDS = 600


def py_spy() -> str:
    """py-spy beside the interpreter (pip install py-spy into .venv), else on the PATH."""
    beside = Path(sys.executable).with_name("py-spy")
    return str(beside) if beside.exists() else shutil.which("py-spy") or str(beside)


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
        warmup = warmup_seconds(args)
        workers = [context.Process(target=client_process, daemon=True, args=(
            kind, servers.ports, numbers[i::args.client_processes], args.seconds, args.think,
            barrier, results, warmup))
            for i in range(args.client_processes)]
        for worker in workers:
            worker.start()
        set_up = time.perf_counter()
        meet(barrier, results, servers)
        set_up = time.perf_counter() - set_up
        if warmup > 0:  # the clients play, and the window begins at the next meeting
            meet(barrier, results, servers)
        cpu = [cpu_seconds(pid) for pid in pids]
        redis_cpu = cpu_seconds(servers.redis.pid) if servers.redis else 0.0
        pg_cpu = postgres_cpu() if servers.database else 0.0
        busy = machine_busy()
        spy = None
        if args.spy:
            spy = subprocess.Popen([py_spy(), "record",
                                    "--pid", str(pids[0]), "--rate", "100", "--nonblocking",
                                    "--format", "raw",
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
                             "scrapes": scrapes.times, "scraped_actions": sum(scrapes.actions),
                             "server_quantiles": scrapes.window_quantiles()}
    total["warmup"] = warmup
    total["warm_acks"] = [a for part in parts for a in part.get("warm_acks", [])]
    total["warm_broadcasts"] = [b for part in parts for b in part.get("warm_broadcasts", [])]
    for part in parts:
        total["acks"] += part["acks"]
        for do, samples in part.get("acks_by", {}).items():
            total.setdefault("acks_by", {}).setdefault(do, []).extend(samples)
        total["broadcasts"] += part["broadcasts"]
        total.setdefault("client_lag", []).extend(part.get("lag", []))
        for key in ("acked", "refused", "frames", "bytes", "games", "errors", "retried",
                    "lost_tables", "cpu", "wire"):
            total[key] = total.get(key, 0) + part[key]
    total["elapsed"] = max(p["elapsed"] for p in parts)
    total["think"] = args.think
    total["gc"] = collections(gc_file, window) if gc_file is not None else None
    total["sample"] = next((p["sample"] for p in parts if p["sample"]), "")
    total["streams"] = [stream for p in parts for stream in p.get("streams", [])]
    if kind == "trusis":
        total["transport_frame"], total["transport_frames"] = per_frame_seconds(
            total["streams"], args.compression)
    total["error"] = next((p["error"] for p in parts if p["error"]), "")
    total["lost_reason"] = next((p["lost_reason"] for p in parts if p["lost_reason"]), "")
    return total




def warmup_seconds(args: argparse.Namespace) -> float:
    """`--warmup`, by default three pauses at a human pace (`--think`) and none at
    saturation: the clients wait through the set-up, so at the start each has its first
    move to make at once, a burst no steady pace has (10,000 clients, 2,000 commands a
    second for the first seconds at `--think 5`)."""
    if args.warmup is not None:
        return float(args.warmup)
    return 3 * float(args.think)


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
    parser.add_argument("--warmup", type=float, metavar="SECONDS",
                        help="play this long before the window, measured apart (default: "
                             "three --think pauses; 0 at saturation)")
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
