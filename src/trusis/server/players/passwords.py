"""Passwords: which ones are accepted, and hashing them without stalling the games.

argon2id costs about a quarter of a second of CPU a hash, on purpose. Run on the
event loop, every table of the process would wait that long at each login; so
hashes run in a small pool of threads (argon2 releases the GIL while it works),
at most half the machine's cores, and a burst of logins waits in its queue
instead of taking every core from the games. The queue is bounded too: past
QUEUE waiting jobs (a flood from many addresses at once, each within its own
budget) a login or registration is refused at once, 503 `busy`, rather than
waiting for minutes. One address has at most `password_jobs_per_address` jobs
(limits/settings.py) in the pool at once; the rest of its burst (a class signing in
together, or one script) waits in a line of its own, so another address's login
waits behind a few of them, never behind all (the security tester's 100
registrations in flight from one address made every other login wait 10-11 s).

A password is refused when zxcvbn (Dropbox's estimator, with its lists of the most
common passwords, words and names) rates it among the first million guesses, the
player's own name counting as a word of the list.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from zxcvbn import zxcvbn

from trusis.server.errors import LobbyError

T = TypeVar("T")

HASHER = PasswordHasher()  # argon2id with the library's current recommended parameters
PASSWORD_LIMITS = (8, 200)
MIN_SCORE = 2
"""zxcvbn's score from 0 to 4; below 2 a password falls within about 10**6 guesses."""
RATED = 64
"""zxcvbn rates the first characters only (it refuses more than 72); past them a
password is long enough not to be on any list."""
WORKERS = max(1, (os.cpu_count() or 2) // 2)

QUEUE = 64
"""Jobs waiting for the pool at most: about 15 s of hashing on one worker."""
LINE = 64
"""Jobs of one address waiting for their turn at most, past those in the pool: the
address's login and registration budgets (limits/logins.py) keep a real burst far below;
past it a job is refused (429 `busy`) rather than held."""


@dataclass
class Line:
    """One address's jobs: those in the pool (`per_address` at most) and those waiting."""

    turn: asyncio.Semaphore
    jobs: int = 0


class Pool:
    """The hashing threads, how many jobs wait for them, and each address's line."""

    def __init__(self, workers: int, queue: int, per_address: int = 2,
                 line: int = LINE) -> None:
        self.threads = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="argon2")
        self.queue = queue
        self.waiting = 0
        self.per_address = per_address
        self.line = line
        self.lines: dict[str, Line] = {}

    async def run(self, address: str, job: Callable[..., T], *args: Any) -> T:
        """`job(*args)` in the pool, in `address`'s turn."""
        if self.per_address <= 0:  # the limit is off
            return await self._run(job, *args)
        line = self.lines.get(address)
        if line is None:
            line = self.lines[address] = Line(asyncio.Semaphore(self.per_address))
        if line.jobs >= self.per_address + self.line:
            raise LobbyError(429, "busy", "many passwords from your address are being "
                             "checked already: try again in a moment", retry_after=5,
                             limit=self.per_address + self.line)
        line.jobs += 1
        try:
            async with line.turn:
                return await self._run(job, *args)
        finally:
            line.jobs -= 1
            if line.jobs == 0:
                del self.lines[address]

    async def _run(self, job: Callable[..., T], *args: Any) -> T:
        if self.waiting >= self.queue:
            raise LobbyError(503, "busy", "the server is busy: try again in a moment",
                             retry_after=5)
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.threads, job, *args)
        finally:
            self.waiting -= 1


_pool = Pool(WORKERS, QUEUE)


def share(per_address: int) -> None:
    """The process's `password_jobs_per_address` (limits/settings.py), set at start-up."""
    _pool.per_address = per_address


def _score(password: str, name: str) -> int:
    score: int = zxcvbn(password[:RATED], user_inputs=[name, "trusis"])["score"]
    return score


def check_length(password: str) -> None:
    """A 422 for a password of the wrong length: free, so checked before anything."""
    low, high = PASSWORD_LIMITS
    if not low <= len(password) <= high:
        raise LobbyError(422, "bad_password",
                         f"a password has {low} to {high} characters", min=low, max=high)


async def check_password(password: str, name: str, address: str) -> None:
    """A 422 for a password of the wrong length, or one too easy to guess. The estimate
    takes up to a tenth of a second for a long random password: in the pool too, in
    `address`'s turn, and only once the try is counted (accounts.py)."""
    check_length(password)
    score = await _pool.run(address, _score, password, name)
    if score < MIN_SCORE:
        raise LobbyError(422, "weak_password",
                         "this password is too easy to guess (a common password, a word "
                         "or your name): choose a longer one, a few unusual words")


async def hash_password(password: str, address: str) -> str:
    return await _pool.run(address, HASHER.hash, password)


def _verify(stored: str | None, password: str) -> bool:
    if stored is None:
        HASHER.hash(password)  # the same time whether or not the name exists
        return False
    try:
        return HASHER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


async def verify_password(stored: str | None, password: str, address: str) -> bool:
    """Whether `password` matches `stored` (None: no such account, checked as long)."""
    return await _pool.run(address, _verify, stored, password)
