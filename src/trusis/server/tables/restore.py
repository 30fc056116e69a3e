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
from dataclasses import dataclass
from typing import Any

from trusis.bots.registry import DEFAULT_BOT
from trusis.server.data import hidden
from trusis.server.data.hidden import HiddenLine
from trusis.server.data.rows import ActionRow, SeatRow, TableRow
from trusis.server.data.series import Link
from trusis.server.data.store import Store
from trusis.server.tables.answers import CommandAnswer
from trusis.server.tables.lobby_state import LobbyState
from trusis.server.tables.options import TableOptions
from trusis.server.tables.peers import LocalPeers
from trusis.server.tables.records import record_of, with_bot_seats
from trusis.server.tables.rematch.seats import links_of, refill_rematch, reserved_of
from trusis.server.tables.room import Room
from trusis.server.tables.seats.seat import Reservation, Seat, room_status, taken_over_from
from trusis.server.tables.status import TableLife
from trusis.table.hiding import Hide
from trusis.table.table import Table

log = logging.getLogger("trusis.server")


@dataclass
class StoredTable:
    """What reading one table back needs from the store besides its row, read for every
    table at once at start (`read_tables`): a restart spent most of its time on these
    queries, five per table, and not on replaying the games."""

    host_name: str
    seats: list[SeatRow]
    actions: list[ActionRow]
    link: Link | None
    reserved: dict[int, Reservation]
    hidden: list[HiddenLine]
    """Its chat lines a moderator hid (D71)."""


async def read_tables(store: Store, rows: list[TableRow]) -> dict[str, StoredTable]:
    """`StoredTable` of each of `rows`, in a few queries for all of them."""
    ids = [r["id"] for r in rows]
    names = await store.names_of([r["host_id"] for r in rows])
    seats = await store.seat_rows_of(ids)
    actions = await store.action_rows_of([r["id"] for r in rows if r["players"] is not None])
    links = await links_of(store, ids)
    kept = await reserved_of(store, [r["id"] for r in rows if r["status"] == "open"])
    hides = await hidden.of_tables(store.engine, ids)
    return {i: StoredTable(names.get(r["host_id"], ""), seats[i], actions.get(i, []),
                           links.get(i), kept.get(i, {}), hides[i])
            for i, r in zip(ids, rows, strict=True)}


async def load_room(store: Store, row: TableRow, pace: float,
                    owner: bool = True, read: StoredTable | None = None) -> Room:
    """A room for a stored table: its seats, and its game replayed if it started. As its
    `owner`, this process also runs what the game needs: its bots, and a grace period
    for every person, from now (nobody is connected yet). `read`: what `read_tables`
    read of it already (read now otherwise)."""
    read = read if read is not None else (await read_tables(store, [row]))[row["id"]]
    options = TableOptions.from_json(json.loads(row["options"]))
    lobby = LobbyState(row["host_id"], read.host_name, options, row["invite"])
    room = Room(row["id"], row["name"], lobby, store, pace,
                TableLife.stored(row["status"]), row["created_at"])
    room.peers = LocalPeers(writes=owner)  # several processes: the node sets the real ones
    await refill(room, row, read)
    if owner:
        take_charge(room)
    return room


async def refill(room: Room, row: TableRow | None = None,
                 read: StoredTable | None = None) -> None:
    """Read the table back into `room` from the store: status, seats, the game replayed,
    the answers already given and the phase's deadline (also when another process
    stored them: a follower about to own the game, or one that fell behind)."""
    store = room.store
    row = row if row is not None else await store.table_row(room.id)
    assert row is not None
    read = read if read is not None else (await read_tables(store, [row]))[row["id"]]
    room.life.follow(room_status(row["status"]))
    lobby = room.lobby
    stored = {held["seat"]: Seat(held["kind"], held["name"], held["player_id"], held["bot_kind"])
              for held in read.seats}
    lobby.replace_all(stored)
    refill_rematch(room, read.link, read.reserved)
    for place, hides in (("game", room.hides), ("waiting", room.waiting_hides)):
        hides.replace((x["number"], Hide(x["reason"], x["writer_id"]))
                      for x in read.hidden if x["place"] == place)
    # The waiting room's lines are in memory only (D45) and their hides stored (D71): after
    # a restart its lines are numbered on past every stored hide, never under one's number.
    room.waiting_said = max(room.waiting_said, *room.waiting_hides.lines, 0)
    if row["players"] is None:
        return
    action_rows = read.actions
    data = [json.loads(a["data"]) for a in action_rows]  # parsed once, for all three
    table = Table.from_record(with_bot_seats(record_of(row, action_rows, data), stored))
    host = room.play(table, room.host.deadline if room.host else None)  # its deadline: below
    lobby.quit = left_on_purpose(action_rows, data)
    lobby.replace_all(after_handovers(stored, host.table, action_rows, data))
    lobby.former = taken_over_from(lobby.seats)  # they watch: a snapshot, not their seat's seq
    if room.owned:  # the rows catch up with the record
        for number, seat in lobby.seats.items():
            if stored.get(number) != seat:
                await store.set_seat(room.id, number, seat.kind, seat.name, seat.player_id,
                                     seat.bot_kind, room.fence)
    for a in action_rows:
        if a["client_id"] and a["player_id"]:
            room.answers.remember(a["player_id"], a["client_id"],
                                  CommandAnswer.read_back(a["client_id"]))
    host.deadline = None
    if host.table.state.running:
        stored_phase = row["deadline_phase"]
        host.deadline = row["deadline"] if stored_phase == host.phase_key() else None
        if host.deadline is None:  # a phase with no stored deadline: a full one from now
            host.deadline = time.time() + host.phase_seconds()
    log.info("table %s: read back at %s with %d actions", row["id"], host.phase_key(),
             len(action_rows))


def after_handovers(seats: dict[int, Seat], table: Table, action_rows: list[ActionRow],
                    data: list[dict[str, Any]]) -> dict[int, Seat]:
    """The seats as the record's hand-overs (R53) leave them. A hand-over stores its
    `replace` first and the seat's row just after: a crash between the two leaves the row
    behind the record, and the record is the truth — the engine plays the seat as its last
    `replace` says. So a seat the engine gives a bot is a bot's (still its player's, D29),
    and a seat a person took is the person's whose `replace` it was (stored with their id)."""
    held = dict(seats)
    taker = {int(d["seat"]): a["player_id"] for a, d in zip(action_rows, data, strict=True)
             if d.get("do") == "replace" and d.get("by") not in (None, "bot")
             and a["player_id"]}
    for number, seat in seats.items():
        if table.state.bots[number] and seat.kind != "bot":
            held[number] = Seat("bot", f"{seat.name} (bot)", seat.player_id, DEFAULT_BOT)
        elif (not table.state.bots[number] and number in taker
              and (seat.kind == "bot" or seat.player_id != taker[number])):
            held[number] = Seat("person", table.state.names[number], taker[number])
    return held


def left_on_purpose(action_rows: list[ActionRow], data: list[dict[str, Any]]) -> set[int]:
    """The seats whose last `leave` their player sent (stored with its player id, and its
    client id as it was accepted; R52's grace leaves none) and that no person took since
    (D31); a bot's taking one does not make it its player's to come back to."""
    quit: set[int] = set()
    for a, d in zip(action_rows, data, strict=True):
        if d.get("do") == "leave" and a["player_id"] and a["client_id"]:  # accepted
            quit.add(int(d["seat"]))
        elif d.get("do") == "replace" and d.get("by") not in (None, "bot"):
            quit.discard(int(d["seat"]))  # a person took it: the link the host made
    return quit


def take_charge(room: Room) -> None:
    """The owner's part of a running game it has just read back: the bots of the bot
    seats, and a grace period (R52), from now, for each seat connected nowhere. How long
    each seat's player has been away was in the memory of the process before: the
    absence a hand-over to a person waits out (D52) counts from now too — for a seat a
    bot plays for its player (D29) as well —, which may make the host wait longer, never
    less."""
    if room.host is None or not room.host.table.state.running:
        return
    room.host.seat_bots(secrets.randbits(31), room.pace)
    now = time.time()
    for number, seat in room.lobby.seats.items():
        if seat.kind in ("person", "program") and not room.connected(number):
            room.not_here(number, now)
        elif seat.player_id is not None and not room.connected(number):  # a bot's, for them
            room.absent[number] = now
