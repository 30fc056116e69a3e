"""What a rematch stores (migration 0006): the games of a series, and the seats a new
table keeps for the people of the game before (docs/rules.md, D19). The rows are
data/series.py's; here they become the lobby's reservations.

A table that was never played again has no `series_games` row: it is a series of
one. The first rematch writes two rows (the first game's and the new one's), each
further one a row more; `next_id` makes a second proposal of the same game find the
table already made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from trusis.server.data.commits import Fence
from trusis.server.data.series import KeptSeat, Link
from trusis.server.data.store import Store
from trusis.server.tables.seats.seat import Reservation, SeatKind

if TYPE_CHECKING:
    from trusis.server.tables.room import Room

def bot_gives_way(room: Room, seat: int, player_id: str | None) -> bool:
    """D19: at a rematch's table, a person may take a bot's seat (the bot only kept it)."""
    held = room.lobby.seats.get(seat)
    return (player_id is not None and room.lobby.previous is not None and held is not None
            and held.kind == "bot")


async def link_of(store: Store, table_id: str) -> Link | None:
    return await store.series.link_of(table_id)


async def links_of(store: Store, table_ids: list[str]) -> dict[str, Link]:
    """The series links of several tables (those in a series), a query per chunk."""
    return await store.series.links_of(table_ids)


async def reserved_of(store: Store, table_ids: list[str]) -> dict[str, dict[int, Reservation]]:
    """The kept seats of several open tables, a query per chunk."""
    return {table_id: {n: Reservation(x.player_id, cast(SeatKind, x.kind), x.name, x.until)
                       for n, x in kept.items()}
            for table_id, kept in (await store.series.kept_of(table_ids)).items()}


async def series_tables(store: Store, series_id: str) -> list[str]:
    """The tables of a series, first game first."""
    return await store.series.series_tables(series_id)


async def add_game(store: Store, before: Link | None, previous_id: str, table_id: str) -> Link:
    """Chain `table_id` after `previous_id` (whose link is `before`, None for a first game)."""
    return await store.series.add_game(before, previous_id, table_id)


async def reserve(store: Store, table_id: str, seats: dict[int, Reservation]) -> None:
    await store.series.keep(table_id, {n: KeptSeat(r.player_id, r.kind, r.name, r.until)
                                       for n, r in seats.items()})


async def release(store: Store, table_id: str, seat: int, fence: Fence = None) -> None:
    await store.series.release(table_id, seat, fence)


def refill_rematch(room: Room, link: Link | None, kept: dict[int, Reservation]) -> None:
    """A table's rematch facts read back (restore.refill, `read_tables`): the seats an open
    table keeps, and the rematch a finished one proposed."""
    room.lobby.previous = link.previous_id if link is not None else None
    if room.status == "open":
        room.lobby.keep(kept)
    elif room.status == "finished":
        room.lobby.rematch = link.next_id if link is not None else None
