"""Finished games' end screens and replay steps, built once, off the event loop.

A finished game no longer changes but for its chat after the end, so what
`/summary` and `/replay` answer is kept, keyed by the record's length (a new
message makes a new key). Building one replays the whole game: that runs in a
thread, so the event loop keeps serving every table meanwhile, and only the
first request pays for it. What is kept is the answer's JSON bytes (a 30-seat game's
replay step is about 24 KB, its end screen 11 KB): the cache is bounded in entries
(limits/settings.py: `summaries_cached` games of STEPS_PER_GAME entries), so in bytes too.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import orjson
from starlette.requests import HTTPConnection
from starlette.responses import Response

from trusis.server.tables.room import Room

STEPS_PER_GAME = 8
"""Entries kept per cached game: its end screen in a language or two, some replay steps."""


class EndCache:
    def __init__(self, games: int) -> None:
        self.size = max(1, games * STEPS_PER_GAME)
        self.kept: OrderedDict[Hashable, bytes] = OrderedDict()
        self.building: dict[Hashable, asyncio.Future[bytes]] = {}

    def hit(self, key: Hashable) -> Response | None:
        found = self.kept.get(key)
        if found is None:
            return None
        self.kept.move_to_end(key)
        return _json(found, "hit")

    async def build(self, key: Hashable, make: Callable[[], Any]) -> Response:
        """`make()` in a thread, once for simultaneous requests of the same key; its JSON
        answer."""
        running = self.building.get(key)
        if running is None:
            running = self.building[key] = asyncio.ensure_future(
                asyncio.to_thread(lambda: orjson.dumps(make())))
            running.add_done_callback(lambda _f: self.building.pop(key, None))
        value = await asyncio.shield(running)
        self.kept[key] = value
        while len(self.kept) > self.size:
            self.kept.popitem(last=False)
        return _json(value, "fwd=miss; stored")


def _json(body: bytes, status: str) -> Response:
    """The answer, with where it came from as an RFC 9211 `Cache-Status` header (so a
    proxy's operator, and a test, can tell a cached answer from a rebuilt one)."""
    return Response(body, media_type="application/json",
                    headers={"Cache-Status": f"trusis; {status}"})


def ends(connection: HTTPConnection) -> EndCache:
    found: EndCache = connection.app.state.ends
    return found


def version(room: Room) -> int:
    """The record's length: what changes when a message after the end is added."""
    return len(room.host.table.record.actions) if room.host is not None else -1
