"""How late the event loop runs: the first figure that says a process is overloaded.

A task asks to wake every `period` seconds and notes how much later than asked
it did; every game, connection and commit of the process waits that long too.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque

from trusis.server.monitoring import metrics


class LoopLag:
    def __init__(self, period: float = 0.25, kept: int = 40) -> None:
        self.period = period
        self.samples: deque[float] = deque(maxlen=kept)  # the last ~10 s
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name="loop lag")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _run(self) -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(self.period)
            late = max(0.0, time.perf_counter() - asked - self.period)
            self.samples.append(late)
            if (figures := metrics.FIGURES) is not None:
                figures.loop_lag.observe(late)

    def worst_ms(self) -> float:
        """The worst delay of the last seconds, in milliseconds."""
        return 1000 * max(self.samples, default=0.0)
