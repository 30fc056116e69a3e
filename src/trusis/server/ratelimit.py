"""Per-player rate limits: token buckets kept by the room, so reconnecting resets nothing."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Bucket:
    capacity: float
    per_second: float
    tokens: float = -1.0
    stamp: float = field(default_factory=time.monotonic)

    def take(self) -> bool:
        now = time.monotonic()
        if self.tokens < 0:
            self.tokens = self.capacity
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.per_second)
        self.stamp = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def wait(self) -> float:
        """Seconds until `take` would succeed again (0 when it would now)."""
        if self.tokens < 0:
            return 0.0
        now = time.monotonic()
        tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.per_second)
        return max(0.0, (1 - tokens) / self.per_second)


@dataclass
class Budget:
    """A player's budget at one table: commands (20 at once, 10 a second) and chat
    (8 at once, one every 2 seconds), the chat counting against both."""

    commands: Bucket = field(default_factory=lambda: Bucket(20, 10))
    chat: Bucket = field(default_factory=lambda: Bucket(8, 0.5))

    def take(self, chat: bool) -> bool:
        if chat and not self.chat.take():
            return False
        return self.commands.take()

    def retry_after(self, chat: bool) -> float:
        """Seconds until a refused command (or chat line) would be taken again."""
        wait = self.commands.wait()
        return max(wait, self.chat.wait()) if chat else wait
