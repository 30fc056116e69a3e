"""The game's own CPU per action, before and after a change, side by side (issue 39).

Usage: .venv/bin/python bench/own_cpu.py --before DIR [--after DIR] [--tables N]
                                          [--seconds S] [--rounds R] [--processes 1]

DIR is a checkout of the project (a `git worktree` of the commit before a change, say):
its `src` is put first on the game server's PYTHONPATH. `--after` defaults to this
checkout. Each round runs `bench/load.py --only trusis --tables N --seconds S` (N
saturated tables of 10 WebSocket clients on one `trusis serve` process, SQLite, deflate
on: `--think 0`) once against each tree, the two in turn, the order swapped every
round, so that a busy spell of this shared machine falls on both alike. The clients and
the harness are this checkout's in both runs; only the server's code differs.
`--processes 1` runs the server as one process of a cluster instead (load.py's option:
PostgreSQL and Redis), where what a command reads from the database costs most.

It prints each run's server CPU per action and "the game's own CPU per action" (the
server's less the transport's, as load.py measures it: bench/transport_cost.py), then
the medians of each side and their ratio (after / before). It prints and never asserts.

A run's figure moves with the games that ended in its window: at a game's end its ten
clients leave, open a new table over HTTP, sit, start and connect again, dear work that
a run of more ended games pays more of. So it also fits all runs to
own = a(side) + b x (games ended / actions), one slope `b` for both sides (what one
table turning over costs) and one `a` each (the game's own CPU per action with no table
turning over): least squares, as noisy as the runs are, but a side that happened to see
more games end is no longer charged for them.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OWN = re.compile(r"the game's own CPU per action ([0-9.]+) ms: the server's ([0-9.]+) ms "
                 r"less the transport's ([0-9.]+) ms")
RATE = re.compile(r"([0-9]+) actions/s acknowledged \([0-9]+ refused, ([0-9]+) games ended")


def run(tree: Path, tables: int, seconds: float,
        processes: int | None) -> tuple[float, float, float, int, int]:
    """One load.py run against `tree`'s server: own, server and transport ms an action,
    the actions a second and the games ended (a game's end and the next table's set-up
    are dear: their count moves a run's figures)."""
    env = dict(os.environ, PYTHONPATH=f"{tree / 'src'}{os.pathsep}{HERE}")
    out = subprocess.run([sys.executable, str(HERE / "load.py"), "--only", "trusis",
                          "--tables", str(tables), "--seconds", str(seconds),
                          *(["--processes", str(processes)] if processes else [])],
                         env=env, capture_output=True, text=True, timeout=600, check=False)
    found = OWN.search(out.stdout)
    rate = RATE.search(out.stdout)
    if found is None or rate is None:
        raise SystemExit(f"load.py against {tree} printed no figure:\n{out.stdout[-2000:]}"
                         f"\n{out.stderr[-2000:]}")
    own, server, transport = (float(found.group(i)) for i in (1, 2, 3))
    return own, server, transport, int(rate.group(1)), int(rate.group(2))


def fit(sides: dict[str, list[tuple[float, float]]]
        ) -> tuple[dict[str, float], float] | None:
    """Least squares y = a[side] + b x over every side's points: each side's `a` and the
    shared `b`; None if no side's x vary."""
    means = {side: (statistics.fmean(x for x, _ in points), statistics.fmean(y for _, y in points))
             for side, points in sides.items() if points}
    sxx = sum((x - means[side][0]) ** 2 for side, points in sides.items() for x, _ in points)
    if len(means) < len(sides) or sxx == 0:
        return None
    b = sum((x - means[side][0]) * (y - means[side][1])
            for side, points in sides.items() for x, y in points) / sxx
    return {side: my - b * mx for side, (mx, my) in means.items()}, b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, default=HERE.parent)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--processes", type=int, choices=(1,),
                        help="one process of a cluster (PostgreSQL and Redis), not SQLite")
    args = parser.parse_args()
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    got: dict[str, list[tuple[float, float, float, int, int]]] = {side: [] for side in sides}
    store = "PostgreSQL and Redis" if args.processes else "SQLite"
    print(f"{args.tables} saturated tables x 10 clients on {store}, {args.seconds:g} s a run, "
          f"{args.rounds} rounds; load average {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} CPUs")
    for i in range(args.rounds):
        order = ["before", "after"] if i % 2 == 0 else ["after", "before"]
        for side in order:
            figures = run(sides[side], args.tables, args.seconds, args.processes)
            got[side].append(figures)
            own, server, transport, rate, games = figures
            print(f"  round {i + 1} {side:6}: own {own:.2f} ms, server {server:.2f} ms, "
                  f"transport {transport:.2f} ms an action; {rate} actions/s, {games} games "
                  "ended", flush=True)
    med = {side: (statistics.median(r[0] for r in got[side]),
                  statistics.median(r[1] for r in got[side])) for side in sides}
    for side in sides:
        print(f"{side:6} ({sides[side]}): median own {med[side][0]:.2f} ms, "
              f"server {med[side][1]:.2f} ms an action")
    fitted = fit({side: [(r[4] / max(1, r[3] * args.seconds), r[0]) for r in got[side]]
                  for side in sides})
    if fitted is not None:
        intercepts, slope = fitted
        print(f"fitted: own = a + {slope:.0f} ms x games ended per action; a before "
              f"{intercepts['before']:.2f} ms, after {intercepts['after']:.2f} ms "
              f"({intercepts['after'] / intercepts['before']:.2f})")
    print(f"after / before: own {med['after'][0] / med['before'][0]:.2f}, "
          f"server {med['after'][1] / med['before'][1]:.2f}; load average now "
          f"{os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
