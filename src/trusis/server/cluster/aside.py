"""A process cut off from PostgreSQL or Redis steps aside, and its clients go elsewhere.

Killed, a process is replaced within a lease; cut off, it used to stay in place: its
clients got no answer, and no close, until the link healed (issue 41). Each link is
watched by a heartbeat bounded in time (data/heartbeat.py for the database: the lease
renewal itself; cluster/bus.py for Redis), and one that has not answered for
three quarters of a lease (`notice`) is down. Then the process:

- lets its games go: their leases at once when the database still answers (Redis
  is what it lost), or as they run out — in either case before another process may
  take them over; their timers and bots stop, and they write nothing more;
- closes every connection it holds with `RECONNECT_CODE`, and refuses new ones with
  503 (api/outage.py), so that its clients reconnect, through the proxy, to a process
  that serves them — the new owner, within seconds of its takeover;
- takes nothing over, and opens no table, until both links answer again.

It never reads the database to do any of this: the database may be what it lost.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from trusis.server.cluster.bus import Bus, channel
from trusis.server.cluster.replica import LetGo
from trusis.server.data.leases import Leases
from trusis.server.errors import LobbyError
from trusis.server.monitoring.outage import RECONNECT_CODE, SAID, Link
from trusis.server.tables.room import Room

log = logging.getLogger("trusis.server")

NOTICE_LEASES = 0.75
"""A link that has not answered for this many leases is down: the process steps aside
before its leases can have run out (another process may take the games over then)..."""
NOTICE_SECONDS = 2.0
"""... or for this long, if longer: a busy machine may leave an answer unread for a second
(a short lease then runs out first, and the fencing numbers keep the games safe)."""


def notice(lease_seconds: float) -> float:
    """How long a link goes unanswered before it is down."""
    return max(lease_seconds * NOTICE_LEASES, NOTICE_SECONDS)

NAMES: dict[Link, str] = {"database": "PostgreSQL", "redis": "Redis"}


def cut_off(link: Link) -> LobbyError:
    """A table asked of a process that is cut off: it serves none now."""
    return LobbyError(503, "unavailable", SAID[link])


class Aside:
    """Stepping aside and back, for the node (node.py): given its leases and bus (whose
    heartbeats say what is down), its rooms and their idle times (a room set aside leaves
    both) and how it runs background work."""

    def __init__(self, leases: Leases, bus: Bus, rooms: dict[str, Room],
                 idle_since: dict[str, float],
                 spawn: Callable[[Coroutine[Any, Any, Any]], None]) -> None:
        self.leases = leases
        self.bus = bus
        self.rooms = rooms
        self.idle_since = idle_since
        self.spawn = spawn
        self.cut: tuple[Link, float] | None = None
        """What this process cannot reach, and since when (monotonic): None while serving."""
        self.cuts = 0
        self.set_aside: dict[str, Room] = {}
        """The rooms it let go of while cut off: a connection that joined one meanwhile is
        closed too, at the next beat."""

    def unreachable(self) -> Link | None:
        """What this process cannot reach now, by the heartbeats."""
        if not self.leases.heartbeat.up:
            return "database"
        if not self.bus.up:
            return "redis"
        return None

    @property
    def serving(self) -> bool:
        return self.unreachable() is None

    async def step_aside(self, link: Link) -> None:
        """Cut off from `link`: serve no game until both links answer again. Every
        connection closes with RECONNECT_CODE; one that joined a room let go of
        meanwhile, at the next beat."""
        if self.cut is None:
            self.cut = (link, time.monotonic())
            self.cuts += 1
            log.warning("cluster: cannot reach %s; this process serves no game until it "
                        "can (its games go to the other processes, its clients reconnect "
                        "to them)", NAMES[link])
        for room in list(self.rooms.values()):
            self._set_aside(room)
        for room in self.set_aside.values():
            for client in list(room.clients):
                client.shut(RECONNECT_CODE, "unavailable")

    def _set_aside(self, room: Room) -> None:
        """Let go of `room` without asking the database: if it owned the game, it writes
        nothing from now on, and its timers and bots stop."""
        if self.rooms.get(room.id) is room:
            del self.rooms[room.id]
        self.idle_since.pop(room.id, None)
        self.set_aside[room.id] = room
        if room.owned:
            room.peers = LetGo(room, lambda _room: None)
            if room.host is not None:
                room.host.bots = None
                room.host.wake.set()  # its timers see it no longer writes, and stop
        self.spawn(self.bus.unsubscribe(channel("o", room.id)))
        self.spawn(self.bus.unsubscribe(channel("t", room.id)))

    def serve_again(self) -> None:
        """Both links answer again: games are opened and taken over as before."""
        if self.cut is None:
            return
        link, since = self.cut
        log.warning("cluster: %s answers again after %.1f s; serving again", NAMES[link],
                    time.monotonic() - since)
        self.cut = None
        self.set_aside.clear()
