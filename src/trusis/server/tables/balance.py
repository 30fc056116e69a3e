"""The balance lab's estimate for a table being created, off the request path.

Each team's chances for a set at a table size, from games of heuristic bots
(the lab's `trusis simulate`). The standard set's estimates at every size are
computed ahead and shipped (balance_standard.json, tools/balance_standard.py),
so a host choosing a size never waits. Any other set takes seconds of CPU: the
first request starts it in a worker process and answers `pending`; the client
asks again, and the cached estimate comes back at once from then on. The queue
and the cache are bounded (limits/settings.py), and so is what one address starts in an
hour: one visitor cannot keep the worker busy (asking for a new estimate as soon
as each was ready kept it busy for good, one at a time).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections import OrderedDict
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from trusis.lab.simulate import plan, run_job, tally
from trusis.rules.roles import TEAMS
from trusis.server.errors import LobbyError
from trusis.server.limits.settings import Limits, PerAddress, too_many

BOTS = dict.fromkeys(TEAMS, "heuristic")
STANDARD_FILE = str(Path(__file__).with_name("balance_standard.json"))
"""The standard set's estimates at every size, computed ahead (tools/balance_standard.py)."""


def estimate(players: int, custom: dict[str, int] | None, games: int) -> dict[str, Any]:
    """Play `games` heuristic games at this size and set; the win rates with intervals."""
    results = [r for job in plan([players], games, 0, custom, BOTS) for r in run_job(job)]
    summary = tally(results)[0].as_dict()
    return {"games": summary["games"], "win_rate": summary["win_rate"],
            "ci95": summary["ci95"], "avg_days": summary["avg_days"]}


def standard_estimates(games: int) -> dict[str, dict[str, Any]]:
    """The shipped estimates of the standard set, by key, if made with `games` games."""
    try:
        data = json.loads(Path(STANDARD_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if data.get("games") != games:
        return {}
    return {key_of(int(n), None): found for n, found in data["standard"].items()}


def key_of(players: int, custom: dict[str, int] | None) -> str:
    return json.dumps([players, custom], sort_keys=True)


class Balance:
    """Estimates by (size, set): the standard set's shipped, the others computed once per
    process in one worker, at most `limits.balance_jobs` waiting or running (and
    `balance_jobs_per_address` for one address, `balance_estimates_per_address_hour`
    started by one address in an hour), the last `balance_cache` kept."""

    def __init__(self, games: int, limits: Limits | None = None,
                 executor: Executor | None = None) -> None:
        self.games = games
        self.limits = limits or Limits()
        self.executor = executor
        self.standard = standard_estimates(games)
        self.done: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.running: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.asked: dict[str, str] = {}  # estimate under way -> the address that asked first
        self.budget = PerAddress(self.limits.balance_estimates_per_address_hour, 3600.0)

    def _pool(self) -> Executor:
        if self.executor is None:
            # "spawn", never fork: a forked worker would inherit the server's listening
            # socket, its clients' connections and its signal handlers — it kept the port
            # after a crash and held browsers' kept-alive connections open.
            self.executor = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return self.executor

    def get(self, players: int, custom: dict[str, int] | None,
            address: str = "") -> dict[str, Any]:
        """The estimate if ready, else `pending` (and the computation is under way); a
        429 or 503 when this address, or everybody, already waits for enough of them."""
        key = key_of(players, custom)
        found = self.standard.get(key) or self.done.get(key)
        if found is not None:
            if key in self.done:
                self.done.move_to_end(key)
            return {"status": "ready", **found}
        if key not in self.running:
            self._admit(address)
            loop = asyncio.get_running_loop()
            future = loop.run_in_executor(self._pool(), estimate, players, custom, self.games)
            self.running[key] = future
            self.asked[key] = address

            def finished(f: asyncio.Future[dict[str, Any]]) -> None:
                self.running.pop(key, None)
                self.asked.pop(key, None)
                if not f.cancelled() and f.exception() is None:
                    self.done[key] = f.result()
                    while len(self.done) > max(1, self.limits.balance_cache):
                        self.done.popitem(last=False)

            future.add_done_callback(finished)
        return {"status": "pending", "games": self.games}

    def _admit(self, address: str) -> None:
        """Room for one more estimate: the address's share first, then the process's."""
        mine = sum(1 for a in self.asked.values() if a == address)
        cap = self.limits.balance_jobs_per_address
        if cap and mine >= cap:
            raise too_many("balance_busy", "an estimate you asked for is still being "
                           "computed: wait for it before asking for another", 30, limit=cap)
        cap = self.limits.balance_jobs
        if cap and len(self.running) >= cap:
            error = LobbyError(503, "balance_busy", "the balance lab is busy with other "
                               "estimates: try again in a minute", limit=cap)
            error.headers = {"Retry-After": "60"}
            raise error
        wait = self.budget.take(address)  # last: a refusal above costs none of the budget
        if wait:
            raise too_many("too_many_estimates", "you asked for many estimates in the last "
                           "hour: the ones ready stay free to read; try another later", wait,
                           limit=self.limits.balance_estimates_per_address_hour)

    def close(self) -> None:
        """Stop the worker now: an estimate under way is not worth waiting for."""
        if self.executor is None:
            return
        workers = list(getattr(self.executor, "_processes", {}).values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
