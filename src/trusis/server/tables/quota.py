"""Who may open what: guests, reports, open and running tables and WebSockets per
player and per address, and the closing of open tables that everybody abandoned.

The counts are this process's (with several processes each keeps its own, which
a load balancer spreading one address over N processes multiplies by at most N).
The numbers are `Limits` (limits/settings.py); every refusal says what to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Iterator
from typing import TypeVar

from starlette.requests import HTTPConnection

from trusis.server.limits.settings import Limits, PerAddress, counted, too_many
from trusis.server.tables.closing import EXPIRED
from trusis.server.tables.hub import Hub
from trusis.server.tables.room import Room

log = logging.getLogger("trusis.server")


K = TypeVar("K")


def quota(connection: HTTPConnection) -> Quota:
    """The app's quota (set at start-up, app.lifespan)."""
    found: Quota = connection.app.state.quota
    return found


def _count(counts: dict[K, int], key: K, step: int) -> None:
    value = counts.get(key, 0) + step
    if value > 0:
        counts[key] = value
    else:
        counts.pop(key, None)


def _spend(budget: PerAddress, key: str, code: str, message: str, limit: int) -> None:
    """One more of `key`'s hourly budget, or a 429 that says when to try again."""
    wait = budget.take(key)
    if wait:
        raise too_many(code, message, wait, limit=limit)


class Quota:
    """The per-player and per-address counts of one process."""

    def __init__(self, limits: Limits, hub: Hub) -> None:
        self.limits = limits
        self.hub = hub
        self.guests = PerAddress(limits.guests_per_address_hour, 3600.0)
        self.reports = PerAddress(limits.reports_per_player_hour, 3600.0)
        """Reports by player (the buckets are keyed by player id here)."""
        self.reports_here = PerAddress(limits.reports_per_address_hour, 3600.0)
        self.tables_made = PerAddress(limits.tables_per_player_hour, 3600.0)
        """Tables created by player (keyed by player id) and by address (`tables_here`)."""
        self.tables_here = PerAddress(limits.tables_per_address_hour, 3600.0)
        self.sockets: dict[str, int] = {}
        """Open WebSockets by address."""
        self.per_table: dict[tuple[str, str], int] = {}
        """Open WebSockets by (player, table)."""
        self.creating: dict[str, int] = {}
        """Tables being created, by host and by address (`opening`)."""
        self.opened: dict[str, str] = {}
        """Open tables created here: table id -> its creator's address."""
        self.seen: dict[str, float] = {}
        """Open tables: when somebody was last connected to each (or it was created)."""
        self.starts: dict[str, int] = {}
        """Games being started, by host and by address (`starting`)."""
        self.running: dict[str, str] = {}
        """Games started here and running: table id -> the address that started it."""
        self.task: asyncio.Task[None] | None = None

    # -- guests ------------------------------------------------------------------

    def new_guest(self, address: str) -> None:
        _spend(self.guests, address, "too_many_guests", "too many new names from your "
               "address in the last hour: keep the name you have, or try again later",
               self.limits.guests_per_address_hour)

    # -- reports -----------------------------------------------------------------

    def new_report(self, player_id: str, address: str) -> None:
        """One more report (R51) of this player from this address, or a 429: a few an
        hour are plenty for a player; one guest filed 760 in 5 s, 4.3 MB kept."""
        _spend(self.reports, player_id, "too_many_reports", "you have sent many reports in "
               "the last hour: the host and the moderators have them; try again later",
               self.limits.reports_per_player_hour)
        _spend(self.reports_here, address, "too_many_reports", "many reports were sent from "
               "your address in the last hour: try again later",
               self.limits.reports_per_address_hour)

    # -- open tables -------------------------------------------------------------

    def _open_rooms(self) -> list[Room]:
        return [r for r in self.hub.rooms.values() if r.status == "open"]

    @contextlib.contextmanager
    def opening(self, player_id: str, address: str) -> Iterator[None]:
        """Around a table's creation: refused if the host, or the host's address, has
        enough open tables — those being created counted too, so that simultaneous
        requests cannot all pass the check before any of them is counted."""
        rooms = self._open_rooms()
        open_ids = {r.id for r in rooms}
        for table_id in [t for t in self.opened if t not in open_ids]:
            del self.opened[table_id]
        mine = sum(1 for r in rooms if r.lobby.host_id == player_id) + \
            self.creating.get(player_id, 0)
        cap = self.limits.open_tables_per_player
        if cap and mine >= cap:
            raise too_many("too_many_open_tables", "you already host "
                           f"{counted(mine, 'table that has', 'tables that have')} not started: "
                           "start or leave one before opening another",
                           60, limit=cap)
        here = sum(1 for a in self.opened.values() if a == address) + \
            self.creating.get(address, 0)
        cap = self.limits.open_tables_per_address
        if cap and here >= cap:
            raise too_many("too_many_open_tables",
                           f"{counted(here, 'table that has', 'tables that have')} not started "
                           f"{'was' if here == 1 else 'were'} opened from your address: start "
                           "one of them first",
                           60, limit=cap)
        self._made(player_id, address)
        _count(self.creating, player_id, 1)
        _count(self.creating, address, 1)
        try:
            yield
        finally:
            _count(self.creating, player_id, -1)
            _count(self.creating, address, -1)

    def _made(self, player_id: str, address: str) -> None:
        """One more table created in the hour by this player and address, or a 429: a table
        closed before its start (D51) frees its open place at once, and one guest made and
        closed 1,327 tables in 10 s, each a row kept for good. Counted once the open-table
        limits passed, so a host told to start one first has spent nothing."""
        _spend(self.tables_made, player_id, "too_many_tables", "you have created many tables "
               "in the last hour: play at one of yours, or join one in the lobby",
               self.limits.tables_per_player_hour)
        _spend(self.tables_here, address, "too_many_tables", "many tables were created from "
               "your address in the last hour: join one in the lobby, or try again later",
               self.limits.tables_per_address_hour)

    def table_created(self, room: Room, address: str) -> None:
        self.opened[room.id] = address
        self.seen[room.id] = time.time()

    # -- running tables ----------------------------------------------------------

    @contextlib.contextmanager
    def starting(self, player_id: str, address: str) -> Iterator[None]:
        """Around a game's start: refused if its host, or the address, already runs
        enough games (those being started counted too). A started game was no longer
        an open table: one address started dozens of 30-seat games that ran for hours,
        all listed in every lobby."""
        rooms = [r for r in self.hub.rooms.values() if r.status == "running"]
        running = {r.id for r in rooms}
        for table_id in [t for t in self.running if t not in running]:
            del self.running[table_id]
        mine = sum(1 for r in rooms if r.lobby.host_id == player_id) + \
            self.starts.get(player_id, 0)
        cap = self.limits.running_tables_per_player
        if cap and mine >= cap:
            raise too_many("too_many_running_tables",
                           f"{counted(mine, 'game you host is', 'games you host are')} running: "
                           "let one end before starting another", 300, limit=cap)
        here = sum(1 for a in self.running.values() if a == address) + \
            self.starts.get(address, 0)
        cap = self.limits.running_tables_per_address
        if cap and here >= cap:
            raise too_many("too_many_running_tables",
                           f"{counted(here, 'game', 'games')} started from your "
                           f"address {'is' if here == 1 else 'are'} running: let one end before "
                           "starting another",
                           300, limit=cap)
        _count(self.starts, player_id, 1)
        _count(self.starts, address, 1)
        try:
            yield
        finally:
            _count(self.starts, player_id, -1)
            _count(self.starts, address, -1)

    def table_started(self, room: Room, address: str) -> None:
        self.running[room.id] = address

    # -- WebSockets --------------------------------------------------------------

    def socket_refusal(self, table_id: str, player_id: str, address: str) -> str | None:
        """Why this connection is one too many (the close reason), or None: then it is
        counted until `socket_closed`."""
        cap = self.limits.sockets_per_table
        if cap and self.per_table.get((player_id, table_id), 0) >= cap:
            return f"too many connections of yours to this table (at most {cap})"
        cap = self.limits.sockets_per_address
        if cap and self.sockets.get(address, 0) >= cap:
            return f"too many connections from your address (at most {cap})"
        _count(self.sockets, address, 1)
        _count(self.per_table, (player_id, table_id), 1)
        return None

    def socket_closed(self, table_id: str, player_id: str, address: str) -> None:
        _count(self.sockets, address, -1)
        _count(self.per_table, (player_id, table_id), -1)

    # -- abandoned tables --------------------------------------------------------

    def start(self) -> None:
        if self.limits.abandoned_seconds > 0:
            self.task = asyncio.create_task(self._sweeping(), name="quota sweep")

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _sweeping(self) -> None:
        period = min(60.0, max(0.5, self.limits.abandoned_seconds / 4))
        while True:
            await asyncio.sleep(period)
            try:
                await self.sweep(time.time())
            except Exception:
                log.exception("closing abandoned tables failed; tried again later")

    async def sweep(self, now: float) -> list[str]:
        """Close the open tables nobody has been connected to for `abandoned_seconds` (a
        slow one, `slow_abandoned_seconds`: D62): they leave `/api/tables`, and their
        address answers 410 `table_expired`."""
        closed = []
        rooms = self._open_rooms()
        for table_id in [t for t in self.seen if t not in {r.id for r in rooms}]:
            del self.seen[table_id]
        for room in rooms:
            if not room.owned:
                continue
            if room.clients or room.peers.elsewhere():
                self.seen[room.id] = now
                continue
            since = max(room.created_at, self.seen.setdefault(room.id, now))
            if now - since < (self.limits.slow_abandoned_seconds if room.lobby.options.slow
                              else self.limits.abandoned_seconds):
                continue
            async with room.lock:
                if room.status != "open" or room.clients:
                    continue
                await self.hub.store.rooms.set_open_status(room.id, EXPIRED)
                room.life.expire()
            self.hub.rooms.pop(room.id, None)
            self.seen.pop(room.id, None)
            self.opened.pop(room.id, None)
            self.hub.owner.released(room)
            closed.append(room.id)
        if closed:
            log.info("closed %d abandoned open tables", len(closed))
        return closed
