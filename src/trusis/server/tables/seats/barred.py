"""Who may not sit at a table: someone its host blocks (D33) or removed from it (D34);
and who may not open a waiting room: someone its host removed from it (D55).

Asked of the database by the process that owns the table (seating.py), so a block or
a removal made on any process holds on every one; the table's page and its WebSocket
ask it too, on whichever process serves them (hub.py `open_to`). The routes are in blocks.py.

A removal (D34, run by the table's writer: seating.py `Seating.remove`) is stored first, then
the removed person's connections to the table are told and closed — with close code
`REMOVED_CODE` and reason `removed`, as sitting is refused with `403 removed` — here
(`removed_here`) and on every process that follows the table (the writer's peers say
so on the table's channel, before the seats' news: cluster/writer.py). Until the game
starts, opening the table again is refused the same way; once it has started, the
removed person may watch it as anyone may (D55).
"""

from __future__ import annotations

from trusis.server.data.store import Store
from trusis.server.errors import LobbyError
from trusis.server.tables.room import Room

REMOVED_CODE = 4403
"""The WebSocket close code of a person the host removed from the waiting room (D55),
with reason `removed`: 4403 for the `403 removed` that sitting there answers
(docs/protocol.md). Do not reconnect."""
REMOVED = "removed"


def removed_error() -> LobbyError:
    return LobbyError(403, REMOVED, "the host removed you from this table")


async def refuse_join(store: Store, room: Room, player_id: str) -> None:
    """403 if the table's host blocks this player (D33) or removed them from it (D34)."""
    if await store.blocks.blocks(room.lobby.host_id, player_id):
        raise LobbyError(403, "blocked_by_host", "the host of this table does not play with you")
    if await store.blocks.was_removed(room.id, player_id):
        raise removed_error()


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
