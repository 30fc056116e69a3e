"""Every frame the server sends a client: one typed union, one place that serialises.

Each server-to-client message of docs/protocol.md is one TypedDict below, and `Frame` is
their union, discriminated by `type`. A frame is built as its type (strict mypy checks
each field at the site that builds it), and becomes bytes only through `serialise`, whose
result (`FrameBytes`) is the only byte string a client's queue takes (clients.py): no
module writes a frame as a dict literal or serialises one its own way. The served JSON
Schema (`/api/protocol.schema.json`) is generated from this same union (`FRAMES`), so
the schema and what is sent cannot drift apart (issue 36).

TypedDicts, not models: a frame is a plain dict at run time, serialised by orjson in the
order its fields are written — the same bytes as before there were types, and nothing
built per send but the dict. What a game frame says of the game comes from the engine's
view and stream code only (`View`, `EventData`: rules/formats.py): hidden information
stays hidden.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal, NewType, NotRequired

import orjson
from pydantic import Field, TypeAdapter

# typing_extensions' TypedDict: pydantic makes the JSON Schema from it on Python < 3.12.
from typing_extensions import TypedDict

from trusis.rules.formats import EventData, View

FrameBytes = NewType("FrameBytes", bytes)
"""A frame as it goes on the wire: made by `serialise` (or `events_bytes`) only."""


class Clock(TypedDict):
    """The server's time and the end of the phase (null before the start and after the end)."""

    now: float
    deadline: float | None


class You(TypedDict):
    id: str
    name: str


class WelcomeFrame(TypedDict):
    """The first frame after `hello`: the protocol, the seat, who you are, the table."""

    type: Literal["welcome"]
    protocol: int
    seat: int | None
    you: You
    table: dict[str, Any]
    returned: NotRequired[bool]  # its seat was given back just now (D29)


class SnapshotFrame(TypedDict):
    """A seat's whole view and its last events (docs/protocol.md, "Stream numbers")."""

    type: Literal["snapshot"]
    seq: int
    view: View  # trusis-view/1 (rules/formats.py): the schema and the tests check its fields
    events: Sequence[EventData]
    clock: Clock


class EventsFrame(TypedDict):
    """New events of a seat's stream, and its view after them."""

    type: Literal["events"]
    seq: int
    events: Sequence[EventData]
    view: View
    clock: Clock


class AckFrame(TypedDict):
    """A command was applied; `seq`, its sender's stream number after it (none before the
    start: a waiting room's chat has no stream, D45)."""

    type: Literal["ack"]
    id: str
    seq: NotRequired[int]


class RefusedFrame(TypedDict):
    type: Literal["refused"]
    id: str
    code: str
    params: dict[str, Any]
    message: str


class TableFrame(TypedDict):
    """The table's lobby facts, whole (room.info)."""

    type: Literal["table"]
    table: dict[str, Any]


class WaitingLine(TypedDict):
    """A line of the waiting room's chat (D45)."""

    seat: int
    name: str | None
    text: str
    t: float
    n: NotRequired[int]
    """Its number in the waiting room, counted from 1: the name a moderator hides it by."""
    hidden: NotRequired[bool]
    """A moderator hid it (D71): `text` is the placeholder, or for staff and its writer
    the text as written, with the moderator's `reason`."""
    reason: NotRequired[str]
    line: NotRequired[int]
    """For staff who watch: `n` again, as a game's line names itself (D71)."""


class WaitingChatFrame(TypedDict):
    type: Literal["waiting_chat"]
    lines: Sequence[WaitingLine]


class RematchFrame(TypedDict):
    """A finished table's rematch was proposed (docs/protocol.md, "Play again")."""

    type: Literal["rematch"]
    table: str
    previous: str
    invite: NotRequired[str]  # a private table's: the rematch keeps it


class ErrorFrame(TypedDict):
    """A frame that is no valid message: `field` names where it went wrong."""

    type: Literal["error"]
    code: Literal["bad_message"]
    field: str
    message: str
    id: NotRequired[str]  # the frame's own, when it had one


class PongFrame(TypedDict):
    type: Literal["pong"]
    now: float


class WarningFrame(TypedDict):
    """A moderator's warning, given just now (D53), as `GET /api/me/warnings` lists it."""

    type: Literal["warning"]
    id: str
    reason: str
    at: float


class MutedFrame(TypedDict):
    """A moderator muted the player just now (D53, issue 38): until when, and why."""

    type: Literal["muted"]
    id: str
    reason: str
    at: float
    until: float | None


class LineHiddenFrame(TypedDict):
    """A moderator hid a chat line of the table (`hidden`) or showed it again (D71): the
    chat follows, as this connection may read it — a `snapshot` for the game's (`place`
    "game"), the waiting room's lines whole in one `waiting_chat` for theirs."""

    type: Literal["line_hidden"]
    place: Literal["game", "waiting"]
    hidden: bool


class BannedFrame(TypedDict):
    """The player is banned (D53): the ban's end (null: none) and reason; 4423 follows."""

    type: Literal["banned"]
    until: float | None
    reason: str


Frame = (WelcomeFrame | SnapshotFrame | EventsFrame | AckFrame | RefusedFrame | TableFrame
         | WaitingChatFrame | RematchFrame | ErrorFrame | PongFrame | WarningFrame | MutedFrame
         | BannedFrame | LineHiddenFrame)

FRAMES: TypeAdapter[Frame] = TypeAdapter(Annotated[Frame, Field(discriminator="type")])
"""The union as pydantic reads it: the served schema, and the tests' check of what is sent."""


def serialise(frame: Frame) -> FrameBytes:
    """A frame as its bytes (orjson: serialising is most of a send's cost)."""
    return FrameBytes(orjson.dumps(frame))


def events_bytes(seq: int, events: bytes, view: bytes, clock: bytes) -> FrameBytes:
    """An `EventsFrame` whose parts are serialised already (`events`: the events' JSON
    objects joined by commas; clients.py merges them while they wait): the same bytes as
    `serialise` of the frame as a dict (tests/test_server_protocol.py reads them back)."""
    return FrameBytes(b'{"type":"events","seq":%d,"events":[%b],"view":%b,"clock":%b}' % (
        seq, events, view, clock))
