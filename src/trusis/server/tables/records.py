"""A stored game read back as a record (docs/record.md), as a table to play on, and
who holds its seats.

Below the room and the restore path: the game's writer rebuilds its table from
here after a failed write, the hub reads finished records, a follower its seats,
and nothing here knows of rooms.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from trusis.rules.actions import Action
from trusis.server.data.rows import ActionRow, TableRow
from trusis.server.data.store import Store
from trusis.server.tables.options import TableOptions
from trusis.server.tables.seats.seat import Seat
from trusis.table.record import Record
from trusis.table.table import Table


def record_of(row: TableRow, action_rows: list[ActionRow],
              data: list[dict[str, Any]] | None = None) -> Record:
    """The stored game as a record (docs/record.md), times included (`data`: each action
    row's JSON, parsed already). Only a started game's row has one."""
    assert row["players"] is not None and row["seed"] is not None and row["deal"] is not None
    options = TableOptions.from_json(json.loads(row["options"]))
    players = json.loads(row["players"])
    parsed = data if data is not None else [json.loads(a["data"]) for a in action_rows]
    actions = [Action.from_dict(d, len(players), f"actions[{a['idx']}]")
               for a, d in zip(action_rows, parsed, strict=True)]
    extra: dict[str, Any] = {"started_at": row["started_at"],
                             "table": {"id": row["id"], "name": row["name"]}}
    return Record(players, int(row["seed"]), options.custom, json.loads(row["deal"]), actions,
                  extra, [a["t"] for a in action_rows])


def with_bot_seats(record: Record, seats: Mapping[int, Seat]) -> Record:
    """`record` with the seats bots held from the start (D73): the stored bot seats no
    player owns (a seat a bot took over stays its player's, D29). The store keeps them in
    the seats, not in the game's rows, so every game read back gets them here: a view of
    the game read back is then the live one, byte for byte."""
    started = sorted(n for n, seat in seats.items()
                     if seat.kind == "bot" and seat.player_id is None)
    if started:
        record.extra["bot_seats"] = started
    return record


async def stored_record(store: Store, table_id: str, row: TableRow | None = None) -> Record:
    """The stored game as a record, its starting bot seats included (`with_bot_seats`)."""
    row = row if row is not None else await store.table_row(table_id)
    assert row is not None and row["players"] is not None
    return with_bot_seats(record_of(row, await store.action_rows(table_id)),
                          await stored_seats(store, table_id))


async def rebuild_table(store: Store, table_id: str) -> Table:
    return Table.from_record(await stored_record(store, table_id))


async def stored_seats(store: Store, table_id: str) -> dict[int, Seat]:
    """Who holds each seat, as stored (a follower catching up: cluster/node.py)."""
    return {r["seat"]: Seat(r["kind"], r["name"], r["player_id"], r["bot_kind"])
            for r in await store.seat_rows(table_id)}
