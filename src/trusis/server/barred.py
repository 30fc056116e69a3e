"""Who may not sit at a table: someone its host blocks (D33) or removed from it (D34);
and who may not open a waiting room: someone its host removed from it (D55).

Asked of the database by the process that owns the table (seating.py), so a block or
a removal made on any process holds on every one; the table's page and its WebSocket
ask it too, on whichever process serves them (`open_to`). The routes are in blocks.py.

A removal (D34, run by the table's writer: seating.py `_remove`) is stored first, then
the removed person's connections to the table are told and closed — with close code
`REMOVED_CODE` and reason `removed`, as sitting is refused with `403 removed` — here
(`removed_here`) and on every process that follows the table (the writer's peers say
so on the table's channel, before the seats' news: cluster/writer.py). Until the game
starts, opening the table again is refused the same way; once it has started, the
removed person may watch it as anyone may (D55).
"""

from __future__ import annotations

import time
from typing import Protocol

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from trusis.server import schema
from trusis.server.errors import LobbyError
from trusis.server.room import Room
from trusis.server.store import Store


class Hub(Protocol):
    """What `open_to` needs of the hub (hub.py): named here, not imported, since the hub's
    modules import this one (a cycle, test_imports.py)."""

    store: Store

    async def room(self, table_id: str, player_id: str | None = None,
                   invite: str | None = None) -> Room: ...

REMOVED_CODE = 4403
"""The WebSocket close code of a person the host removed from the waiting room (D55),
with reason `removed`: 4403 for the `403 removed` that sitting there answers
(docs/protocol.md). Do not reconnect."""
REMOVED = "removed"


def removed_error() -> LobbyError:
    return LobbyError(403, REMOVED, "the host removed you from this table")


async def refuse_join(engine: AsyncEngine, room: Room, player_id: str) -> None:
    """403 if the table's host blocks this player (D33) or removed them from it (D34)."""
    b, r = schema.blocks, schema.removals
    async with engine.connect() as conn:
        blocked = (await conn.execute(select(b.c.at).where(
            b.c.player_id == room.lobby.host_id, b.c.blocked_id == player_id))).first()
        removed = (await conn.execute(select(r.c.at).where(
            r.c.table_id == room.id, r.c.player_id == player_id))).first()
    if blocked is not None:
        raise LobbyError(403, "blocked_by_host", "the host of this table does not play with you")
    if removed is not None:
        raise removed_error()


async def was_removed(engine: AsyncEngine, table_id: str, player_id: str) -> bool:
    """Whether the host of `table_id` removed `player_id` from its waiting room (D34)."""
    r = schema.removals
    async with engine.connect() as conn:
        return (await conn.execute(select(r.c.at).where(
            r.c.table_id == table_id, r.c.player_id == player_id))).first() is not None


async def store_removal(engine: AsyncEngine, table_id: str, player_id: str) -> None:
    """D34: `player_id` may not sit at `table_id` again (kept once, however often)."""
    r = schema.removals
    async with engine.begin() as conn:
        if (await conn.execute(select(r.c.at).where(r.c.table_id == table_id,
                                                    r.c.player_id == player_id))).first() is None:
            await conn.execute(insert(r).values(table_id=table_id, player_id=player_id,
                                                at=time.time()))


async def open_to(hub: Hub, table_id: str, player_id: str | None,
                  invite: str | None = None) -> Room:
    """The table as `hub.room` gives it, but `403 removed` to a person its host removed
    from it while it waits for its start (D55) — with its invite or without one (a
    private table's 404 would hide from them what they know). Once the game has started
    they open it as anyone would: a spectator (D55)."""
    try:
        room = await hub.room(table_id, player_id, invite)
    except LobbyError as err:
        if err.code != "no_such_table" or player_id is None \
                or not await was_removed(hub.store.engine, table_id, player_id):
            raise
        row = await hub.store.table_row(table_id)
        if row is None or row["status"] != "open":
            raise
        raise removed_error() from None
    if room.status == "open" and player_id is not None and player_id != room.lobby.host_id \
            and await was_removed(hub.store.engine, room.id, player_id):
        raise removed_error()
    return room


def removed_here(room: Room, player_id: str) -> None:
    """D55: the host removed `player_id` from the waiting room (here by its writer, or as
    the writer says: a follower's copy). Their connections to it here are closed with
    `REMOVED_CODE` — before the seat's news, which would offer them a seat — and one
    still on its way in (it read the database before the removal) is turned away as it
    joins (`turned_away`)."""
    room.removed.add(player_id)
    for client in list(room.clients):
        if client.player_id == player_id:
            client.shut(REMOVED_CODE, REMOVED)


def turned_away(room: Room, player_id: str) -> bool:
    """Whether a connection of `player_id` joining `room` now is refused (D55): they were
    removed from it, and the game has not started."""
    return room.status == "open" and player_id in room.removed
