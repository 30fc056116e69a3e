"""Forwarding: a request reaches the game's owner, whichever process that is.

A request is published on the game's owner channel (`o:<table>`) with an id and
this process's answer channel. `PUBLISH` says how many processes heard it: none
means no process owns the game at this moment (its owner died, or a takeover
is under way), so it is tried again shortly. A heard request with no answer in
time is tried again only when it may be applied twice safely (`again`: a
command, which its client id makes once-only); otherwise the caller is told
that the owner is unavailable. When this process becomes the owner meanwhile,
the request runs here (`local`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from trusis.server.cluster.bus import Bus, channel
from trusis.server.room import Room
from trusis.server.store import LeaseLost, new_id

log = logging.getLogger("trusis.server")

ANSWER_SECONDS = 5.0
"""How long one forwarded request waits for its answer before it is sent again."""
FORWARD_SECONDS = 20.0
"""How long a forwarded request keeps looking for an owner (a takeover takes a few seconds)."""

Local = Callable[[], Awaitable[dict[str, Any]]]
Serve = Callable[[Room, dict[str, Any]], Awaitable[dict[str, Any]]]


async def demote(room: Room) -> None:
    """The lease was found lost on a write: the room follows the new owner from now on."""
    if room.owned:
        async with room.lock:
            if room.owned:
                await room.lose()


class OwnerUnavailable(Exception):
    """No process answered for the game in time."""


class Forwarder:
    """This process's forwarded requests, waiting for their answers."""

    def __init__(self, bus: Bus, name: str, tick: float,
                 post: Callable[[str, dict[str, Any]], None]) -> None:
        self.bus = bus
        self.post = post  # publish without waiting, in order, pipelined (node.py)
        self.name = name
        self.tick = tick
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.count = 0

    def heard(self, data: dict[str, Any]) -> None:
        """An answer came back on this process's channel."""
        waiting = self.waiting.get(str(data.get("req")))
        if waiting is not None and not waiting.done():
            waiting.set_result(data)

    async def on_owner(self, room: Room, local: Local, message: dict[str, Any],
                       again: bool) -> dict[str, Any]:
        """`local()` if this process owns the game; otherwise the owner's answer to
        `message`. `again`: the request may be sent twice (it is applied once)."""
        began = time.monotonic()
        give_up = began + FORWARD_SECONDS
        try:
            return await self._on_owner(room, local, message, again, give_up)
        finally:
            if time.monotonic() - began > ANSWER_SECONDS:
                log.warning("table %s: a %s request took %.1f s to reach its owner", room.id,
                            message["k"], time.monotonic() - began)

    async def _on_owner(self, room: Room, local: Local, message: dict[str, Any], again: bool,
                        give_up: float) -> dict[str, Any]:
        while True:
            if room.owned:
                try:
                    return await local()
                except LeaseLost:  # it follows now (a lobby write finds out here): ask again
                    await demote(room)
                    continue
            answer = await self._ask(room.id, message)
            if answer is not None and not answer.get("not_owner"):
                return answer
            if answer is None and not again and message.get("delivered"):
                raise OwnerUnavailable(room.id)
            if time.monotonic() > give_up:
                raise OwnerUnavailable(room.id)
            await asyncio.sleep(0.1)

    async def _ask(self, table_id: str, message: dict[str, Any]) -> dict[str, Any] | None:
        request = new_id(16)
        waiting: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[request] = waiting
        try:
            heard = await self.bus.publish(channel("o", table_id),
                                           {**message, "req": request, "from": self.name})
            if heard <= 0:
                await asyncio.sleep(self.tick / 2)  # nobody owns it right now
                return None
            message["delivered"] = True
            self.count += 1
            return await asyncio.wait_for(asyncio.shield(waiting), ANSWER_SECONDS)
        except TimeoutError:
            return None
        finally:
            self.waiting.pop(request, None)

    async def answer(self, room: Room, data: dict[str, Any], serve: Serve) -> None:
        """As the owner: run a forwarded request, and send its answer back."""
        reply_to = channel("r", str(data["from"]))
        try:
            answer = await serve(room, data) if room.owned else {"not_owner": True}
        except LeaseLost:
            await demote(room)
            answer = {"not_owner": True}
        except Exception:
            log.exception("table %s: a forwarded request failed", room.id)
            answer = {"error": {"status": 500, "code": "server_error", "params": {},
                                "message": "the server could not do this"}}
        self.post(reply_to, {**answer, "req": data["req"]})
