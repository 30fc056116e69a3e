"""Run a Python module with its garbage collections timed: `python bench/gcwatch.py -m MOD ...`.

bench/load.py --gc starts `trusis serve` through it. Every collection's
generation and pause (gc.callbacks, start to stop, on the event loop's thread:
the whole process waits) is kept; at exit (the bench stops the server with
SIGINT) they are written as JSON to the file named by GCWATCH_FILE. Nothing of
the server is changed but that it is timed.
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import runpy
import sys
import time
from typing import Any

PAUSES: list[tuple[float, int, float, int]] = []
"""(when, generation, seconds, objects collected) of every collection."""
_began = [0.0]


def _watch(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _began[0] = time.perf_counter()
    else:
        now = time.perf_counter()
        PAUSES.append((now, int(info["generation"]), now - _began[0], int(info["collected"])))


def _write() -> None:
    path = os.environ.get("GCWATCH_FILE")
    if path:
        with open(path, "w") as out:
            json.dump({"pauses": PAUSES, "threshold": gc.get_threshold(),
                       "frozen": gc.get_freeze_count()}, out)


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] != "-m":
        raise SystemExit("usage: python bench/gcwatch.py -m MODULE [ARGS...]")
    gc.callbacks.append(_watch)
    atexit.register(_write)
    module = sys.argv[2]
    sys.argv = [module, *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
