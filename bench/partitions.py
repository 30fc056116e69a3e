"""`bench/partitions.py`: processes cut off from PostgreSQL or Redis, again and again (issue 41).

Two `trusis serve` processes on a fresh PostgreSQL database and a Redis of the bench's
own, each of their four links through a fault-injecting proxy (tests/clusterproc.py,
tests/faultproxy.py), at the default lease of 5 s unless `--lease` says otherwise.

The campaign (the default): each run plays a game spread over both processes (its
table created on `a`, which owns it; its people's clients on `a` and `b` in turn, as
tests/test_server_partitions.py plays them), and once it runs cuts one link —
PostgreSQL or Redis, of the owner or of the follower; black-holed, refused, or slowed
by `--delay` a chunk each way — for a time drawn from `--cut`, then heals it and plays
the game to its end. Each run prints when the cut process's health first said 503
(`noticed`), when every client's outstanding command at the cut was answered
(`served`), how many commands were answered `unavailable`, and the problems the
suite's checks found (every acknowledged command stored once, no refused one stored,
fencing numbers that only grow, the timers, every frame each client got); then a
summary. Runs go through the link × target × mode combinations in turn.

`--latency 0.1,0.25,0.5` instead slows the owner's PostgreSQL link by each delay in
turn (a chunk each way: a round trip costs twice it) for `--cut` seconds while a game
runs, and prints whether the owner kept its game, stepped aside, or lost it to a
takeover: the latency the cluster tolerates, beside a dead owner's.

    .venv/bin/python bench/partitions.py --runs 12 --cut 15-40
    .venv/bin/python bench/partitions.py --latency 0.1,0.2,0.3,0.5 --cut 20
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from clusterproc import Cluster, start_two_processes
from faultproxy import Mode
from test_server_cluster import finished, new_game, warmed_up
from test_server_crash import Game
from test_server_partitions import (
    Watch,
    all_answered,
    checked,
    hold,
    hurry,
    play_through,
    probe,
    serving,
)

COMBINATIONS: list[tuple[str, int, Mode]] = [
    (link, target, mode) for mode in ("stall", "refuse", "slow")
    for link in ("database", "redis") for target in (0, 1)]
"""(link, process, mode): process 0 owns each run's game, process 1 follows it."""


def health(cluster: Cluster, index: int) -> dict[str, Any]:
    try:
        return cluster.health(index)
    except (httpx.HTTPError, ValueError):
        return {}


def one_run(cluster: Cluster, number: int, link: str, target: int, mode: Mode,
            seconds: float, delay: float, rng: random.Random) -> dict[str, Any]:
    game = long_game(cluster, rng)
    if finished(game):
        return {"run": number, "skipped": "the game ended before the cut"}
    taken = [health(cluster, i).get("taken_over", 0) for i in (0, 1)]
    proxy = getattr(cluster.links[target], link)
    watch = Watch(cluster)
    proxy.set(mode, delay)
    watch.began = time.monotonic()
    probe(game, watch)
    hold(game, watch, watch.began + seconds)
    proxy.set("pass")
    watch.probing = False
    hurry(game)
    play_through(game, watch, until=time.monotonic() + 180, limit=200)
    time.sleep(1)  # what a stall held back has arrived
    problems = checked(cluster, game)
    taken = [health(cluster, i).get("taken_over", 0) - taken[i] for i in (0, 1)]
    return {"run": number, "link": link, "cut": "owner" if target == 0 else "follower",
            "mode": mode, "seconds": round(seconds, 1),
            "noticed": round(watch.unwell[target], 1) if target in watch.unwell else None,
            "served": round(watch.served_after(), 1) if all_answered(game, watch) else None,
            "unavailable": refusals(game), "taken_over": taken,
            "ended": finished(game), "problems": problems}


def long_game(cluster: Cluster, rng: random.Random) -> Game:
    """A game spread over both processes, running: its people now and then let a phase run
    to its timer (30 s by day, 15 s by night), so that it outlasts most cuts."""
    serving(cluster, timeout=60)
    game = new_game(cluster, seats=7, people=4, rng=random.Random(rng.random()))
    for client in game.clients:
        client.idle_rate = 0.4
    play_through(game, Watch(cluster), until=time.monotonic() + 60,
                 done=lambda: warmed_up(game, 1))
    return game


def refusals(game: Game) -> int:
    return sum(1 for c in game.clients for a in c.answers.values()
               if a.get("code") == "unavailable")


def campaign(cluster: Cluster, args: argparse.Namespace, rng: random.Random) -> None:
    low, _, high = args.cut.partition("-")
    results = []
    for number in range(args.runs):
        link, target, mode = COMBINATIONS[number % len(COMBINATIONS)]
        seconds = rng.uniform(float(low), float(high or low))
        result = one_run(cluster, number + 1, link, target, mode, seconds, args.delay, rng)
        results.append(result)
        shown = {k: v for k, v in result.items() if k != "problems"}
        print(f"{shown} problems: {len(result.get('problems', []))}", flush=True)
        for problem in result.get("problems", [])[:5]:
            print(f"    {problem}", flush=True)
    done = [r for r in results if "skipped" not in r]
    noticed = [r["noticed"] for r in done if r["noticed"] is not None and r["mode"] != "slow"]
    served = [r["served"] for r in done if r["served"] is not None]
    print(f"\n{len(done)} runs ({len(results) - len(done)} skipped): "
          f"{sum(len(r['problems']) for r in done)} problems, "
          f"{sum(1 for r in done if not r['ended'])} games not ended, "
          f"{sum(r['unavailable'] for r in done)} commands answered unavailable; "
          f"noticed (stall, refuse) after {summary(noticed)}; "
          f"every client served again after {summary(served)} "
          f"({sum(1 for r in done if r['served'] is None)} runs waited for the heal)")


def summary(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    return (f"{ordered[0]:.1f}-{ordered[-1]:.1f} s "
            f"(median {ordered[len(ordered) // 2]:.1f} s)")


def latency(cluster: Cluster, args: argparse.Namespace, rng: random.Random) -> None:
    seconds = float(args.cut.partition("-")[0])
    print(f"the owner's PostgreSQL link slowed for {seconds:.0f} s, lease "
          f"{args.lease:.0f} s (a round trip costs twice the delay)")
    for delay in (float(d) for d in args.latency.split(",")):
        game = long_game(cluster, rng)
        taken = health(cluster, 1).get("taken_over", 0)
        watch = Watch(cluster)
        cluster.links[0].database.set("slow", delay)
        watch.began = time.monotonic()
        renewed: list[float] = []
        stepped: float | None = None
        end = watch.began + seconds
        while time.monotonic() < end:
            hold(game, watch, min(end, time.monotonic() + 1.0))
            said = health(cluster, 0)
            renewed.append(said.get("lease_renewed_s_ago", 0.0))
            if said.get("cut_off") and stepped is None:
                stepped = time.monotonic() - watch.began
        cluster.links[0].database.set("pass")
        hurry(game)
        lost = health(cluster, 1).get("taken_over", 0) - taken
        play_through(game, watch, until=time.monotonic() + 180, limit=200)
        problems = checked(cluster, game)
        unwell = f"health 503 after {watch.unwell[0]:.1f} s" if 0 in watch.unwell \
            else "health 200 throughout"
        print(f"delay {delay:.2f} s a chunk: "
              f"{f'stepped aside after {stepped:.1f} s' if stepped else 'kept serving'}, "
              f"{'its game taken over' if lost else 'kept its game'}, {unwell}, "
              f"lease renewed at most {max(renewed, default=0):.1f} s ago; "
              f"{len(problems)} problems", flush=True)
        for problem in problems[:5]:
            print(f"    {problem}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=12)
    parser.add_argument("--cut", default="15-40", help="seconds of each cut: N or LOW-HIGH")
    parser.add_argument("--delay", type=float, default=0.5,
                        help="`slow`: seconds a chunk waits, each way")
    parser.add_argument("--lease", type=float, default=5.0)
    parser.add_argument("--latency", default="",
                        help="comma-separated delays: measure the latency tolerated instead")
    parser.add_argument("--seed", type=int, default=41)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        patch = pytest.MonkeyPatch()
        processes = start_two_processes(Path(folder), patch, args.lease, proxied=True)
        cluster = next(processes)
        try:
            if args.latency:
                latency(cluster, args, rng)
            else:
                campaign(cluster, args, rng)
        finally:
            processes.close()
            patch.undo()


if __name__ == "__main__":
    main()
