"""Ending a stuck game as a draw (D38): by an admin through the server, or by the
operator's CLI on the database of a server that is not running.

A game is ended the way every game changes: by one action of its record, the
staff's `draw` (docs/record.md), so that the stored record replays to the same end
and every reader of records (`trusis replay`, the statistics, the history) needs
nothing new. With a server running, the action is played by the game's single
writer, `GameHost.submit`, on the process that owns the game (hub.py `_on_owner`
forwards it there in a cluster): it is stored, sent to every client as the events
`operator_draw` and `game_over`, and to the other processes, as any action is.
With no server running, `end_in_store` replays the stored game, plays the action
and stores it with the table's new status, as the owner would have; a server
started afterwards reads the table back as finished. Either way the game is kept
in its players' history as a draw and rated for nobody (D38).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from trusis.rules.actions import STAFF_DRAW, Action
from trusis.rules.victory import DRAW
from trusis.server.data import audit
from trusis.server.data.commits import Fence, LeaseLost
from trusis.server.data.history import record_finished
from trusis.server.data.leases import Leases
from trusis.server.data.staff import roles_of
from trusis.server.data.store import IntegrityError, Store, new_id
from trusis.server.errors import LobbyError
from trusis.server.players.texts import free_text
from trusis.server.tables.records import rebuild_table, stored_record
from trusis.server.tables.room import Room

LEASE_SECONDS = 30.0
"""How long the command line holds a game's lease while it ends it (a few queries)."""


@dataclass(frozen=True)
class Ended:
    """What ending a game did: the table, and the record's length after the `draw`."""

    table_id: str
    count: int

    def as_json(self) -> dict[str, Any]:
        return {"table": self.table_id, "status": "finished", "winner": DRAW,
                "count": self.count}


def no_such_table(table_id: str) -> LobbyError:
    return LobbyError(404, "no_such_table", f"there is no table {table_id!r}")


def not_running(table_id: str, status: str) -> LobbyError:
    """Only a running game can be ended: an open table has no game yet (its host may
    delete it, or it expires), a finished one has ended already."""
    return LobbyError(409, "not_running", f"table {table_id!r} is {status}, not running: "
                      "only a running game can be ended as a draw", table_status=status)


def not_admin() -> LobbyError:
    return LobbyError(403, "not_admin", "only an admin of this server can do this",
                      role="admin")


def owned_elsewhere(table_id: str, node: str) -> LobbyError:
    return LobbyError(409, "owned", f"table {table_id!r} is being played by the server "
                      f"process {node!r}: end it through the running server (`trusis admin "
                      "draw --server URL --as ADMIN`)", node=node)


async def end_on_owner(room: Room, player_id: str) -> int:
    """Play the staff's `draw` where the game is owned (hub.py `_draw`): through
    `GameHost.submit`, the game's single writer, like a timeout. The record's length after
    it is the answer (a follower waits until it holds that many actions). The role is
    checked here too, where the game is written, whoever forwarded the request."""
    if "admin" not in await roles_of(room.store.engine, player_id):
        raise not_admin()
    host = room.host
    if room.status != "running" or host is None or not host.table.state.running:
        raise not_running(room.id, room.status)
    outcome = await host.submit(Action(STAFF_DRAW))
    if not outcome.accepted:  # it ended by itself in the meantime
        raise not_running(room.id, "finished")
    return len(host.table.record.actions)


async def _take_lease(store: Store, table_id: str) -> Fence:
    """With several processes (PostgreSQL, data/leases.py), the game's lease, taken as a
    process takes a game over: refused while a live process holds it; once taken, a
    process that stalled past its lease can never store anything in this game again.
    None for a game no lease was ever made for (a single process's)."""
    if store.engine.dialect.name != "postgresql":
        return None
    leases = Leases(store, f"cli#{new_id(8)}", LEASE_SECONDS)
    holder = await leases.owner(table_id)
    if holder is None:
        return None
    number = await leases.claim(table_id)
    if number is None:
        raise owned_elsewhere(table_id, holder)
    return (leases.node, number)


async def _let_go(store: Store, table_id: str, fence: Fence) -> None:
    if fence is not None:
        await Leases(store, fence[0], LEASE_SECONDS).release(table_id)


async def end_in_store(store: Store, table_id: str, reason: str, by: str = "cli") -> Ended:
    """The CLI's way, with no server running: the game read back, ended, stored."""
    row = await store.table_row(table_id)
    if row is None:
        raise no_such_table(table_id)
    if row["status"] != "running" or row["players"] is None:
        raise not_running(table_id, str(row["status"]))
    fence = await _take_lease(store, table_id)  # refused: no line, no draw (issue 38)
    try:
        await note(store, by, table_id, reason)  # before the act: never a draw without it (D37)
        try:
            index = await _store_draw(store, table_id, fence)
        except LobbyError as err:
            await refused(store, by, table_id, err)
            raise
    finally:
        await _let_go(store, table_id, fence)
    holders = {s["seat"]: s["player_id"] for s in await store.seat_rows(table_id)
               if s["player_id"] is not None}
    await record_finished(store, table_id, await stored_record(store, table_id), holders)
    return Ended(table_id, index + 1)


async def _store_draw(store: Store, table_id: str, fence: Fence) -> int:
    """The stored game replayed, the `draw` played and stored: its index in the record."""
    row = await store.table_row(table_id)  # read again: now nobody else may write it
    assert row is not None
    if row["status"] != "running":
        raise not_running(table_id, str(row["status"]))
    table = await rebuild_table(store, table_id)
    now = time.time()
    action = Action(STAFF_DRAW)
    outcome = table.submit(action, now)
    if not outcome.accepted or outcome.index is None:  # stored as running, yet over
        raise not_running(table_id, "finished")
    state = table.state
    try:
        await store.append(table_id, outcome.index, action.to_dict(), now, None, None, None,
                           f"{state.kind}:{state.number}", DRAW, fence)
    except (IntegrityError, LeaseLost):  # a server stored an action there meanwhile
        raise LobbyError(409, "owned", f"table {table_id!r} moved on while it was being "
                         "ended: a server is running it; end it through that server "
                         "(`trusis admin draw --server URL --as ADMIN`)", node="") from None
    return outcome.index


async def note(store: Store, by: str, table_id: str, reason: str) -> None:
    """The audit log's line (moderators read it): who ends which table, and why — the
    reason cleaned as names are (D9; texts.py). Written before the draw is played (D37):
    a line that cannot be written stops the draw; a draw refused after it (the game ended
    meanwhile) is followed by its refusal's line (`refused`)."""
    why = free_text(reason, "reason")
    await audit.note(store.engine, by, "draw", None,
                     f"table {table_id}" + (f": {why}" if why else ""))


async def refused(store: Store, by: str, table_id: str, err: LobbyError) -> None:
    """The line saying a draw whose line was written did not take effect, and why (the
    refusal's sentence): the log is never rewritten (D37), so the moderation page reads
    the pair as one refused draw, not as a game ended (issue 38)."""
    await audit.note(store.engine, by, "draw_refused", None,
                     f"table {table_id}: {err.code}: {err.message}")
