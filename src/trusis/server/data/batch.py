"""One group commit's batch (commits.py): the actions waiting to be stored, the few
statements that store them whatever their number, and how their callers learn what became
of them. Both writers use it: PostgreSQL's task (commits.py) and SQLite's thread
(sqlite_writer.py)."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, insert, update
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect

from trusis.server.data import schema
from trusis.server.monitoring import metrics

Bound = dict[str, Any]
"""A statement's bound parameters, by name: what a batch writes, never a row the store
answers (those are typed: rows.py)."""


@dataclass
class Append:
    """One action waiting for a group commit, and the future its caller awaits."""

    row: Bound
    values: Bound
    done: asyncio.Future[None]
    fence: tuple[str, int] | None = None  # (node, number): stored only while it holds
    notices: Sequence[Bound] = ()  # the outbox's rows it causes (notifications/)
    cancels: Sequence[tuple[int, str]] = ()  # (seat, phase): reminders no longer due
    until: float | None = None  # stored only if committed before it (`STORE_BY`)


def settle(done: asyncio.Future[None], error: Exception | None) -> None:
    if done.done():
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


def stored(batch: list[Append], began: float) -> None:
    """Answer the callers whose actions were committed (and count them: metrics.py)."""
    stored = [one for one in batch if not one.done.done()]  # not refused by their lease
    if (figures := metrics.FIGURES) is not None:
        figures.commit.observe(time.perf_counter() - began)
        figures.actions.inc(len(stored))
        ended = sum(1 for one in stored if "winner" in one.values)
        if ended:
            figures.finished.inc(ended)
    for one in stored:
        settle(one.done, None)


def answered(answers: list[tuple[Append, Exception | None]], began: float) -> None:
    """On the event loop: the callers of a batch the thread wrote learn what became of
    their actions (None: stored)."""
    for one, error in answers:
        if error is not None:
            settle(one.done, error)
    stored([one for one, error in answers if error is None], began)


ACTION_COLUMNS = ("table_id", "idx", "t", "player_id", "client_id", "data", "fence")
"""An action's row, as `GroupCommits.append` makes it."""
NOTICE_COLUMNS = ("id", "player_id", "table_id", "seat", "kind", "phase", "facts",
                  "created_at", "due_at", "state")
"""A notice's row (the outbox: notifications/facts.py makes them)."""


def shapes(batch: list[Append]) -> dict[tuple[str, ...], list[Bound]]:
    """The tables' rows to update, grouped by the columns each one changes."""
    shapes: dict[tuple[str, ...], list[Bound]] = {}
    for one in batch:
        shapes.setdefault(tuple(sorted(one.values)), []).append(
            {"b_id": one.row["table_id"], **{f"b_{k}": v for k, v in one.values.items()}})
    return shapes


def insert_actions() -> Any:
    return insert(schema.actions).values({c: bindparam(c) for c in ACTION_COLUMNS})


def update_tables(names: tuple[str, ...]) -> Any:
    t = schema.tables
    return update(t).where(t.c.id == bindparam("b_id")).values(
        {n: bindparam(f"b_{n}") for n in names})


def insert_notices() -> Any:
    return insert(schema.notices).values({c: bindparam(c) for c in NOTICE_COLUMNS})


def cancel_reminders() -> Any:
    """A seat's reminder of a phase is not due once it has passed (notifications/)."""
    n = schema.notices
    return update(n).where(n.c.table_id == bindparam("c_table"), n.c.seat == bindparam("c_seat"),
                           n.c.phase == bindparam("c_phase"), n.c.kind == bindparam("c_kind"),
                           n.c.state == bindparam("c_new")).values(state=bindparam("c_gone"))


def outbox(batch: list[Append]) -> tuple[list[Bound], list[Bound]]:
    """The notices a batch's actions caused, and the reminders they cancel: written in
    the actions' own transaction, so that a notice exists exactly when its action does."""
    notices = [row for one in batch for row in one.notices]
    cancels = [{"c_table": one.row["table_id"], "c_seat": seat, "c_phase": phase,
                "c_kind": "reminder", "c_new": "new", "c_gone": "cancelled"}
               for one in batch for seat, phase in one.cancels]
    return notices, cancels


def statements(batch: list[Append]) -> list[tuple[Any, list[Bound]]]:
    """A group commit's statements: a few, whatever the size of the batch (each one is
    a trip to the database driver, and under load each trip waits for the event loop)."""
    statements: list[tuple[Any, list[Bound]]] = [
        (insert_actions(), [one.row for one in batch])]
    for names, rows in shapes(batch).items():
        statements.append((update_tables(names), rows))
    notices, cancels = outbox(batch)
    if notices:
        statements.append((insert_notices(), notices))
    if cancels:
        statements.append((cancel_reminders(), cancels))
    return statements


@functools.cache
def sqlite_sql(names: tuple[str, ...] | str | None) -> tuple[str, tuple[str, ...]]:
    """SQLite's text of the actions' insert (None), of a tables' update, or of the
    outbox's ("notices", "cancel"), and the order of its parameters: the same statements,
    compiled once."""
    statement = (insert_actions() if names is None else insert_notices() if names == "notices"
                 else cancel_reminders() if names == "cancel" else update_tables(tuple(names)))
    compiled = statement.compile(dialect=sqlite_dialect())
    assert compiled.positiontup is not None
    return str(compiled), tuple(compiled.positiontup)
