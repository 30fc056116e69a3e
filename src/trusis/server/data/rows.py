"""A game's stored rows as store.py answers them: typed, so that a reader names a column
the table has (issue 36). One TypedDict per table of schema.py, its keys the columns.

TypedDicts rather than dataclasses: a row is still the dict it was (the same keys, the
same JSON where one is sent), and mypy checks each `row["…"]` read.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict


class TableRow(TypedDict):
    """A row of `tables`: a game from its creation to its end. The columns a started game
    fills (`seed`, `players`, `deal`, `started_at`) are None while it is open."""

    id: str
    name: str
    host_id: str
    options: str  # JSON: TableOptions
    status: str  # open, running, finished, closed, expired
    invite: str
    created_at: float
    started_at: float | None
    finished_at: float | None
    seed: int | None  # secret until the game has ended
    players: str | None  # JSON: the seats' names at the start
    deal: str | None  # JSON: each seat's role
    winner: str | None
    deadline: float | None
    deadline_phase: str | None
    private: bool


class SeatRow(TypedDict):
    """A row of `seats`: who holds a seat of a table now (person, program or bot)."""

    table_id: str
    seat: int
    kind: Literal["person", "program", "bot"]  # tables/seats/seat.py's SeatKind
    player_id: str | None
    bot_kind: str | None
    name: str


class ActionRow(TypedDict):
    """A row of `actions`: one recorded action, `data` its record form (docs/record.md)."""

    table_id: str
    idx: int
    data: str  # JSON
    t: float | None
    player_id: str | None
    client_id: str | None
    fence: int | None
