"""A replica: this process's copy of a game another process writes.

The writer announces what it stored (`Actions`, from a record index on) and the
lobby facts of the table (`TableFacts`: status, seats, who is connected, the
rematch). A replica applies the same recorded actions to its own `Table` — the
engine is deterministic, so its views and streams are the writer's, byte for
byte — and pushes them to its own clients through the same view code as the
writer. A gap in the indexes means a message was missed: the store has every
action (node.py reads them back). The replica tells the writer which seats are
connected here, so that nobody's grace period (R52) starts while they are.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from trusis.rules.actions import Action
from trusis.server.cluster.messages import TableFacts, WaitingLine
from trusis.server.connections.frames import WaitingLine as FrameLine
from trusis.server.data.commits import Fence
from trusis.server.data.rows import ActionRow
from trusis.server.tables import room_chat
from trusis.server.tables.peers import Stored
from trusis.server.tables.rematch.news import tell_rematch
from trusis.server.tables.room import Room
from trusis.server.tables.seats.seat import Reservation, Seat


class Replica:
    """Peers of a copy of a game another process writes."""

    def __init__(self, room: Room, tell_presence: Callable[[Room], None]) -> None:
        self.room = room
        self._tell_presence = tell_presence
        self.shared: tuple[frozenset[int], int] | None = None
        """The connected seats and spectators of every process, as the writer says."""
        self.advanced = asyncio.Event()
        """Set (and replaced) each time this copy moves on (`reached` waits on it)."""
        self.facts = 0
        """How many lobby facts of the writer this copy took: a read of the store that
        began before the last one may be older than them (node.py `catch_up`)."""

    @property
    def writes(self) -> bool:
        return False

    @property
    def fence(self) -> Fence:
        return None

    def stored(self, stored: Stored) -> None:
        raise AssertionError("a replica stores nothing")

    def table_changed(self) -> None:
        return None  # the writer tells the table's facts

    def removed(self, player_id: str) -> None:
        raise AssertionError("a replica removes nobody: the writer does (D34)")

    def clients_changed(self) -> None:
        self._tell_presence(self.room)

    def connected(self, seat: int) -> bool:
        return self.shared is not None and seat in self.shared[0]

    def spectators(self, here: int) -> int:
        return here if self.shared is None else self.shared[1]

    def elsewhere(self) -> bool:
        return self.shared is not None

    async def lost(self) -> None:
        raise AssertionError("a replica holds no lease")

    def moved(self) -> None:
        """This copy applied more of the record: wake whoever waits for it."""
        moved, self.advanced = self.advanced, asyncio.Event()
        moved.set()


def apply_facts(room: Room, data: TableFacts) -> bool:
    """Take the owner's lobby facts; True when the game must be read back from the
    store (it started, or ended, and this copy has not seen it)."""
    seats = {n: Seat(s.kind, s.name, s.player_id, s.bot_kind) for n, s in data.seats.items()}
    replica = room.peers
    assert isinstance(replica, Replica), "the writer's facts are for its replicas"
    shared = (frozenset(data.connected), data.spectators)
    host = room.host
    deadline = host.deadline if host else None
    before = (room.lobby.seats, replica.shared, room.status, deadline, room.lobby.quit,
              room.lobby.host_name)
    replica.facts += 1
    changed = room.lobby.replace_all(seats)
    if data.host_name is not None:  # the host renamed themself (D46)
        room.lobby.rename_host(room.lobby.host_id, data.host_name)
    replica.shared = shared
    room.lobby.former = set(data.former)
    room.lobby.quit = set(data.quit)  # D31: `yours_away` says "left" here as on the owner
    stale = data.status != "open" and (host is None or (
        data.status == "finished" and host.table.state.running))
    if not stale:
        room.life.follow(data.status)
        if host is not None:  # in the lobby, there is no deadline to take
            host.deadline = deadline = data.deadline
    if (room.lobby.seats, shared, room.status, deadline, room.lobby.quit,
            room.lobby.host_name) != before:
        room.broadcast_table()
    if changed and not stale:
        room.reseat()
    _take_rematch(room, data)
    room_chat.follow_waiting(room, [_line(line) for line in data.waiting], data.waiting_said)
    return stale


def _take_rematch(room: Room, data: TableFacts) -> None:
    """The owner's rematch facts: the follower's own clients hear of a new rematch, and
    see the seats the owner keeps (tables/rematch/offers.py)."""
    reserved = {n: Reservation(r.player_id, r.kind, r.name, r.until)
                for n, r in data.reserved.items()}
    news = data.rematch is not None and data.rematch != room.lobby.rematch
    if reserved == room.lobby.reserved and not news:
        return
    room.lobby.keep(reserved)
    room.lobby.rematch = data.rematch
    room.broadcast_table()
    if news:
        tell_rematch(room)


def _line(line: WaitingLine) -> FrameLine:
    """A waiting-room line as the writer told it, with its number when it said one."""
    kept = FrameLine(seat=line.seat, name=line.name, text=line.text, t=line.t)
    if line.n is not None:
        kept["n"] = line.n
    return kept


def follow_seats(room: Room, seats: dict[int, Seat]) -> None:
    """The stored seats, read back with the actions a follower missed (R53, D18): when a
    hand-over's messages were lost, its connections change seats here too — before the
    missed actions reach them, so that none reads a seat its player no longer holds."""
    if not room.lobby.replace_all(seats):
        return
    room.reseat()
    room.broadcast_table()


def follow(room: Room, first: int, entries: tuple[tuple[dict[str, Any], float], ...],
           deadline: float | None) -> bool:
    """Apply the owner's stored actions from index `first`; False when some before them
    are missing here (the caller reads them from the store)."""
    host = room.host
    if host is None:
        return False
    table = host.table
    have = len(table.record.actions)
    if first > have:
        return False
    fresh = entries[have - first:]
    if not fresh:
        return True
    for data, t in fresh:
        table.submit(Action.from_dict(data, room.lobby.options.seats, "action"), t)
    host.deadline = deadline if table.state.running else None
    if not table.state.running:
        room.life.follow("finished")
    room.push()
    if not table.state.running:
        room.broadcast_table()
    if isinstance(room.peers, Replica):
        room.peers.moved()
    return True


def follow_rows(room: Room, rows: list[ActionRow], deadline: float | None) -> None:
    """Apply stored action rows (from `Store.action_rows_after`)."""
    entries: list[tuple[dict[str, Any], float]] = []
    for r in rows:
        assert r["t"] is not None  # a server stores each action with its time (commits.py)
        entries.append((json.loads(r["data"]), r["t"]))
    if entries:
        follow(room, rows[0]["idx"], tuple(entries), deadline)


class LetGo(Replica):
    """The peers of a game this process let go of while cut off (aside.py): it writes
    nothing from now on, but a write under way when it let go may still end. Stored, the
    action is in the record, from which the next owner reads the game; nobody is told
    from here (its clients are being closed), and its command is answered as stored.
    (A replica's `stored` raised: the command's connection ended with a traceback and,
    forwarded, its sender waited 18 s to learn that it was stored: issue 41.)"""

    def stored(self, stored: Stored) -> None:
        return None

    def removed(self, player_id: str) -> None:
        return None

    async def lost(self) -> None:
        return None
