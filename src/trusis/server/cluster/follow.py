"""A follower's copy of a game another process owns: the same table, replayed.

The owner announces what it stored (`actions`, from a record index on) and the
lobby facts of the table (`table`: status, seats, who is connected). A follower
applies the same recorded actions to its own `Table` — the engine is
deterministic, so its views and streams are the owner's, byte for byte — and
pushes them to its own clients through the same view code as the owner. A
gap in the indexes means a message was missed: the store has every action.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from trusis.rules.actions import Action
from trusis.server.rematch_news import apply_rematch_facts, rematch_facts
from trusis.server.room import Room
from trusis.server.seat import Seat, room_status


def facts(room: Room) -> dict[str, Any]:
    """What a follower needs to show the table as the owner does."""
    return {"k": "table", "status": room.status, "deadline": room.deadline,
            "seats": {str(n): [s.kind, s.name, s.player_id, s.bot_kind]
                      for n, s in room.seats.items()},
            "connected": [n for n in range(1, room.options.seats + 1) if room.connected(n)],
            "spectators": room.spectators(), "former": sorted(room.former),
            **rematch_facts(room)}


def apply_facts(room: Room, data: dict[str, Any]) -> bool:
    """Take the owner's lobby facts; True when the game must be read back from the
    store (it started, or ended, and this copy has not seen it)."""
    seats = {int(n): Seat(kind, name, player_id, bot_kind)
             for n, (kind, name, player_id, bot_kind) in data["seats"].items()}
    before = (room.seats, room.shared, room.status, room.deadline)
    changed = seats != room.seats
    room.seats = seats
    room.shared = (frozenset(data["connected"]), int(data["spectators"]))
    room.former = set(data["former"])
    status = room_status(data["status"])
    stale = status != "open" and (room.table is None or (
        status == "finished" and room.table.state.running))
    if not stale:
        room.status = status
        room.deadline = data["deadline"]
    if (room.seats, room.shared, room.status, room.deadline) != before:
        room.broadcast_table()
    if changed and not stale:
        room.reseat()
    apply_rematch_facts(room, data)
    return stale


def follow(room: Room, first: int, entries: list[list[Any]], deadline: float | None) -> bool:
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
        follow(room, int(rows[0]["idx"]), [[json.loads(r["data"]), r["t"]] for r in rows],
               deadline)
