"""The balance lab's estimate for a table being created, off the request path.

Each team's chances for a set at a table size, from games of heuristic bots
(the lab's `trusis simulate`). Computing one takes seconds, so the first
request starts it in a worker process and answers `pending`; the client asks
again, and the cached estimate comes back at once from then on.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from trusis.lab.simulate import plan, run_job, tally
from trusis.rules.roles import TEAMS

BOTS = dict.fromkeys(TEAMS, "heuristic")


def estimate(players: int, custom: dict[str, int] | None, games: int) -> dict[str, Any]:
    """Play `games` heuristic games at this size and set; the win rates with intervals."""
    results = [r for job in plan([players], games, 0, custom, BOTS) for r in run_job(job)]
    summary = tally(results)[0].as_dict()
    return {"games": summary["games"], "win_rate": summary["win_rate"],
            "ci95": summary["ci95"], "avg_days": summary["avg_days"]}


class Balance:
    """Estimates by (size, set), each computed once per process."""

    def __init__(self, games: int, executor: Executor | None = None) -> None:
        self.games = games
        self.executor = executor
        self.done: dict[str, dict[str, Any]] = {}
        self.running: dict[str, asyncio.Future[dict[str, Any]]] = {}

    def _pool(self) -> Executor:
        if self.executor is None:
            # "spawn", never fork: a forked worker would inherit the server's listening
            # socket, its clients' connections and its signal handlers — it kept the port
            # after a crash and held browsers' kept-alive connections open.
            self.executor = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return self.executor

    def get(self, players: int, custom: dict[str, int] | None) -> dict[str, Any]:
        """The estimate if ready, else `pending` (and the computation is under way)."""
        key = json.dumps([players, custom], sort_keys=True)
        if key in self.done:
            return {"status": "ready", **self.done[key]}
        if key not in self.running:
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(self._pool(), estimate, players, custom, self.games)
            self.running[key] = future

            def finished(f: asyncio.Future[dict[str, Any]]) -> None:
                self.running.pop(key, None)
                if not f.cancelled() and f.exception() is None:
                    self.done[key] = f.result()

            future.add_done_callback(finished)
        return {"status": "pending", "games": self.games}

    def close(self) -> None:
        """Stop the worker now: an estimate under way is not worth waiting for."""
        if self.executor is None:
            return
        workers = list(getattr(self.executor, "_processes", {}).values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
