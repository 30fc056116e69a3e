"""How many slow games one player sits at (D62): `slow_games_per_player`.

Each slow game asks its players for a visit a phase; past the bound, a player's seats
would be played by bots (D63) in other people's games. Counted over every open or running
slow table where the player holds a seat — not one they left on purpose (D31), and never
real-time tables, which one plays one at a time.
"""

from __future__ import annotations

from trusis.server.errors import LobbyError
from trusis.server.limits.settings import counted, too_many
from trusis.server.tables.hub import Hub
from trusis.server.tables.room import Room
from trusis.server.tables.seats.renaming import tables_of

RETRY_SECONDS = 3600
"""What the refusal's `Retry-After` says: a slow game's phase, at the least, frees nothing
sooner."""


def holds_slow_seat(room: Room, player_id: str) -> bool:
    """Whether `player_id` holds a seat at slow `room` that still counts."""
    if not room.lobby.options.slow or room.status not in ("open", "running"):
        return False
    return any(seat not in room.lobby.quit for seat in room.lobby.owned_by(player_id))


async def check_slow_seats(hub: Hub, room: Room, player_id: str, limit: int) -> None:
    """Before `player_id` takes a seat at `room`: a 429 `too_many_slow_games` when it is
    slow and they already hold `limit` seats at other slow tables (0: no limit)."""
    if not limit or not room.lobby.options.slow or holds_slow_seat(room, player_id):
        return  # moving to another seat of the same table takes no other
    held = 0
    for table_id in await tables_of(hub.store, player_id):
        if table_id == room.id:
            continue
        try:
            other = await hub.room(table_id, player_id)
        except LobbyError:  # closed meanwhile
            continue
        held += holds_slow_seat(other, player_id)
    if held >= limit:
        raise too_many("too_many_slow_games",
                       f"you already sit at {counted(held, 'slow game', 'slow games')}: "
                       "finish or leave one before sitting at another",
                       RETRY_SECONDS, limit=limit)
