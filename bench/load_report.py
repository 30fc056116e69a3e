"""bench/load.py's report: the figures of issue 19 for a run, the collector's pauses, and the
profiles (cProfile, py-spy) of the servers.
"""

from __future__ import annotations

import argparse
import pstats
from pathlib import Path
from typing import Any

import orjson

from load_clients import percentile
from load_servers import machine_load

SEATS = 10


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
    if r.get("warmup"):
        warm = r["warm_acks"]
        print(f"  warm-up {r['warmup']:g} s before the window, every client starting at once: "
              f"ack p50 {percentile(warm, 50) * ms:.1f} / p99 {percentile(warm, 99) * ms:.1f} ms "
              f"({len(warm)} samples; not in the figures below)" if warm else
              f"  warm-up {r['warmup']:g} s before the window: no acknowledgement")
    print(f"  ack latency        p50 {percentile(r['acks'], 50) * ms:7.1f} ms   "
          f"p99 {percentile(r['acks'], 99) * ms:7.1f} ms   ({len(r['acks'])} samples)")
    if r.get("acks_by"):
        by = sorted(r["acks_by"].items(), key=lambda kv: -len(kv[1]))
        print("    by command: " + "; ".join(
            f"{do} p50 {percentile(samples, 50) * ms:.1f} / p99 "
            f"{percentile(samples, 99) * ms:.1f} ms ({len(samples)})" for do, samples in by))
    print(f"  broadcast latency  p50 {percentile(r['broadcasts'], 50) * ms:7.1f} ms   "
          f"p99 {percentile(r['broadcasts'], 99) * ms:7.1f} ms   "
          f"({len(r['broadcasts'])} samples)")
    if r.get("client_lag"):
        print(f"  the clients' own loop woke late p50 {percentile(r['client_lag'], 50) * ms:.1f}"
              f" / p99 {percentile(r['client_lag'], 99) * ms:.1f} / max "
              f"{max(r['client_lag']) * ms:.1f} ms (a frame is timed when it is read: "
              "latencies near these are the clients')")
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
    if r.get("transport_frames"):
        print_own_cpu(r)
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
    if r.get("server_quantiles"):
        print("  as the server measured them, in the window (/metrics' buckets): "
              + "; ".join(f"{label} p50 {p50 * ms:.1f} ms p99 {p99 * ms:.1f} ms"
                          for label, (p50, p99) in r["server_quantiles"].items()))
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




def print_own_cpu(r: dict[str, Any]) -> None:
    """Issue 39's figure: the server's CPU per action less the transport's per frame
    (bench/transport_cost.py, measured on this run's frames) times the frames per action."""
    per_action = r["server_cpu"] / max(1, r["acked"])
    frames = r["frames"] / max(1, r["acked"])
    transport = r["transport_frame"] * frames
    print(f"  the game's own CPU per action {(per_action - transport) * 1000:.2f} ms: the "
          f"server's {per_action * 1000:.2f} ms less the transport's {transport * 1000:.2f} ms "
          f"({r['transport_frame'] * 1e6:.1f} us a frame x {frames:.1f} frames an action; "
          f"framed, deflated and written again here over {r['transport_frames']} of its frames)")
