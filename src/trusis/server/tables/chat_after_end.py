"""The chat after the end, capped (R50 keeps it open after the game; D21 bounds it).

A finished game's record keeps growing while its players talk, and every message
is stored and sent to everyone: without a bound one script could fill the
database through a finished table. The caps (limits/settings.py: `chat_after_end_per_seat`,
`chat_after_end_per_game`) are far above a long friendly chat after the end.
"""

from __future__ import annotations

from collections import Counter

from trusis.rules.actions import SAY
from trusis.server.limits.settings import Limits
from trusis.server.tables.room import Room

LIMITS = Limits()
"""Set once at start-up from the server's settings (app.lifespan)."""

_counted: dict[str, tuple[int, Counter[int]]] = {}
"""Finished tables: how many record actions were counted, and the messages per seat."""
KEPT = 1000


def _after_end(room: Room) -> Counter[int]:
    """The messages each seat sent after the end: the record's trailing `say`s (once a
    game has ended, nothing but chat is accepted)."""
    assert room.host is not None
    actions = room.host.table.record.actions
    counted, seats = _counted.get(room.id, (0, Counter()))
    if counted == 0:
        index = len(actions)
        while index > 0 and actions[index - 1].do == SAY:
            index -= 1
        counted = index
    for action in actions[counted:]:
        seats[action.seat or 0] += 1
    _counted[room.id] = (len(actions), seats)
    while len(_counted) > KEPT:
        _counted.pop(next(iter(_counted)))
    return seats


def refusal(room: Room, seat: int, do: str) -> tuple[str, dict[str, int]] | None:
    """Why this message after the end is one too many (a code and its parameters)."""
    if do != SAY or room.host is None or room.host.table.state.running:
        return None
    seats = _after_end(room)
    cap = LIMITS.chat_after_end_per_seat
    if cap and seats[seat] >= cap:
        return "chat_limit", {"limit": cap}
    cap = LIMITS.chat_after_end_per_game
    if cap and sum(seats.values()) >= cap:
        return "chat_limit_table", {"limit": cap}
    return None
