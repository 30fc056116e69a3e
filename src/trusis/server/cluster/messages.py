"""Every message between processes, as a typed value with one encoder and one decoder.

Four channels carry them (bus.py): a game's owner channel (`o:<table>`: commands,
lobby requests and presence, to the process that writes the game), its table
channel (`t:<table>`: what the writer stored, the table's lobby facts and whom its
host removed from the waiting room, to the processes that follow it), each
process's reply channel (`r:<node>`: answers) and the sessions channel (revoked
tokens, and warnings to tell at once). `k` names the kind; a message that does not
decode is logged and dropped by the bus, never half-read.

Versions (issue 38: a rolling upgrade dropped the new messages until every process ran the
new version). A kind keeps its meaning for ever: a new version may add a field with a
default, or a new kind, and nothing else (a field renamed, removed or given a new meaning
is a new kind). So a process reads what a newer one sends: a message with fields it does
not know is understood without them, one of a kind it does not know is skipped — each
counted (`trusis_bus_newer`) and logged once per kind and fields, never a crash nor a
silent drop (`decode`). A version that adds a field or a kind raises `BUS_VERSION`, and
its messages then say it (`v`), for the log line of an older reader; a message of version
1, with no `v`, is what the versions before this rule sent and read (docs/deploy.md,
"Upgrading a cluster").
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from trusis.server.connections.protocol import ActionIn
from trusis.server.monitoring import metrics
from trusis.server.players.revoked import Revocation
from trusis.server.tables.answers import CommandAnswer
from trusis.server.tables.requests import LobbyMethod, LobbyResult
from trusis.server.tables.seats.seat import RoomStatus, SeatKind

log = logging.getLogger("trusis.server")

BUS_VERSION = 2
"""This process's version of the bus messages: raised by a version that adds a field or a
kind (the module's docstring). Version 1 writes no `v`: the version before read none.
Version 2 added the kind `line_hidden` (D71)."""
NEWER_LOGGED = 256
"""Kinds and field sets from newer processes logged at most once each, up to this many."""
NEWER: Counter[str] = Counter()
"""Messages from a newer process: `fields` (understood without the fields this version does
not know) and `kind` (skipped); `trusis_bus_newer` when metrics are on."""
_logged: set[tuple[str, str, tuple[str, ...]]] = set()


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    v: int = Field(default=1, exclude=True)
    """The sender's bus version (`encode` writes it from version 2 on): read, never a field
    this version does not know."""


class Act(_Message):
    """A seat's command, forwarded to the game's writer (`owner.CommandRequest`). `until`:
    the database's time after which the writer must not apply it (forward.py)."""

    k: Literal["act"] = "act"
    req: str = ""
    sender: str = ""
    player: str
    seat: int | None
    client: str
    action: ActionIn
    lang: str
    until: float | None = None


class Lobby(_Message):
    """A lobby request (`requests.LobbyRequest`), forwarded to the game's writer."""

    k: Literal["lobby"] = "lobby"
    req: str = ""
    sender: str = ""
    method: LobbyMethod
    player: tuple[str, str, str]  # id, name, kind
    seat: int | None = None
    kind: str = ""
    by: str = ""
    name: str = ""
    code: str = ""
    until: float | None = None  # as `Act`'s: not run after it


class Presence(_Message):
    """A follower's connected seats and spectators, counted until `until` (R52)."""

    k: Literal["presence"] = "presence"
    sender: str
    seats: tuple[int, ...]
    spectators: int
    until: float


class Actions(_Message):
    """Actions the writer stored, from record index `first`, with their times."""

    k: Literal["actions"] = "actions"
    first: int
    entries: tuple[tuple[dict[str, Any], float], ...]
    deadline: float | None


class SeatFact(_Message):
    kind: SeatKind
    name: str
    player_id: str | None
    bot_kind: str | None


class KeptSeat(_Message):
    """A seat a rematch keeps for its player (rematch_db.Reservation)."""

    player_id: str
    kind: SeatKind
    name: str
    until: float


class WaitingLine(_Message):
    """A line of the waiting room's chat (D45), as `waiting_chat` sends it."""

    seat: int
    name: str | None
    text: str
    t: float
    n: int | None = None  # bus version 2: its number, which a moderator hides it by (D71)


class TableFacts(_Message):
    """The lobby facts of a table as its writer has them: what a follower shows."""

    k: Literal["table"] = "table"
    status: RoomStatus
    deadline: float | None
    seats: dict[int, SeatFact]
    connected: tuple[int, ...]
    spectators: int
    former: tuple[str, ...]
    rematch: str | None = None
    quit: tuple[int, ...] = ()  # the seats whose player left on purpose (D31)
    reserved: dict[int, KeptSeat] = {}
    waiting: tuple[WaitingLine, ...] = ()  # the waiting room's last lines (D45)
    waiting_said: int = 0  # how many were ever said: a follower sends the new ones
    host_name: str | None = None  # the host's name now: a rename follows (D46)


class Removed(_Message):
    """The table's host removed `player` from its waiting room (D34): each process that
    follows the table closes that person's connections to it (D55, barred.py). Sent on
    the table's channel before the facts that show the seat free."""

    k: Literal["removed"] = "removed"
    player: str


class Failure(_Message):
    """A refusal (a `LobbyError`) or a failure, as the answer says it."""

    status: int
    code: str
    params: dict[str, Any]
    message: str


class Reply(_Message):
    """The writer's answer to a forwarded request (`req`). `not_owner`: it does not write
    that game (any more, or not while its database is away): the request is tried again
    (a command's client id makes that safe: the store holds one action per id).
    `expired`: it came after its `until`, and was not applied (nor will it be). `answer`
    is a command's, `result` a lobby request's, with the table's facts after it."""

    k: Literal["reply"] = "reply"
    req: str
    not_owner: bool = False
    expired: bool = False
    error: Failure | None = None
    answer: CommandAnswer | None = None
    result: LobbyResult = None
    table: TableFacts | None = None


class Revoked(_Message, Revocation):
    """A `Revocation` (players/revoked.py) made on process `sender`: the same type, its
    fields as they were, that every other process closes its connections by."""

    k: Literal["revoked"] = "revoked"
    sender: str


class Warned(_Message):
    """A moderator warned `player` on process `sender`: every process sends its connections
    of that player the `warning` frame (D53)."""

    k: Literal["warned"] = "warned"
    sender: str
    player: str
    id: str
    reason: str
    at: float


class Muted(_Message):
    """A moderator muted `player` on process `sender`: every process sends its connections
    of that player the `muted` frame, with the mute's end and reason (issue 38). A kind of
    its own, part of bus version 1 (it came with the versioning, before any release of it):
    a process of the version before skips it (`decode`) and tells no mute meanwhile."""

    k: Literal["muted"] = "muted"
    sender: str
    player: str
    id: str
    reason: str
    at: float
    until: float


class LineHidden(_Message):
    """A moderator hid a chat line of `table` (`hidden`) or showed it again, on process
    `sender` (D71): every process tells its connections of the table and sends them the
    chat again as each may read it. Bus version 2: a process of version 1 skips it, and its
    connections read the change at their next snapshot meanwhile."""

    k: Literal["line_hidden"] = "line_hidden"
    sender: str
    table: str
    place: Literal["game", "waiting"]
    number: int
    hidden: bool
    reason: str
    writer: str | None


Message = Annotated[Act | Lobby | Presence | Actions | TableFacts | Removed | Reply | Revoked
                    | Warned | Muted | LineHidden, Field(discriminator="k")]
_MESSAGE: TypeAdapter[Message] = TypeAdapter(Message)


def encode(message: _Message) -> bytes:
    data = message.model_dump(mode="json")
    if BUS_VERSION > 1:
        data["v"] = BUS_VERSION
    return orjson.dumps(data)


TOLERATED = frozenset({"extra_forbidden", "unexpected_keyword_argument"})
"""pydantic's errors for a field this version does not know (a model's, a dataclass's)."""


def decode(data: bytes | str) -> Message | None:
    """The message in `data`; None for a kind this version does not know (a newer
    process's: skipped, counted, logged once); or a pydantic `ValidationError` naming the
    field. A message with fields this version does not know is read without them."""
    try:
        return _MESSAGE.validate_json(data)  # every field known: the one fast path
    except ValidationError as err:
        errors = err.errors()
        if errors and errors[0]["type"] == "union_tag_invalid":
            _newer("kind", data, ())
            return None
        fields = tuple(sorted(".".join(str(p) for p in e["loc"][1:]) for e in errors
                              if e["type"] in TOLERATED))
        if len(fields) < len(errors):
            raise  # not (only) newer: malformed, as ever
    message = _MESSAGE.validate_json(data, extra="ignore")
    _newer("fields", data, fields)
    return message


def _newer(what: Literal["fields", "kind"], data: bytes | str, fields: tuple[str, ...]) -> None:
    """Count a newer process's message, and say it in the log the first time its kind and
    fields are heard: a rolling upgrade sends many of each."""
    NEWER[what] += 1
    if (figures := metrics.FIGURES) is not None:
        figures.bus_newer.labels(what).inc()
    try:
        raw = orjson.loads(data)
    except orjson.JSONDecodeError:  # it was decoded once already: cannot happen
        raw = {}
    kind = str(raw.get("k"))[:40] if isinstance(raw, dict) else "?"
    version = raw.get("v", 1) if isinstance(raw, dict) else "?"
    key = (what, kind, fields)
    if key in _logged or len(_logged) >= NEWER_LOGGED:
        return
    _logged.add(key)
    if what == "kind":
        log.warning("redis: skipped a message of kind %r, which this version does not know, "
                    "from a process of bus version %s (this one: %d); more are counted in "
                    "trusis_bus_newer", kind, version, BUS_VERSION)
    else:
        log.warning("redis: read a %r message without its fields %s, which this version does "
                    "not know, from a process of bus version %s (this one: %d); more are "
                    "counted in trusis_bus_newer", kind, ", ".join(fields), version,
                    BUS_VERSION)
