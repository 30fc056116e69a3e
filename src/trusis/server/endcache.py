"""Finished games' end screens and replay steps, built once, off the event loop.

A finished game no longer changes but for its chat after the end, so what
`/summary` and `/replay` answer is kept, keyed by the record's length (a new
message makes a new key). Building one replays the whole game: that runs in a
thread, so the event loop keeps serving every table meanwhile, and only the
first request pays for it. The cache is bounded (limits.py: `summaries_cached`).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from starlette.requests import HTTPConnection

from trusis.server.room import Room

STEPS_PER_GAME = 8
"""Entries kept per cached game: its end screen in a language or two, some replay steps."""


class EndCache:
    def __init__(self, games: int) -> None:
        self.size = max(1, games * STEPS_PER_GAME)
        self.kept: OrderedDict[Hashable, Any] = OrderedDict()
        self.building: dict[Hashable, asyncio.Future[Any]] = {}

    def hit(self, key: Hashable) -> Any | None:
        found = self.kept.get(key)
        if found is not None:
            self.kept.move_to_end(key)
        return found

    async def build(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """`make()` in a thread, once for simultaneous requests of the same key."""
        running = self.building.get(key)
        if running is None:
            running = self.building[key] = asyncio.ensure_future(asyncio.to_thread(make))
            running.add_done_callback(lambda _f: self.building.pop(key, None))
        value = await asyncio.shield(running)
        self.kept[key] = value
        while len(self.kept) > self.size:
            self.kept.popitem(last=False)
        return value


def ends(connection: HTTPConnection) -> EndCache:
    found: EndCache = connection.app.state.ends
    return found


def version(room: Room) -> int:
    """The record's length: what changes when a message after the end is added."""
    return len(room.table.record.actions) if room.table is not None else -1
