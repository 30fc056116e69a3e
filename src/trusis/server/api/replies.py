"""What the JSON routes answer, as types: FastAPI takes each route's return type as its
response model, so `/openapi.json` describes every answer (issue 36), and an answer that
strays from its type fails loudly in the tests rather than quietly on a client.

TypedDicts, not models: an answer keeps its keys in the order written here (the order the
routes always sent), a key a route leaves out stays out (`NotRequired`: no `null` is
added), and a key it adds that its type does not name yet still reaches the client
(`OPEN`). A `float` field turns a whole number into 2.0: only floats are given one.
Nested parts whose shape another module owns (the lobby's seats and options, a
profile's statistics) stay open objects. typing_extensions' TypedDict: pydantic reads
no other on Python 3.11 (hence the data package's rows use it too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, cast

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from trusis.server.data.blocks import BlockRow
from trusis.server.data.history import Leader
from trusis.server.tables.room import Room

OPEN = with_config(ConfigDict(extra="allow"))
"""Every answer keeps a key its route adds that its type does not name yet (after the
named ones): a new field reaches the client, it is never dropped on the way."""


@OPEN
class Ok(TypedDict):
    ok: bool


@OPEN
class PlayerOut(TypedDict):
    id: str
    name: str
    kind: str


@OPEN
class PlayerAnswer(TypedDict):
    player: PlayerOut


@OPEN
class GuestAnswer(TypedDict):
    player: PlayerOut
    token: str


@OPEN
class BanOut(TypedDict):
    """A ban as its player is told (D36, D53): its end (None: never) and its reason."""

    until: float | None
    reason: str


@OPEN
class SessionAnswer(TypedDict):
    player: PlayerOut | None
    banned: NotRequired[BanOut]


@OPEN
class BotsAnswer(TypedDict):
    kinds: list[str]
    default: str


@OPEN
class SetCheckAnswer(TypedDict):
    """A set that may be played (`ok`, its roles), or why not (a refusal's fields)."""

    ok: bool
    roles: NotRequired[Any]
    code: NotRequired[str]
    params: NotRequired[dict[str, Any]]
    message: NotRequired[str]


@OPEN
class HostOut(TypedDict):
    id: str
    name: str


@OPEN
class TableInfo(TypedDict):
    """A table as the lobby shows it to one player (tables/room.py `Room.info`)."""

    id: str
    name: str
    status: str
    host: HostOut
    you_host: bool
    options: dict[str, Any]
    roles: Any
    seats: list[dict[str, Any]]
    taken: int
    created_at: float
    spectators: int
    deadline: float | None
    invite: NotRequired[str]  # its host's only
    rematch: NotRequired[str]
    previous: NotRequired[str]
    winner: NotRequired[str | None]


@OPEN
class TableAnswer(TypedDict):
    table: TableInfo


@OPEN
class SeatAnswer(TypedDict):
    seat: int
    table: TableInfo


@OPEN
class ProgramSeatAnswer(TypedDict):
    seat: int
    token: str
    table: TableInfo


@OPEN
class AcceptAnswer(TypedDict):
    """A rematch's kept seat taken; a program's new seat token with it."""

    seat: int
    table: TableInfo
    token: NotRequired[str]


@OPEN
class ReplaceAnswer(TypedDict):
    """R53: a departed seat handed over; for a person, the one-time link that seats them."""

    table: TableInfo
    claim: NotRequired[str]
    link: NotRequired[str]


@OPEN
class TablesAnswer(TypedDict):
    tables: list[TableInfo]


@OPEN
class MyTable(TableInfo):
    """A table of "Your games" (D48): where the game stands for you (D64)."""

    yours: Mapping[str, Any]  # tables/yourgames.py `Yours`


@OPEN
class MyTablesAnswer(TypedDict):
    tables: list[MyTable]
    waiting: int  # the games where you have something to do


@OPEN
class LeaderboardAnswer(TypedDict):
    players: list[Leader]  # data/history.py


@OPEN
class IdAnswer(TypedDict):
    id: str


@OPEN
class TableReport(TypedDict):
    """A report as the table's host reads it: only the lines they could read (R50)."""

    id: str
    table_id: str
    reporter_id: str
    reporter_seat: int | None
    seat: int
    reason: str
    chat: list[dict[str, Any]]
    phase: str
    at: float
    reported_id: str | None


@OPEN
class TableReportsAnswer(TypedDict):
    reports: list[TableReport]
    total: int


@OPEN
class DeletedAnswer(TypedDict):
    deleted: bool


@OPEN
class BlockedOut(TypedDict):
    id: str
    name: str


@OPEN
class BlockAnswer(TypedDict):
    blocked: BlockedOut


@OPEN
class SeatsAnswer(TypedDict):
    seats: list[int]


@OPEN
class BlocksAnswer(TypedDict):
    blocks: list[BlockRow]


@OPEN
class UnblockAnswer(TypedDict):
    unblocked: str


@OPEN
class EmailOut(TypedDict):
    address: str
    confirmed: bool
    wanted: bool


@OPEN
class NotificationSettings(TypedDict):
    prefs: dict[str, Any]
    email: EmailOut | None
    email_available: bool
    account: bool
    push_subscriptions: int


@OPEN
class PushKey(TypedDict):
    key: str


@OPEN
class RoleWords(TypedDict):
    name: str
    team: str


@OPEN
class Catalogue(TypedDict):
    """The words a client renders codes with, in one language."""

    lang: str
    messages: dict[str, Any]
    roles: dict[str, RoleWords]
    stats: dict[str, Any]


def table_info(room: Room, viewer: str | None) -> TableInfo:
    """`Room.info` as the answer's type: the lobby builds it, the response model checks
    every answer against it."""
    return cast(TableInfo, room.info(viewer))
