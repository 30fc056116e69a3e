"""Chat lines a moderator hid (issue 38, D71): stored, read back, shown again.

A row is a line hidden now; showing it again deletes the row. Each act and its audit line
(`hide_line`, `unhide_line`, naming the line) are one transaction, as every moderation act.
A line is named by its table, its place and its number: a game's line by the record's
step just after it (its `say` action's index + 1, as a report's excerpt says), a waiting
room's line (D45) by its number there, counted from 1.
"""

from __future__ import annotations

import json
from typing import Literal

from sqlalchemy import delete, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine
from typing_extensions import TypedDict

from trusis.rules.actions import SAY
from trusis.server.data import audit, schema
from trusis.server.data.store import chunks

Place = Literal["game", "waiting"]


class HiddenLine(TypedDict):
    """One hidden line: where it is, whose it is, why and by whom it was hidden."""

    table_id: str
    place: Place
    number: int
    seat: int
    writer_id: str | None
    reason: str
    by_id: str
    at: float


class HiddenFacts(TypedDict):
    """A hide or an unhide as every process's connections of the table are told of it
    (hub.py `line_hidden`, the bus's `line_hidden`)."""

    table: str
    place: Place
    number: int
    hidden: bool
    reason: str
    writer: str | None


def facts(line: HiddenLine, hidden: bool) -> HiddenFacts:
    return HiddenFacts(table=line["table_id"], place=line["place"], number=line["number"],
                       hidden=hidden, reason=line["reason"], writer=line["writer_id"])


def line_key(table_id: str, place: Place, number: int) -> str:
    """How the audit log names a line (`line`)."""
    return f"{table_id}/{place}/{number}"


async def hide(engine: AsyncEngine, line: HiddenLine) -> bool:
    """Hide `line`, with its audit line; False if it is hidden already."""
    h = schema.hidden_lines
    try:
        async with engine.begin() as conn:
            found = (await conn.execute(select(h.c.number).where(
                h.c.table_id == line["table_id"], h.c.place == line["place"],
                h.c.number == line["number"]))).first()
            if found is not None:
                return False
            await conn.execute(insert(h).values(**line))
            await audit.write(conn, line["by_id"], "hide_line", line["writer_id"],
                              line["reason"], line=line_key(line["table_id"], line["place"],
                                                            line["number"]))
    except IntegrityError:  # hidden at the same moment by someone else
        return False
    return True


async def unhide(engine: AsyncEngine, table_id: str, place: Place, number: int, by_id: str,
                 reason: str) -> HiddenLine | None:
    """Show a hidden line again, with its audit line: the hide it undid, or None if the
    line was not hidden."""
    h = schema.hidden_lines
    where = (h.c.table_id == table_id, h.c.place == place, h.c.number == number)
    async with engine.begin() as conn:
        row = (await conn.execute(select(h).where(*where))).mappings().first()
        if row is None:
            return None
        await conn.execute(delete(h).where(*where))
        await audit.write(conn, by_id, "unhide_line", row["writer_id"], reason,
                          line=line_key(table_id, place, number))
    was: HiddenLine = HiddenLine(**row)  # type: ignore[typeddict-item]
    return was


class Said(TypedDict):
    """A game's chat line as stored: its seat, its recipient (a whisper's) and its writer."""

    seat: int
    to: int | None
    writer_id: str | None


async def said_at(engine: AsyncEngine, table_id: str, step: int) -> Said | None:
    """The chat line whose `say` action is the stored one just before `step`, or None when
    that action is none or no `say`."""
    a = schema.actions
    async with engine.connect() as conn:
        row = (await conn.execute(select(a.c.data, a.c.player_id).where(
            a.c.table_id == table_id, a.c.idx == step - 1))).first()
    data = json.loads(row[0]) if row is not None else {}
    if row is None or data.get("do") != SAY:
        return None
    to = data.get("to")
    return Said(seat=int(data["seat"]), to=int(to) if to is not None else None,
                writer_id=row[1])


async def of_table(engine: AsyncEngine, table_id: str) -> list[HiddenLine]:
    """The lines of a table hidden now."""
    return (await of_tables(engine, [table_id]))[table_id]


async def of_tables(engine: AsyncEngine, table_ids: list[str]) -> dict[str, list[HiddenLine]]:
    """The lines hidden now of each of several tables (a restart reads them all at once),
    a query per IN_CHUNK tables."""
    h = schema.hidden_lines
    found: dict[str, list[HiddenLine]] = {t: [] for t in table_ids}
    async with engine.connect() as conn:
        for chunk in chunks(table_ids):
            rows = (await conn.execute(select(h).where(h.c.table_id.in_(chunk))
                                       .order_by(h.c.place, h.c.number))).mappings()
            for row in rows:
                found[row["table_id"]].append(HiddenLine(**row))  # type: ignore[typeddict-item]
    return found
