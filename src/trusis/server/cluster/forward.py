"""Forwarding: a request reaches the game's owner, whichever process that is.

A request is published on the game's owner channel (`o:<table>`) with an id and
this process's answer channel. `PUBLISH` says how many processes heard it: none
means no process owns the game at this moment (its owner died, or a takeover
is under way), so it is tried again shortly. When this process becomes the owner
meanwhile, the request runs here (`here`).

A request that was heard may still be waiting on a stalled link, and reach its
owner much later (issue 41: at the heal of a black-holed Redis). So it carries a
deadline by the database's clock, which every process reckons alike (`clock`,
data/heartbeat.py), and its owner never runs it after that (`expired`):

- a command (`again`: its client id makes it once-only, so it is sent again until
  answered) may be applied until `APPLY_SECONDS` after it was first sent, and stored
  until `STORE_SECONDS` after that (data/commits.py checks it as the commit's last
  statement). Once those and the bound on a transaction's idle time have passed,
  nothing can store it any more: if no answer came, or a failure, the store says
  whether it was (`Unsettled`: the caller looks). `unavailable` is answered only when
  it was not: it means "not applied", always. A game taken over here meanwhile runs
  the command here at once instead (its id keeps it once-only);
- a lobby request is tried once it was heard: with no answer in `ANSWER_SECONDS`,
  the caller is told the owner is unavailable, and its owner does not start it
  after that (one it started before may still be done: docs/protocol.md says so).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from trusis.server.cluster.bus import Bus, channel
from trusis.server.cluster.messages import Act, Failure, Lobby, Reply
from trusis.server.data.commits import STORE_BY, TooLate
from trusis.server.data.heartbeat import unreachable
from trusis.server.data.store import LeaseLost, new_id
from trusis.server.tables.room import Room

log = logging.getLogger("trusis.server")

ANSWER_SECONDS = 5.0
"""How long one forwarded request waits for its answer before it is sent again (a
command) or given up (a lobby request)."""
FORWARD_SECONDS = 20.0
"""How long a lobby request unheard keeps looking for an owner (a takeover takes a few
seconds)."""
APPLY_SECONDS = 10.0
"""A forwarded command is applied within this long of being first sent, or never."""
STORE_SECONDS = 5.0
"""... and stored within this long after that, or never."""
SLACK_SECONDS = 1.0
"""Added to every bound the forwarder waits out: the database's clock as reckoned here
runs behind it by an answer's way back."""
LOOK_SECONDS = 0.25
"""How often a request waiting for its answer looks whether this process owns the game
now (a takeover here: it runs here at once)."""

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
    """No owner ran the request, and none will: a command was not applied."""


class Unsettled(Exception):
    """A command may have been applied and its answer lost; its owner can no longer
    store it, so the store says which (cluster/owner.py looks)."""


class Forwarder:
    """This process's forwarded requests, waiting for their answers."""

    def __init__(self, bus: Bus, name: str, tick: float,
                 post: Callable[[str, Reply], None], clock: Callable[[], float],
                 transaction_seconds: float) -> None:
        self.bus = bus
        self.post = post  # publish without waiting, in order, pipelined (node.py)
        self.name = name
        self.tick = tick
        self.clock = clock
        self.settled_after = APPLY_SECONDS + STORE_SECONDS + transaction_seconds \
            + SLACK_SECONDS
        """From a command's first sending until no commit can store it (commits.py: its
        commit's last statement is before its deadline, and PostgreSQL ends a
        transaction idle for `transaction_seconds`)."""
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
        try:
            return await self._on_owner(room, here, message, again)
        finally:
            if time.monotonic() - began > ANSWER_SECONDS:
                log.warning("table %s: a %s request took %.1f s to reach its owner", room.id,
                            message.k, time.monotonic() - began)

    async def _on_owner(self, room: Room, here: Here, message: Request, again: bool) -> Reply:
        first = self.clock()
        if again:
            message = message.model_copy(update={"until": first + APPLY_SECONDS})
        maybe = False  # a copy may have reached the owner, now or later
        while True:
            if room.owned:
                try:
                    return await here()
                except LeaseLost:  # it follows now (a lobby write finds out here): ask again
                    await demote(room)
                    continue
            if not again:  # each try of a lobby request has a deadline of its own
                message = message.model_copy(update={"until": self.clock() + ANSWER_SECONDS})
            heard, answer = await self._ask(room, message)
            maybe = maybe or heard != 0
            if answer is not None and answer.expired:
                raise OwnerUnavailable(room.id)  # not applied, and it never will be
            if answer is not None and not answer.not_owner:
                if again and answer.error is not None:  # it failed there, maybe once stored:
                    if await self._owned_by(room, first + self.settled_after):
                        continue  # taken over here: run here, once-only by its id
                    raise Unsettled(room.id)  # the store says, once nothing can store it
                return answer
            if not again and ((heard > 0 and answer is None)
                              or self.clock() > first + FORWARD_SECONDS):
                raise OwnerUnavailable(room.id)
            if again and self.clock() > first + self.settled_after:
                if maybe:
                    raise Unsettled(room.id)
                raise OwnerUnavailable(room.id)  # nobody ever heard it
            await asyncio.sleep(0.1)

    async def _owned_by(self, room: Room, deadline: float) -> bool:
        """Whether this process owns `room` before `deadline` (by the database's clock),
        looked at every LOOK_SECONDS. Owning it, it read the game back after the last
        commit its former owner could make (the fencing number ends its lease): a command
        that failed there is run here, and its id tells whether it was stored."""
        while not room.owned:
            if self.clock() >= deadline:
                return False
            await asyncio.sleep(min(LOOK_SECONDS, max(0.0, deadline - self.clock())))
        return True

    async def _ask(self, room: Room, message: Request) -> tuple[int, Reply | None]:
        """How many processes heard the request (-1: unknown, Redis did not answer), and
        its answer if one came in time."""
        request = new_id(16)
        waiting: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self.waiting[request] = waiting
        try:
            heard = await self.bus.publish(channel("o", room.id), message.model_copy(
                update={"req": request, "sender": self.name}))
            if heard <= 0:
                await asyncio.sleep(self.tick / 2)  # nobody owns it right now, or no Redis
                return heard, None
            self.count += 1
            end = time.monotonic() + ANSWER_SECONDS
            while (left := end - time.monotonic()) > 0 and not room.owned:
                try:
                    return heard, await asyncio.wait_for(asyncio.shield(waiting),
                                                         min(left, LOOK_SECONDS))
                except TimeoutError:
                    continue
            return heard, None
        finally:
            self.waiting.pop(request, None)

    async def _late(self, room: Room, message: Request) -> Reply:
        """A request past its deadline is not run. But a command already run here (another
        copy of it, sent earlier) keeps its answer, once the copy being stored is: only
        then is `expired` sure to mean that it was not applied."""
        if isinstance(message, Act) and room.owned:
            book, key = room.answers, (message.player, message.client)
            while (pending := book.pending.get(key)) is not None:
                await asyncio.shield(pending)
            known = book.answer(message.player, message.client)
            if known is not None:
                return Reply(req=message.req, answer=known.copy())
        return Reply(req=message.req, expired=True)

    async def answer(self, room: Room, message: Request, serve: Serve) -> None:
        """As the owner: run a forwarded request, unless it came after its deadline, and
        send its answer back. A command is stored only before its own (commits.py)."""
        try:
            if message.until is not None and self.clock() >= message.until:
                reply = await self._late(room, message)
            elif not room.owned:
                reply = Reply(req=message.req, not_owner=True)
            else:
                if isinstance(message, Act) and message.until is not None:
                    STORE_BY.set(message.until + STORE_SECONDS)  # this task's only
                reply = await serve(room, message)
        except LeaseLost:
            await demote(room)
            reply = Reply(req=message.req, not_owner=True)
        except TooLate:
            reply = Reply(req=message.req, expired=True)
        except Exception as err:
            if unreachable(err):  # not written: asked again, here or where it goes (aside.py)
                log.warning("table %s: a forwarded request met the database away (%s)",
                            room.id, type(err).__name__)
                reply = Reply(req=message.req, not_owner=True)
                self.post(channel("r", message.sender), reply)
                return
            log.exception("table %s: a forwarded request failed", room.id)
            reply = Reply(req=message.req, error=Failure(
                status=500, code="server_error", params={},
                message="the server could not do this"))
        self.post(channel("r", message.sender), reply.model_copy(update={"req": message.req}))
