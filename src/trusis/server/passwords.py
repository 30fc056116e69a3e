"""Passwords: which ones are accepted, and hashing them without stalling the games.

argon2id costs about a quarter of a second of CPU a hash, on purpose. Run on the
event loop, every table of the process would wait that long at each login; so
hashes run in a small pool of threads (argon2 releases the GIL while it works),
at most half the machine's cores, and a burst of logins waits in its queue
instead of taking every core from the games. The queue is bounded too: past
QUEUE waiting jobs (a flood from many addresses at once, each within its own
budget) a login or registration is refused at once, 503 `busy`, rather than
waiting for minutes.

A password is refused when zxcvbn (Dropbox's estimator, with its lists of the most
common passwords, words and names) rates it among the first million guesses, the
player's own name counting as a word of the list.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
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


class Pool:
    """The hashing threads, and how many jobs wait for them."""

    def __init__(self, workers: int, queue: int) -> None:
        self.threads = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="argon2")
        self.queue = queue
        self.waiting = 0

    async def run(self, job: Callable[..., T], *args: Any) -> T:
        if self.waiting >= self.queue:
            raise LobbyError(503, "busy", "the server is busy: try again in a moment",
                             retry_after=5)
        self.waiting += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self.threads, job, *args)
        finally:
            self.waiting -= 1


_pool = Pool(WORKERS, QUEUE)


def _score(password: str, name: str) -> int:
    score: int = zxcvbn(password[:RATED], user_inputs=[name, "trusis"])["score"]
    return score


async def check_password(password: str, name: str) -> None:
    """A 422 for a password of the wrong length, or one too easy to guess. The estimate
    takes up to a tenth of a second for a long random password: in the pool too."""
    low, high = PASSWORD_LIMITS
    if not low <= len(password) <= high:
        raise LobbyError(422, "bad_password",
                         f"a password has {low} to {high} characters", min=low, max=high)
    score = await _pool.run(_score, password, name)
    if score < MIN_SCORE:
        raise LobbyError(422, "weak_password",
                         "this password is too easy to guess (a common password, a word "
                         "or your name): choose a longer one, a few unusual words")


async def hash_password(password: str) -> str:
    return await _pool.run(HASHER.hash, password)


def _verify(stored: str | None, password: str) -> bool:
    if stored is None:
        HASHER.hash(password)  # the same time whether or not the name exists
        return False
    try:
        return HASHER.verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


async def verify_password(stored: str | None, password: str) -> bool:
    """Whether `password` matches `stored` (None: no such account, checked as long)."""
    return await _pool.run(_verify, stored, password)
