"""A host closes a table that has not started (D51): it is called off for everyone.

`POST /api/tables/{id}/close` (lobby.py) is a lobby request like the others, run by
the process that writes the table (`Hub.run_lobby`, request `Close`): only its host,
only while it is open. The closing is stored first — the table's status `closed`, its
seats and the seats a rematch kept (D19) gone, in one fenced transaction — so a
restart never brings the table back and a failed write changes nothing. Then everyone
connected hears it: a `table` frame whose status is `closed`, and the connection ends
with close code `CLOSED_CODE` (the page says, in its player's language, that the host
closed the table, and offers the way back to the lobby). With several processes the
writer tells the others with the table's facts (status `closed`), and each one tells
its own connections the same way and lets its copy go (cluster/node.py).

The table then leaves every list — the lobby's, "Your games" (D48) — and the process's
memory, so the per-player and per-address counts of open tables no longer hold it
(quota.py), and its address answers 410 `table_closed` (`gone`), as an expired
table's answers 410 `table_expired`. A game that has started is not closed this way
(`not_open`): its players leave it (R52), and the server's staff end a stuck one as a
draw (D38).
"""

from __future__ import annotations

import secrets

from trusis.server.connections.frames import TableFrame, serialise
from trusis.server.data.commits import Fence
from trusis.server.data.rows import TableRow
from trusis.server.data.store import Player, Store
from trusis.server.errors import LobbyError
from trusis.server.tables.room import Room
from trusis.server.tables.seats.seat import RoomStatus

EXPIRED: RoomStatus = "expired"
"""The stored status of an open table closed because nobody was at it (quota.py)."""


def expired_table(table_id: str) -> LobbyError:
    return LobbyError(410, "table_expired", "this table was closed because nobody was at it "
                      "for a long time: create a new one", table=table_id)


CLOSED: RoomStatus = "closed"
"""The stored status of a table its host closed before the start (D51)."""
CLOSED_CODE = 4410
"""The WebSocket close code of a table closed before the start — by its host (reason
`table_closed`) or because nobody was at it (`table_expired`): docs/protocol.md."""


def closed_table(table_id: str) -> LobbyError:
    return LobbyError(410, "table_closed", "the host closed this table before the game "
                      "started: find another one in the lobby, or create one", table=table_id)


def gone(row: TableRow) -> LobbyError | None:
    """Why a stored table is no longer there to open (closed, or expired), or None."""
    if row["status"] == CLOSED:
        return closed_table(str(row["id"]))
    if row["status"] == EXPIRED:  # an open table nobody came to (quota.py)
        return expired_table(str(row["id"]))
    return None


def no_such_table(table_id: str) -> LobbyError:
    return LobbyError(404, "no_such_table", f"there is no table {table_id!r}")


def hidden_from(row: TableRow, player_id: str | None,
                invite: str | None) -> LobbyError | None:
    """D66: a private table that is gone (closed, expired) is as hidden from a stranger as
    an open one: 404, never the 410 that says it existed. Its host, whoever brings its
    invite link, and the players who held a seat at it when it was closed here (D48: their
    way back carries no invite) hear why it is gone."""
    if not row["private"] or player_id == row["host_id"] or (
            invite is not None and secrets.compare_digest(invite, str(row["invite"]))) or (
            player_id is not None and player_id in _PLAYERS_AT_CLOSE.get(str(row["id"]), ())):
        return None
    return no_such_table(str(row["id"]))


_PLAYERS_AT_CLOSE: dict[str, frozenset[str]] = {}
"""D66: who held (or had kept, D19) a seat at each table closed in this process, the newest
`PLAYERS_AT_CLOSE_KEPT`: the seats are deleted with the closing, and a player whose page
opens the table a moment later (a join racing the close) is told it was closed, with 4410,
as the ones connected were. After a restart, or on a process that never held the table,
such a player hears 404 as a stranger does: the table is gone for them either way."""
PLAYERS_AT_CLOSE_KEPT = 1000


def _remember_players(room: Room) -> None:
    lobby = room.lobby
    players = {s.player_id for s in lobby.seats.values() if s.player_id is not None}
    players |= {r.player_id for r in lobby.reserved.values()}
    _PLAYERS_AT_CLOSE[room.id] = frozenset(players)
    while len(_PLAYERS_AT_CLOSE) > PLAYERS_AT_CLOSE_KEPT:  # the oldest first
        _PLAYERS_AT_CLOSE.pop(next(iter(_PLAYERS_AT_CLOSE)))


def not_open(room: Room) -> LobbyError:
    return LobbyError(409, "not_open", "this table's game has started: a game is not closed; "
                      "its players may leave it, and the server's staff can end a stuck one "
                      "as a draw", table_status=room.status)


async def store_closing(store: Store, table_id: str, fence: Fence) -> None:
    """The table's status `closed`, its seats and kept seats gone: one transaction, under
    its lease's fence (a process that no longer writes the table closes nothing)."""
    await store.rooms.close_open(table_id, CLOSED, fence)


async def close_on_owner(room: Room, player: Player) -> None:
    """D51, run by the table's writer: the host closes `room`, which has not started."""
    if player.id != room.lobby.host_id:
        raise LobbyError(403, "not_host", "only the table's host can do this")
    async with room.lock:
        if room.status == CLOSED:  # a second request that waited for the first
            raise closed_table(room.id)
        if room.status != "open":
            raise not_open(room)
        await store_closing(room.store, room.id, room.fence)  # stored first
        closed_here(room)
    room.peers.table_changed()  # the other processes' connections hear it too


def closed_here(room: Room) -> None:
    """The table is closed (here by its writer, or as the writer says: a follower's copy):
    it holds nobody, and every connection to it here is told — a `table` frame whose
    status is `closed` — and then closed with CLOSED_CODE. Doing it again does nothing."""
    if room.status != CLOSED:
        _remember_players(room)
    room.life.close()
    room.lobby.replace_all({})
    room.lobby.keep({})
    if room.table_due is not None:  # a coalesced `table` frame would say it again
        room.table_due.cancel()
        room.table_due = None
    for client in list(room.clients):
        client.send_table(serialise(TableFrame(type="table", table=room.info(client.player_id))))
        client.shut(CLOSED_CODE, "table_closed")
