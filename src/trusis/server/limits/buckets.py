"""Per-player rate limits: token buckets kept by the room, so reconnecting resets nothing."""

from __future__ import annotations

import math
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


@dataclass
class Budgets:
    """Every player's budget at one table, kept by its room from the waiting room on: the
    game's host (host.py) takes the same ones, so the start resets nothing either."""

    players: dict[str, Budget] = field(default_factory=dict)

    def budget(self, player_id: str) -> Budget:
        budget = self.players.get(player_id)
        if budget is None:
            budget = self.players[player_id] = Budget()
        return budget

    def allowed(self, player_id: str, chat: bool) -> bool:
        """The per-player rate limits (commands, and chat on its own)."""
        return self.budget(player_id).take(chat)

    def retry_after(self, player_id: str, chat: bool) -> int:
        """Whole seconds (at least 1) until a refused command would be allowed again."""
        return max(1, math.ceil(self.budget(player_id).retry_after(chat)))
