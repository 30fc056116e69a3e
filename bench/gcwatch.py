"""Run a Python module with its garbage collections timed: `python bench/gcwatch.py -m MOD ...`.

bench/load.py --gc starts `trusis serve` through it. Every collection's
generation and pause (gc.callbacks, start to stop, on the event loop's thread:
the whole process waits) is kept; at exit (the bench stops the server with
SIGINT) and every 2 s (a stop that takes too long ends in SIGKILL) they are written as
JSON to the file named by GCWATCH_FILE. Nothing of
the server is changed but that it is timed, unless GCWATCH_THRESHOLD=a,b,c pins
the collector's thresholds (bench/load.py --gc-threshold: the server as it was
before it set its own).
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import runpy
import sys
import threading
import time
from typing import Any

PAUSES: list[tuple[float, int, float, int, float]] = []
"""(when, generation, seconds, objects collected, CPU seconds) of every collection: the
seconds are the pause, the CPU seconds what the collector itself used (on a shared machine
the pause also holds the time other processes had the core)."""
_began = [0.0, 0.0]


def _watch(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _began[0] = time.perf_counter()
        _began[1] = time.thread_time()
    else:
        now = time.perf_counter()
        PAUSES.append((now, int(info["generation"]), now - _began[0], int(info["collected"]),
                       time.thread_time() - _began[1]))


def _write() -> None:
    path = os.environ.get("GCWATCH_FILE")
    if path:
        with open(f"{path}.new", "w") as out:
            json.dump({"pauses": list(PAUSES), "threshold": gc.get_threshold(),
                       "frozen": gc.get_freeze_count()}, out)
        os.replace(f"{path}.new", path)


def _every(seconds: float) -> None:
    while True:
        time.sleep(seconds)
        _write()


def _pin() -> None:
    """GCWATCH_THRESHOLD=a,b,c: the collector's thresholds, kept whatever the program sets
    (its own gc.set_threshold is then ignored): the bench measures the program with the
    thresholds it had before, in the same run as with its own."""
    given = os.environ.get("GCWATCH_THRESHOLD")
    if given:
        gc.set_threshold(*(int(v) for v in given.split(",")))
        gc.set_threshold = lambda *_: None  # type: ignore[assignment]


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] != "-m":
        raise SystemExit("usage: python bench/gcwatch.py -m MODULE [ARGS...]")
    _pin()
    gc.callbacks.append(_watch)
    atexit.register(_write)
    threading.Thread(target=_every, args=(2.0,), daemon=True).start()
    module = sys.argv[2]
    sys.argv = [module, *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
