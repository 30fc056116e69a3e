"""A follower's copy of a game another process owns: the same table, replayed.

The owner announces what it stored (`Actions`, from a record index on) and the
lobby facts of the table (`TableFacts`: status, seats, who is connected, the
rematch). A follower applies the same recorded actions to its own `Table` — the
engine is deterministic, so its views and streams are the owner's, byte for
byte — and pushes them to its own clients through the same view code as the
owner. A gap in the indexes means a message was missed: the store has every action.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from trusis.rules.actions import Action
from trusis.server.cluster.messages import KeptSeat, SeatFact, TableFacts
from trusis.server.rematch_db import Reservation
from trusis.server.rematch_news import tell_rematch
from trusis.server.room import Room
from trusis.server.seat import Seat


def facts(room: Room) -> TableFacts:
    """What a follower needs to show the table as the owner does."""
    return TableFacts(
        status=room.status, deadline=room.deadline,
        seats={n: SeatFact(kind=s.kind, name=s.name, player_id=s.player_id,
                           bot_kind=s.bot_kind) for n, s in room.seats.items()},
        connected=tuple(n for n in range(1, room.options.seats + 1) if room.connected(n)),
        spectators=room.spectators(), former=tuple(sorted(room.former)),
        rematch=room.rematch,
        reserved={n: KeptSeat(player_id=r.player_id, kind=r.kind, name=r.name, until=r.until)
                  for n, r in room.reserved.items()})


def apply_facts(room: Room, data: TableFacts) -> bool:
    """Take the owner's lobby facts; True when the game must be read back from the
    store (it started, or ended, and this copy has not seen it)."""
    seats = {n: Seat(s.kind, s.name, s.player_id, s.bot_kind) for n, s in data.seats.items()}
    before = (room.seats, room.shared, room.status, room.deadline)
    changed = seats != room.seats
    room.seats = seats
    room.shared = (frozenset(data.connected), data.spectators)
    room.former = set(data.former)
    stale = data.status != "open" and (room.table is None or (
        data.status == "finished" and room.table.state.running))
    if not stale:
        room.status = data.status
        room.deadline = data.deadline
    if (room.seats, room.shared, room.status, room.deadline) != before:
        room.broadcast_table()
    if changed and not stale:
        room.reseat()
    _take_rematch(room, data)
    return stale


def _take_rematch(room: Room, data: TableFacts) -> None:
    """The owner's rematch facts: the follower's own clients hear of a new rematch, and
    see the seats the owner keeps (rematch.py)."""
    reserved = {n: Reservation(r.player_id, r.kind, r.name, r.until)
                for n, r in data.reserved.items()}
    news = data.rematch is not None and data.rematch != room.rematch
    if reserved == room.reserved and not news:
        return
    room.reserved = reserved
    room.rematch = data.rematch
    room.broadcast_table()
    if news:
        tell_rematch(room)


def follow(room: Room, first: int, entries: tuple[tuple[dict[str, Any], float], ...],
           deadline: float | None) -> bool:
    """Apply the owner's stored actions from index `first`; False when some before them
    are missing here (the caller reads them from the store)."""
    table = room.table
    if table is None:
        return False
    have = len(table.record.actions)
    if first > have:
        return False
    fresh = entries[have - first:]
    if not fresh:
        return True
    for data, t in fresh:
        table.submit(Action.from_dict(data, room.options.seats, "action"), t)
    room.deadline = deadline if table.state.running else None
    if not table.state.running:
        room.status = "finished"
    room.push()
    if not table.state.running:
        room.broadcast_table()
    moved, room.advanced = room.advanced, asyncio.Event()
    moved.set()
    return True


def follow_rows(room: Room, rows: list[dict[str, Any]], deadline: float | None) -> None:
    """Apply stored action rows (from `Store.action_rows_after`)."""
    if rows:
        follow(room, int(rows[0]["idx"]),
               tuple((json.loads(r["data"]), float(r["t"])) for r in rows), deadline)
