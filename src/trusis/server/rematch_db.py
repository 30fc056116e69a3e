"""What a rematch stores (migration 0006): the games of a series, and the seats a new
table keeps for the people of the game before (docs/rules.md, D19).

A table that was never played again has no `series_games` row: it is a series of
one. The first rematch writes two rows (the first game's and the new one's), each
further one a row more; `next_id` makes a second proposal of the same game find the
table already made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Column, Float, ForeignKey, Integer, String, Table, delete, insert, select
from sqlalchemy import update as sql_update

from trusis.server.commits import Fence, fenced
from trusis.server.schema import metadata
from trusis.server.seat import Reservation
from trusis.server.store import Store, chunks

if TYPE_CHECKING:
    from trusis.server.room import Room

series_games = Table(
    "series_games", metadata,
    Column("table_id", String(16), ForeignKey("tables.id"), primary_key=True),
    Column("series_id", String(16), nullable=False, index=True),  # the first game's table
    Column("number", Integer, nullable=False),  # 1 for the first game
    Column("previous_id", String(16), nullable=True),
    Column("next_id", String(16), nullable=True),  # its rematch, once proposed
)

reservations = Table(
    "reservations", metadata,
    Column("table_id", String(16), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("kind", String(16), nullable=False),  # person or program
    Column("name", String(64), nullable=False),
    Column("until", Float, nullable=False),  # seconds since the epoch
)


@dataclass(frozen=True)
class Link:
    """Where a table stands in its series."""

    table_id: str
    series_id: str
    number: int
    previous_id: str | None
    next_id: str | None


def bot_gives_way(room: Room, seat: int, player_id: str | None) -> bool:
    """D19: at a rematch's table, a person may take a bot's seat (the bot only kept it)."""
    held = room.lobby.seats.get(seat)
    return (player_id is not None and room.lobby.previous is not None and held is not None
            and held.kind == "bot")


async def link_of(store: Store, table_id: str) -> Link | None:
    g = series_games
    async with store.engine.connect() as conn:
        row = (await conn.execute(select(g).where(g.c.table_id == table_id))).mappings().first()
    if row is None:
        return None
    return Link(row["table_id"], row["series_id"], int(row["number"]), row["previous_id"],
                row["next_id"])


async def links_of(store: Store, table_ids: list[str]) -> dict[str, Link]:
    """The series links of several tables (those in a series), a query per chunk."""
    g = series_games
    found: dict[str, Link] = {}
    async with store.engine.connect() as conn:
        for chunk in chunks(table_ids):
            for row in (await conn.execute(select(g).where(g.c.table_id.in_(chunk)))).mappings():
                found[row["table_id"]] = Link(row["table_id"], row["series_id"],
                                              int(row["number"]), row["previous_id"],
                                              row["next_id"])
    return found


async def reserved_of(store: Store, table_ids: list[str]) -> dict[str, dict[int, Reservation]]:
    """The kept seats of several open tables, a query per chunk."""
    r = reservations
    found: dict[str, dict[int, Reservation]] = {t: {} for t in table_ids}
    async with store.engine.connect() as conn:
        for chunk in chunks(table_ids):
            for x in (await conn.execute(select(r).where(r.c.table_id.in_(chunk)))).mappings():
                found[x["table_id"]][int(x["seat"])] = Reservation(
                    x["player_id"], x["kind"], x["name"], float(x["until"]))
    return found


async def series_tables(store: Store, series_id: str) -> list[str]:
    """The tables of a series, first game first."""
    g = series_games
    async with store.engine.connect() as conn:
        rows = (await conn.execute(select(g.c.table_id).where(g.c.series_id == series_id)
                                   .order_by(g.c.number))).all()
    return [str(r[0]) for r in rows]


async def add_game(store: Store, before: Link | None, previous_id: str, table_id: str) -> Link:
    """Chain `table_id` after `previous_id` (whose link is `before`, None for a first game)."""
    g = series_games
    series_id = before.series_id if before is not None else previous_id
    number = (before.number if before is not None else 1) + 1
    async with store.engine.begin() as conn:
        if before is None:
            await conn.execute(insert(g).values(table_id=previous_id, series_id=series_id,
                                                number=1, previous_id=None, next_id=table_id))
        else:
            await conn.execute(sql_update(g).where(g.c.table_id == previous_id)
                               .values(next_id=table_id))
        await conn.execute(insert(g).values(table_id=table_id, series_id=series_id,
                                            number=number, previous_id=previous_id,
                                            next_id=None))
    return Link(table_id, series_id, number, previous_id, None)


async def reserve(store: Store, table_id: str, seats: dict[int, Reservation]) -> None:
    if not seats:
        return
    async with store.engine.begin() as conn:
        await conn.execute(insert(reservations), [
            {"table_id": table_id, "seat": n, "player_id": r.player_id, "kind": r.kind,
             "name": r.name, "until": r.until} for n, r in seats.items()])


async def release(store: Store, table_id: str, seat: int, fence: Fence = None) -> None:
    r = reservations
    async with store.engine.begin() as conn:
        await fenced(conn, table_id, fence, store.commits.lease_seconds)
        await conn.execute(delete(r).where(r.c.table_id == table_id, r.c.seat == seat))


def refill_rematch(room: Room, link: Link | None, kept: dict[int, Reservation]) -> None:
    """A table's rematch facts read back (restore.refill, `read_tables`): the seats an open
    table keeps, and the rematch a finished one proposed."""
    room.lobby.previous = link.previous_id if link is not None else None
    if room.status == "open":
        room.lobby.keep(kept)
    elif room.status == "finished":
        room.lobby.rematch = link.next_id if link is not None else None
