"""A banned player's seats go, on the process that owns each game (issue 18, R52–R53).

A ban revokes every token of the player (sessions.py), and of the program seats they
made (D41: revocation.py); the revocation reaches every process (cluster/node.py)
marked as a ban, and each one unseats the player (a person or a program) from the
games it owns: in a running game the seat leaves and a bot takes it at once, as if
the player had left (R52, R53, handover.py); in a waiting room the seat is freed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable

from trusis.server.tables.room import Room
from trusis.server.tables.seats import seat_changes
from trusis.server.tables.seats.handover import hand_to_bot
from trusis.server.tables.seats.unbanning import remember

log = logging.getLogger(__name__)
_running: set[asyncio.Task[None]] = set()


async def _unseat(room: Room, player_id: str) -> None:
    for number, held in list(room.lobby.seats.items()):
        if held.player_id != player_id or held.kind == "bot" or not room.owned:
            continue
        if room.status == "running" and room.host is not None and room.host.table.state.running:
            await hand_to_bot(room, number)
        elif room.status == "open":
            async with room.lock:
                if room.lobby.seats.get(number) is held:
                    await seat_changes.free(room, number)
                    remember(room, player_id, number, held)  # a lift gives it back (D72)
            room.broadcast_table()


async def _unseat_all(rooms: list[Room], player_id: str) -> None:
    for room in rooms:
        try:
            await _unseat(room, player_id)
        except Exception:  # one table's trouble does not keep the others' seats
            log.exception("unseating a banned player at table %s", room.id)


def unseat_banned(rooms: Iterable[Room], player_id: str) -> None:
    """Start unseating `player_id` from the owned games among `rooms` (no wait)."""
    mine = [r for r in rooms if r.owned and any(s.player_id == player_id
                                                for s in r.lobby.seats.values())]
    if mine:
        task = asyncio.get_running_loop().create_task(_unseat_all(mine, player_id))
        _running.add(task)
        task.add_done_callback(_running.discard)
