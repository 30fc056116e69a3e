"""Reports (R51): filed at a table by a player, read by the table's host and by the
moderators. The rows of `reports`; api/people.py and api/moderation.py say when."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any, Literal

from sqlalchemy import and_, func, insert, select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.orm import aliased
from typing_extensions import TypedDict

from trusis.server.data import audit, schema


class ReportRow(TypedDict):
    """A report as stored (its `chat` still the JSON text of the lines kept)."""

    id: str
    table_id: str
    reporter_id: str
    reporter_seat: int | None
    seat: int
    reason: str
    chat: str
    phase: str
    at: float
    reported_id: str | None


class ReportRows:
    """The rows of `reports`."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def file(self, report_id: str, table_id: str, reporter_id: str,
                   reporter_seat: int | None, seat: int, reason: str, chat: Sequence[Any],
                   phase: str, reported_id: str | None) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(insert(schema.reports).values(
                id=report_id, table_id=table_id, reporter_id=reporter_id,
                reporter_seat=reporter_seat, seat=seat, reason=reason, chat=json.dumps(chat),
                phase=phase, at=time.time(), reported_id=reported_id))

    async def filed(self, table_id: str, reporter: str, seat: int,
                    reported: str | None) -> bool:
        """Whether `reporter` has reported the person at `seat` of this table already."""
        r = schema.reports
        async with self.engine.connect() as conn:
            found = (await conn.execute(select(r.c.id).where(
                r.c.table_id == table_id, r.c.reporter_id == reporter, r.c.seat == seat,
                r.c.reported_id.is_not_distinct_from(reported)).limit(1))).first()
        return found is not None

    async def of_table(self, table_id: str, limit: int) -> tuple[int, list[ReportRow]]:
        """How many reports a table has, and its newest `limit`, newest first."""
        r = schema.reports
        async with self.engine.connect() as conn:
            total = (await conn.execute(select(func.count()).select_from(r)
                                        .where(r.c.table_id == table_id))).scalar_one()
            rows = (await conn.execute(select(r).where(r.c.table_id == table_id)
                                       .order_by(r.c.at.desc(), r.c.id.desc()).limit(limit))
                    ).mappings().all()
        return int(total), [ReportRow(**row) for row in rows]  # type: ignore[typeddict-item]


class ListedReport(TypedDict):
    """A report as the moderation page lists it: with its table's, reporter's and reported
    player's names (about_id: the player reported, or who held the seat), its decision,
    and the names of its table's seats."""

    id: str
    table_id: str
    table_name: str
    at: float
    phase: str
    reason: str
    chat: str
    reporter_id: str
    reporter_name: str
    reporter_seat: int | None
    seat: int
    about_id: str | None
    about_name: str | None
    state: str | None
    by_id: str | None
    state_at: float | None
    seat_names: dict[int, str]


def _about_id() -> Any:
    r, seat, gp = schema.reports, schema.seats, schema.game_players
    return func.coalesce(r.c.reported_id, seat.c.player_id, gp.c.player_id)


def _listing() -> Any:
    r, st, seat, t = schema.reports, schema.report_states, schema.seats, schema.tables
    reporter, about, gp = aliased(schema.players), aliased(schema.players), schema.game_players
    about_id = _about_id()
    return (select(r.c.id, r.c.table_id, t.c.name.label("table_name"), r.c.at, r.c.phase,
                   r.c.reason, r.c.chat, r.c.reporter_id, reporter.c.name.label("reporter_name"),
                   r.c.reporter_seat, r.c.seat, about_id.label("about_id"),
                   about.c.name.label("about_name"), st.c.state, st.c.by_id,
                   st.c.at.label("state_at"))
            .join(t, t.c.id == r.c.table_id)
            .join(reporter, reporter.c.id == r.c.reporter_id)
            .outerjoin(seat, and_(seat.c.table_id == r.c.table_id, seat.c.seat == r.c.seat))
            .outerjoin(gp, and_(gp.c.table_id == r.c.table_id, gp.c.seat == r.c.seat))
            .outerjoin(about, about.c.id == about_id)
            .outerjoin(st, st.c.report_id == r.c.id)
            .order_by(r.c.at.desc()))


async def _listed(engine: AsyncEngine, query: Any) -> list[ListedReport]:
    s = schema.seats
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).mappings().all()
        tables = {row["table_id"] for row in rows}
        names: dict[str, dict[int, str]] = {t: {} for t in tables}
        if tables:
            for seat in (await conn.execute(select(s.c.table_id, s.c.seat, s.c.name)
                                            .where(s.c.table_id.in_(tables)))).mappings():
                names[seat["table_id"]][seat["seat"]] = seat["name"]
    return [ListedReport(**row, seat_names=names[row["table_id"]])  # type: ignore[typeddict-item]
            for row in rows]


async def listed(engine: AsyncEngine, state: str, limit: int) -> list[ListedReport]:
    """Reports from every table, newest first: those in `state` (`open`: undecided), or
    `all`."""
    st = schema.report_states
    query = _listing().limit(limit)
    if state == "open":
        query = query.where(st.c.state.is_(None))
    elif state != "all":
        query = query.where(st.c.state == state)
    return await _listed(engine, query)


async def about_player(engine: AsyncEngine, player_id: str, limit: int) -> list[ListedReport]:
    """The newest reports about a player (reported, or holding the seat reported)."""
    return await _listed(engine, _listing().where(_about_id() == player_id).limit(limit))


async def by_ids(engine: AsyncEngine, report_ids: set[str]) -> dict[str, ListedReport]:
    r = schema.reports
    found = await _listed(engine, _listing().where(r.c.id.in_(report_ids)))
    return {x["id"]: x for x in found}


async def about(engine: AsyncEngine, report_id: str) -> tuple[bool, str | None]:
    """Whether the report exists, and the player it is about (None: a seat nobody held as
    a player)."""
    r = schema.reports
    async with engine.connect() as conn:
        row = (await conn.execute(_listing().where(r.c.id == report_id))).mappings().first()
    return (False, None) if row is None else (True, row["about_id"])


async def mark(conn: AsyncConnection, report_id: str, state: str, by: str) -> None:
    """A report's state (the newest decision stands), in the caller's transaction."""
    st = schema.report_states
    await conn.execute(st.delete().where(st.c.report_id == report_id))
    await conn.execute(st.insert().values(report_id=report_id, state=state, by_id=by,
                                          at=time.time()))


async def decide(engine: AsyncEngine, report_id: str, state: Literal["acted", "dismissed"],
                 by: str, about_id: str | None, reason: str) -> None:
    """A moderator's decision on a report, with its audit line: one transaction."""
    async with engine.begin() as conn:
        await mark(conn, report_id, state, by)
        await audit.write(conn, by, state, about_id, reason, report_id=report_id)
