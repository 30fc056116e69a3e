"""Bots that look ahead think off the event loop, within a budget, or not at all.

An `expert` bot plays its key choices forward in sampled worlds (trusis.bots.expert):
tens to hundreds of milliseconds of CPU a decision. Run on the event loop, that would
hold up every table of the process. So at a server:

- the bot observes on the loop (its view is built there, from the game as it is), and
  its `act` — where the thinking is — runs in a small thread pool (`bot_threads`); the
  table's timers task awaits it, the loop serves everyone meanwhile, and the decision
  is used only in the phase it was made for (`BotPlay.thought`);
- a decision costs at most `bot_rollouts` plays of the engine (the CPU budget: the
  default's cost is in docs/bots.md and docs/deploy.md);
- when every thread is already thinking (a loaded server), the expert does not queue:
  it decides at once, on the loop, as a `normal` bot does (`degraded` counts it), so
  nobody waits for a bot to think. On the loop an expert never looks ahead.

Threads share the interpreter lock with the loop, so thinking slows the process a
little (the loop still gets its turn every few milliseconds); the budget keeps that
small, and the degrade keeps it bounded by the number of threads.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from trusis.bots.expert import ROLLOUTS, ExpertBot
from trusis.server.monitoring import metrics
from trusis.server.tables.botplay import BotPlay

THREADS = 1
"""Default threads thinking for the bots of one process (docs/deploy.md)."""


@dataclass
class Thinking:
    """The process's pool for the bots' thinking, and what it did."""

    rollouts: int = ROLLOUTS
    threads: int = THREADS
    running: int = 0
    thought: int = 0  # decisions made off the loop
    degraded: int = 0  # decisions a busy server gave to `normal`
    pool: ThreadPoolExecutor | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.threads > 0 and self.rollouts > 0:
            self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="trusis-bots")

    def busy(self) -> bool:
        """Whether a new decision would have to wait for a thread."""
        return self.pool is None or self.running >= self.threads

    async def ahead(self, play: BotPlay, now: float) -> None:
        """Think, off the loop, for the bots of `play` that look ahead and are due now."""
        play.offloop = True
        for seat in play.due_now(now):
            bot = play.driver.bots.get(seat)
            if not isinstance(bot, ExpertBot) or seat in play.thought:
                continue
            if self.busy() or self.pool is None:
                self.degraded += 1
                _count("degraded")
                continue  # `step` decides for it on the loop, as `normal`
            phase = play.phase_key()
            play.prepare(seat, now)
            bot.rollouts = self.rollouts
            self.running += 1
            try:
                action = await asyncio.get_running_loop().run_in_executor(self.pool, bot.act)
            finally:
                self.running -= 1
            self.thought += 1
            _count("ahead")
            if play.phase_key() == phase and play.table.state.running:
                play.thought[seat] = (phase, action)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False, cancel_futures=True)


def _count(how: str) -> None:
    figures = metrics.FIGURES
    if figures is not None:
        figures.bot_decisions.labels(how).inc()


_current = Thinking(threads=0)


def configure(rollouts: int, threads: int) -> Thinking:
    """Set the process's thinking (at start, from the settings)."""
    global _current
    _current.close()
    _current = Thinking(max(0, rollouts), max(0, threads))
    return _current


def current() -> Thinking:
    """The process's thinking: before `configure`, none off the loop (every expert then
    plays as `normal` at a server, never stalling it)."""
    return _current
