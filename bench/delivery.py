"""Delivery cost: the game server's CPU per action and per frame out, two source trees side by side.

Usage: python bench/delivery.py --against DIR [--tables N] [--seconds S] [--rounds R]
                                [--think T] [--client-processes P] [--pure] [--profile FILE]

Issue 19's load (bench/load.py: `trusis serve` on a fresh SQLite file, N tables of
10 protocol clients played by heuristic bots, one command in flight each) run in
rounds that alternate between this checkout's server (`src/` beside this folder)
and the one of another source tree (`--against DIR`, DIR holding its `trusis`
package, e.g. `git archive main src | tar -x -C /tmp/main`, then DIR=/tmp/main/src).
On a shared machine only figures measured side by side mean anything: each round
runs both, one after the other, in alternating order, and the ratios printed are
this tree's CPU per action (and per frame) over the other's, round by round and
their median (< 1: this tree is cheaper). Each round's line also splits the
server's CPU per action between its event loop's thread and its other threads (the
database's aiosqlite worker), read from /proc in the window.

By default both run with the compiled engine (build/compiled, as ./run does): its
package holds copies of every module, so for each tree an overlay is made in a
temporary folder (the compiled build, then the tree's own .py files over it; the
compiled extension modules still win for the engine, so the engine is the same
for both) — the server code measured is really each tree's (a compiled build is a
snapshot: `TRUSIS_COMPILED` names another; the bench warns when a tree's engine
sources differ from the build's). `--pure`: both trees
as plain Python. `--profile FILE`: cProfile each server in one more round, its window
only (a sitecustomize in the overlay starts and stops the profiler on SIGUSR1 and
SIGUSR2), into FILE.this and FILE.against, and print the top of each.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import load
from load_clients import percentile

ROOT = Path(__file__).resolve().parent.parent
COMPILED = Path(os.environ.get("TRUSIS_COMPILED", "/work/main/build/compiled"))


def overlay(tree: Path, folder: Path, pure: bool) -> str:
    """The PYTHONPATH that runs `tree`'s server code (over the compiled engine)."""
    if pure:
        shutil.copytree(tree, folder / "path", ignore=shutil.ignore_patterns("__pycache__"))
        (folder / "path" / "sitecustomize.py").write_text(SITECUSTOMIZE)
        return str(folder / "path")
    target = folder / "path"
    shutil.copytree(COMPILED, target, ignore=shutil.ignore_patterns(".mypy_cache"))
    shutil.copytree(tree / "trusis", target / "trusis", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    stale = [str(so.relative_to(target)) for so in (target / "trusis").rglob("*.so")
             if (COMPILED / so.relative_to(target)).with_name(
                 so.name.split(".")[0] + ".py").read_bytes()
             != (tree / so.relative_to(target)).with_name(so.name.split(".")[0] + ".py")
             .read_bytes()]
    if stale:
        print(f"warning: {tree}: these engine modules differ from the compiled build, which "
              f"runs instead: {', '.join(stale)}")
    (target / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return str(target)


SITECUSTOMIZE = """
import os, signal, sys
if os.environ.get("DELIVERY_PID") and "serve" in sys.argv and "--help" not in sys.argv:
    with open(os.environ["DELIVERY_PID"], "w") as _file:
        _file.write(str(os.getpid()))
if os.environ.get("DELIVERY_PROFILE") and "serve" in sys.argv and "--help" not in sys.argv:
    import cProfile
    _profile = cProfile.Profile()
    def _start(*_):
        _profile.enable()
    def _stop(*_):
        _profile.disable()
        _profile.dump_stats(os.environ["DELIVERY_PROFILE"])
    signal.signal(signal.SIGUSR1, _start)
    signal.signal(signal.SIGUSR2, _stop)
"""
"""Writes the server's pid, and profiles its window only with `--profile` (what each
overlay holds)."""
SPLIT: list[float] = []
"""The last window's server CPU: [its main thread's (the event loop), its other threads'
(the database's worker thread: aiosqlite)], in seconds."""


def thread_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds of `pid`'s main thread and of all its other threads together."""
    tick = os.sysconf("SC_CLK_TCK")
    main = other = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        used = (int(fields[11]) + int(fields[12])) / tick
        if int(task.name) == pid:
            main += used
        else:
            other += used
    return main, other


class WindowProfile(load.HealthWatch):
    """load.run's watch of the window: with `--profile`, it also starts and stops the
    profiler of the server (SIGUSR1, SIGUSR2 to the pid its sitecustomize wrote)."""

    def __enter__(self) -> WindowProfile:
        self.pid = int(Path(os.environ["DELIVERY_PID"]).read_text())
        if os.environ.get("DELIVERY_PROFILE"):
            os.kill(self.pid, signal.SIGUSR1)
        self.threads = thread_cpu(self.pid)
        return super().__enter__()  # type: ignore[return-value]

    def __exit__(self, *rest: object) -> None:
        after = thread_cpu(self.pid)
        SPLIT[:] = [after[0] - self.threads[0], after[1] - self.threads[1]]
        if os.environ.get("DELIVERY_PROFILE"):
            os.kill(self.pid, signal.SIGUSR2)
        super().__exit__(*rest)


def per(r: dict[str, Any]) -> tuple[float, float, float]:
    """CPU ms per action, CPU us per frame out, frames per action."""
    acked = max(1, r["acked"])
    frames = max(1, r["frames"])
    return (r["server_cpu"] / acked * 1e3, r["server_cpu"] / frames * 1e6, frames / acked)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, required=True, metavar="DIR")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--think", type=float, default=0.0, metavar="SECONDS",
                        help="each client's mean pause before a command (bench/load.py): "
                             "0 measures the CPU at saturation; 5 a human pace, whose "
                             "ack p50/p99 each round prints")
    parser.add_argument("--client-processes", type=int, default=1, metavar="P")
    parser.add_argument("--pure", action="store_true")
    parser.add_argument("--profile", metavar="FILE")
    args = parser.parse_args()
    load.HealthWatch = WindowProfile  # type: ignore[misc]
    trees = {"this": ROOT / "src", "against": args.against.resolve()}
    run_args = argparse.Namespace(tables=args.tables, seconds=args.seconds, think=args.think,
                                  client_processes=args.client_processes, profile=None,
                                  spy=None, gc=False, warmup=None,
                                  compression=load.DEFAULT_COMPRESSION)
    results: dict[str, list[tuple[float, float, float]]] = {name: [] for name in trees}
    print(f"{load.machine_load()}; {args.tables} tables x 10 clients, {args.seconds:g} s "
          f"windows, {args.rounds} rounds; engine "
          f"{'pure Python' if args.pure else f'compiled ({COMPILED})'}")
    with tempfile.TemporaryDirectory(prefix="trusis-delivery-") as tmp:
        folder = Path(tmp)
        paths = {}
        for name, tree in trees.items():
            (folder / name).mkdir()
            paths[name] = overlay(tree, folder / name, args.pure)
        for round_ in range(args.rounds + bool(args.profile)):
            order = list(trees) if round_ % 2 == 0 else list(reversed(trees))
            for name in order:
                os.environ["PYTHONPATH"] = paths[name]
                load.serve_options.cache_clear()
                last = round_ == args.rounds  # the extra round, profiled: not counted
                os.environ.pop("DELIVERY_PROFILE", None)
                os.environ["DELIVERY_PID"] = str(folder / name / f"pid{round_}")
                if args.profile and last:
                    os.environ["DELIVERY_PROFILE"] = os.path.abspath(f"{args.profile}.{name}")
                (folder / name / "run").mkdir(exist_ok=True)
                r = load.run("trusis", run_args, folder / name / "run")
                ms, us, frames = per(r)
                if not last:
                    results[name].append((ms, us, frames))
                size = r["bytes"] / max(1, r["frames"])
                wire = r["wire"] / max(1, r["frames"])
                print(f"round {round_ + 1}{' (profiled)' * last} {name:8}: "
                      f"{r['acked'] / r['elapsed']:4.0f} actions/s, CPU {ms:.3f} ms per action, "
                      f"{us:.1f} us per frame out, {frames:.2f} frames per action, "
                      f"{size:.0f} bytes per frame ({wire:.0f} on the wire); "
                      f"{r['errors']} client errors; ack p50 "
                      f"{percentile(r['acks'], 50) * 1e3:.1f} / p99 "
                      f"{percentile(r['acks'], 99) * 1e3:.1f} ms; the event loop's thread "
                      f"{SPLIT[0] / max(1, r['acked']) * 1e3:.3f} ms per action, the others "
                      f"{SPLIT[1] / max(1, r['acked']) * 1e3:.3f}", flush=True)
                if r["errors"]:
                    print(f"  the first client error: {r['error']}", flush=True)
    print("\nthis / against (< 1: this tree is cheaper):")
    for index, label in ((0, "CPU per action"), (1, "CPU per frame out")):
        ratios = [a[index] / b[index] for a, b in zip(results["this"], results["against"],
                                                      strict=True)]
        print(f"  {label:18}: " + "  ".join(f"{x:.3f}" for x in ratios)
              + f"   median {statistics.median(ratios):.3f}")
    if args.profile:
        for name in trees:
            load.print_profile(f"{args.profile}.{name}", top=25)


if __name__ == "__main__":
    main()
