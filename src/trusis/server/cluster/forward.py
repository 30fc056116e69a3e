"""Forwarding: a request reaches the game's owner, whichever process that is.

A request is published on the game's owner channel (`o:<table>`) with an id and
this process's answer channel. `PUBLISH` says how many processes heard it: none
means no process owns the game at this moment (its owner died, or a takeover
is under way), so it is tried again shortly. A heard request with no answer in
time is tried again only when it may be applied twice safely (`again`: a
command, which its client id makes once-only); otherwise the caller is told
that the owner is unavailable. When this process becomes the owner meanwhile,
the request runs here (`here`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from trusis.server.cluster.bus import Bus, channel
from trusis.server.cluster.messages import Act, Failure, Lobby, Reply
from trusis.server.room import Room
from trusis.server.store import LeaseLost, new_id

log = logging.getLogger("trusis.server")

ANSWER_SECONDS = 5.0
"""How long one forwarded request waits for its answer before it is sent again."""
FORWARD_SECONDS = 20.0
"""How long a forwarded request keeps looking for an owner (a takeover takes a few seconds)."""

Request = Act | Lobby
Here = Callable[[], Awaitable[Reply]]
Serve = Callable[[Room, Request], Awaitable[Reply]]


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
                 post: Callable[[str, Reply], None]) -> None:
        self.bus = bus
        self.post = post  # publish without waiting, in order, pipelined (node.py)
        self.name = name
        self.tick = tick
        self.waiting: dict[str, asyncio.Future[Reply]] = {}
        self.count = 0

    def heard(self, reply: Reply) -> None:
        """An answer came back on this process's channel."""
        waiting = self.waiting.get(reply.req)
        if waiting is not None and not waiting.done():
            waiting.set_result(reply)

    async def on_owner(self, room: Room, here: Here, message: Request, again: bool) -> Reply:
        """`here()` if this process owns the game; otherwise the owner's answer to
        `message`. `again`: the request may be sent twice (it is applied once)."""
        began = time.monotonic()
        give_up = began + FORWARD_SECONDS
        try:
            return await self._on_owner(room, here, message, again, give_up)
        finally:
            if time.monotonic() - began > ANSWER_SECONDS:
                log.warning("table %s: a %s request took %.1f s to reach its owner", room.id,
                            message.k, time.monotonic() - began)

    async def _on_owner(self, room: Room, here: Here, message: Request, again: bool,
                        give_up: float) -> Reply:
        delivered = False
        while True:
            if room.owned:
                try:
                    return await here()
                except LeaseLost:  # it follows now (a lobby write finds out here): ask again
                    await demote(room)
                    continue
            heard, answer = await self._ask(room.id, message)
            delivered = delivered or heard
            if answer is not None and not answer.not_owner:
                return answer
            if answer is None and not again and delivered:
                raise OwnerUnavailable(room.id)
            if time.monotonic() > give_up:
                raise OwnerUnavailable(room.id)
            await asyncio.sleep(0.1)

    async def _ask(self, table_id: str, message: Request) -> tuple[bool, Reply | None]:
        """Whether some process heard the request, and its answer if one came in time."""
        request = new_id(16)
        waiting: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self.waiting[request] = waiting
        try:
            heard = await self.bus.publish(channel("o", table_id), message.model_copy(
                update={"req": request, "sender": self.name}))
            if heard <= 0:
                await asyncio.sleep(self.tick / 2)  # nobody owns it right now
                return False, None
            self.count += 1
            return True, await asyncio.wait_for(asyncio.shield(waiting), ANSWER_SECONDS)
        except TimeoutError:
            return True, None
        finally:
            self.waiting.pop(request, None)

    async def answer(self, room: Room, message: Request, serve: Serve) -> None:
        """As the owner: run a forwarded request, and send its answer back."""
        try:
            reply = (await serve(room, message) if room.owned
                     else Reply(req=message.req, not_owner=True))
        except LeaseLost:
            await demote(room)
            reply = Reply(req=message.req, not_owner=True)
        except Exception:
            log.exception("table %s: a forwarded request failed", room.id)
            reply = Reply(req=message.req, error=Failure(
                status=500, code="server_error", params={},
                message="the server could not do this"))
        self.post(channel("r", message.sender), reply.model_copy(update={"req": message.req}))
