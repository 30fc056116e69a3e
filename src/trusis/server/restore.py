"""Rebuilding games from the database: at start, and after a failed write.

A running game is rebuilt by replaying its stored record through the table
layer; the stored deadline comes back with it, so a timer that should have
fired while the server was down fires at once, and only once (R12): the timeout
ends the phase, and the next deadline is for the next phase.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from typing import Any

from trusis.rules.actions import Action
from trusis.server.options import TableOptions
from trusis.server.room import Room, Seat
from trusis.server.store import Store
from trusis.table.record import Record
from trusis.table.table import Table

log = logging.getLogger("trusis.server")


def record_of(row: dict[str, Any], action_rows: list[dict[str, Any]]) -> Record:
    """The stored game as a record (docs/record.md), times included."""
    options = TableOptions.from_json(json.loads(row["options"]))
    players = json.loads(row["players"])
    actions = [Action.from_dict(json.loads(a["data"]), len(players), f"actions[{a['idx']}]")
               for a in action_rows]
    extra: dict[str, Any] = {"started_at": row["started_at"],
                             "table": {"id": row["id"], "name": row["name"]}}
    return Record(players, int(row["seed"]), options.custom, json.loads(row["deal"]), actions,
                  extra, [a["t"] for a in action_rows])


async def rebuild_table(store: Store, table_id: str) -> Table:
    row = await store.table_row(table_id)
    assert row is not None and row["players"] is not None
    return Table.from_record(record_of(row, await store.action_rows(table_id)))


async def load_room(store: Store, row: dict[str, Any], pace: float) -> Room:
    """A room for a stored table: its seats, and its game replayed if it started."""
    options = TableOptions.from_json(json.loads(row["options"]))
    room = Room(row["id"], row["name"], row["host_id"], await store.host_name(row["host_id"]),
                options, row["invite"], store, pace, row["status"], row["created_at"])
    for held in await store.seat_rows(row["id"]):
        room.seats[held["seat"]] = Seat(held["kind"], held["name"], held["player_id"],
                                        held["bot_kind"])
    if row["players"] is None:
        return room
    action_rows = await store.action_rows(row["id"])
    room.table = Table.from_record(record_of(row, action_rows))
    for a in action_rows:
        if a["client_id"] and a["player_id"]:
            room.remember(a["player_id"], a["client_id"],
                          {"type": "ack", "id": a["client_id"], "seq": 0, "again": True})
    if room.table.state.running:
        stored_phase = row["deadline_phase"]
        room.deadline = row["deadline"] if stored_phase == room.phase_key() else None
        if room.deadline is None:  # a phase with no stored deadline: a full one from now
            room.deadline = time.time() + room.phase_seconds()
        room.seat_bots(secrets.randbits(31))
        for number, seat in room.seats.items():
            if seat.kind in ("person", "program"):
                room.away[number] = time.time()  # a grace period to reconnect, from now
        log.info("table %s: restored at %s with %d actions", row["id"], room.phase_key(),
                 len(action_rows))
    return room
