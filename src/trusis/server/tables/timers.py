"""What runs by itself at a table whose game this process writes.

One task per game: the phase timer (R12), the grace period of absent players
(R52: the seat leaves, or a bot takes it over, R53; its choices of the phase stand,
D50) and the bots' thinking, each
firing at its moment and each going through the game's one writer
(`GameHost.submit`, host.py), so a timed action is stored, delivered and counted exactly like
a player's. The task stops when the game ends or this process stops writing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from trusis.rules.actions import TIMEOUT, Action
from trusis.server.data.store import LeaseLost
from trusis.server.monitoring import logs
from trusis.server.tables import thinking
from trusis.server.tables.room import Room
from trusis.server.tables.seats.handover import grace_over

log = logging.getLogger("trusis.server")


def start_timers(room: Room) -> None:
    """Run `room`'s timers (again, after a restart or a takeover)."""
    if room.host is None:
        return  # no game to time (a table still in its lobby)
    timers = room.host.timers
    if not isinstance(timers, Timers):
        timers = room.host.timers = Timers(room)
    timers.start()


class Timers:
    """The timed moments of one game: its deadline, its absent seats, its bots."""

    def __init__(self, room: Room) -> None:
        self.room = room
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._run(), name=f"room {self.room.id}",
                                            context=logs.game_context(self.room.id))

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task

    async def _run(self) -> None:
        room = self.room
        while (host := room.host) is not None and host.table.state.running and room.owned:
            now = time.time()
            moments = [m for m in (host.deadline, self.next_grace(),
                                   host.bots.next_due() if host.bots else None)
                       if m is not None]
            delay = max(0.0, min(moments) - now) if moments else 30.0
            host.wake.clear()
            if delay > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(host.wake.wait(), delay)
            try:
                await self.due(time.time())
            except asyncio.CancelledError:
                raise
            except LeaseLost:
                return  # another process writes the game now: its timers run there
            except Exception:
                log.exception("table %s: a timed step failed; retrying", room.id)
                await asyncio.sleep(1.0)

    def next_grace(self) -> float | None:
        away = self.room.away
        if not away:
            return None
        return min(away.values()) + self.room.lobby.options.grace()

    async def due(self, now: float) -> None:
        """Do what is due at `now`: a deadline passed fires once (its timeout ends the
        phase, R12), a grace period over hands the seat on (R52), the bots act."""
        room, host = self.room, self.room.host
        assert host is not None
        table = host.table
        if host.deadline is not None and now >= host.deadline and table.state.running:
            await host.submit(Action(TIMEOUT))  # once: it ends the phase (R12)
            return
        for seat, since in list(room.away.items()):
            if now < since + room.lobby.options.grace():  # D63 at a slow table
                continue
            if table.state.running:  # R52, its choices of the phase standing (D50)
                await grace_over(room, seat, since)
            # R52: no longer away only once handed on — a failed write raised above and
            # the seat stays due, tried again at the next step (unless it came back).
            if room.away.get(seat) == since:
                del room.away[seat]
        if host.bots is not None:
            await thinking.current().ahead(host.bots, time.time())  # off the loop
            if host.table.state.running is False or room.host is not host:
                return
            for action in host.bots.step(time.time()):
                await host.submit(action)
                if not table.state.running:
                    return
