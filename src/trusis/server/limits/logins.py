"""Login and registration budgets, each counted in one atomic database statement.

Three counters, all rows of `login_failures` (so every server process sees them):

- `pair:<login>|<address>` — one account guessed from one address. Five failures
  are free; then each further try waits for a delay that doubles (30 s, 1 min, 2 min
  … at most 15 min) after the last one. A success clears it, a day alone too. Only this counter
  names an account, so nobody can lock an owner out: the owner, coming from their
  own address, has a pair of their own (docs/deploy.md, "Logins and passwords").
- `address:<address>` — every login from one address, successful or not, in a
  15-minute window: a bound on guesses spread over many accounts, and on the
  password hashing one address can make the server do.
- `register:<address>` — accounts registered from one address, in an hour.

A try is counted *before* the password is checked, in the same statement that
reads the count (data/login_counts.py): forty simultaneous tries cannot all read
"4 failures so far" before any of them has written its own. For a `pair:` row `first_at` holds the
time of the last try, for the others the start of the window.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import weakref
from collections.abc import AsyncIterator

from trusis.server.data.login_counts import LoginCounts
from trusis.server.errors import LobbyError
from trusis.server.monitoring import metrics

PAIR_FREE = 5
"""Failed logins to one account from one address before the delays start."""
PAIR_FIRST_DELAY = 30.0
PAIR_MAX_DELAY = 15 * 60.0
PAIR_FORGET = 24 * 3600.0
"""A pair left alone this long starts again from zero."""
ADDRESS_WINDOW = 15 * 60.0
ADDRESS_LOGINS = 90
"""Logins (successful or not) from one address in ADDRESS_WINDOW: a class of thirty behind
one school's address, each signing in with a typo or two, never meets it."""
REGISTER_WINDOW = 3600.0
REGISTRATIONS = 60
"""Accounts registered from one address in REGISTER_WINDOW: that class, each making an
account and trying a refused password once, does not meet it either."""


def pair_delay(failures: int) -> float:
    """How long after the last try the next one may come, after `failures` failures."""
    if failures < PAIR_FREE:
        return 0.0
    return float(min(PAIR_MAX_DELAY, PAIR_FIRST_DELAY * 2.0 ** (failures - PAIR_FREE)))


def _steps() -> list[tuple[int, float]]:
    """(failures, delay) from the longest delay down, for the statement's CASE."""
    steps = []
    failures = PAIR_FREE
    while True:
        steps.append((failures, pair_delay(failures)))
        if pair_delay(failures) >= PAIR_MAX_DELAY:
            return steps[::-1]
        failures += 1


def _too_many(wait: float) -> LobbyError:
    if (figures := metrics.FIGURES) is not None:
        figures.rate_limited("login")
    return LobbyError(429, "too_many_attempts", "too many attempts: try again later",
                      retry_after=max(1, int(wait) + 1))


class Throttle:
    """The budgets of logins and registrations, kept in the database."""

    def __init__(self, counts: LoginCounts) -> None:
        self.counts = counts
        self._turns: weakref.WeakValueDictionary[str, asyncio.Lock] = (
            weakref.WeakValueDictionary())

    @contextlib.asynccontextmanager
    async def one_at_a_time(self, key: str) -> AsyncIterator[None]:
        """Tries under one `pair:` key, in this process, one after the other: a success
        clears the count before the next try is counted, so a burst of right passwords
        all pass, while a burst of wrong ones still stops after five (and across
        processes the counting statement alone still holds them)."""
        lock = self._turns.get(key)
        if lock is None:
            lock = self._turns[key] = asyncio.Lock()
        async with lock:
            yield

    async def window(self, key: str, limit: int, seconds: float) -> None:
        """Count one try under `key`; a 429 if it is past `limit` in the window."""
        now = time.time()
        count = await self.counts.count_in_window(key, now, seconds)
        if count.failures > limit:
            raise _too_many(count.first_at + seconds - now)

    async def pair(self, key: str) -> None:
        """Count one try of an account from an address, or refuse it (429, counting
        nothing) while the delay after its last failure runs."""
        now = time.time()
        counted, row = await self.counts.count_after_delay(key, now, _steps(), PAIR_FORGET)
        if not counted:
            wait = row.first_at + pair_delay(row.failures) - now if row is not None else 1
            raise _too_many(wait)

    async def clear(self, key: str) -> None:
        await self.counts.clear(key)
