"""The WebSocket protocol's messages (docs/protocol.md), as pydantic models.

Inbound frames are parsed and validated here, so a malformed one gets an
`error` naming its field and never reaches a game. Outbound messages are built
by `rooms` from the table's views and streams; their models below exist to
generate the JSON Schema served at `/api/protocol.schema.json` and to check, in
tests, that what the server sends is what this page promises.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

PROTOCOL = 1


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Hello(_In):
    """The first message of every connection: which protocol, where the client stands."""

    type: Literal["hello"]
    protocol: int
    last_seq: Annotated[int, Field(ge=0, le=10**9)] | None = None
    lang: Literal["en", "fr", "it"] = "en"


class PhaseIn(_In):
    """A phase as the client saw it (`view.phase`)."""

    kind: Literal["day", "night"]
    number: Annotated[int, Field(ge=1, le=10**6)]


class ActionIn(_In):
    """One action, as in a record but without `seat`: the connection says whose it is.
    `phase`, optional, is the phase the player chose it in: once that phase is over the
    action is refused (`phase_over`) rather than played in one the player never saw (D41)."""

    do: Annotated[str, Field(max_length=20)]
    target: Annotated[int, Field(ge=0, le=1000)] | None = None
    shown: Annotated[int, Field(ge=0, le=1000)] | None = None
    text: Annotated[str, Field(max_length=2000)] | None = None
    to: Annotated[int, Field(ge=0, le=1000)] | None = None
    phase: PhaseIn | None = None


class Act(_In):
    """A command: exactly one answer comes back, `ack` or `refused`, with this `id`."""

    type: Literal["act"]
    id: Annotated[str, Field(min_length=1, max_length=64)]
    action: ActionIn


class Ping(_In):
    type: Literal["ping"]


Inbound = Annotated[Hello | Act | Ping, Field(discriminator="type")]
_inbound: TypeAdapter[Hello | Act | Ping] = TypeAdapter(Inbound)


class BadFrame(ValueError):
    """A frame that is not a valid message; `field` names where it went wrong."""

    def __init__(self, field: str, message: str, id: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.id = id


def parse(frame: str | bytes) -> Hello | Act | Ping:
    """One inbound frame as a message, or `BadFrame` naming the field."""
    try:
        data = orjson.loads(frame)
    except orjson.JSONDecodeError:
        raise BadFrame("", "the frame is not JSON") from None
    if not isinstance(data, dict):
        raise BadFrame("", "a message is a JSON object")
    client_id = data.get("id") if isinstance(data.get("id"), str) else None
    if "type" not in data:
        raise BadFrame("type", "every message has a type", client_id)
    try:
        return _inbound.validate_python(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"] if p not in ("hello", "act", "ping"))
        if where == "action.seat":
            raise BadFrame(where, "an action names no seat: the connection gives it",
                           client_id) from None
        raise BadFrame(where or "type", first["msg"], client_id) from None


# -- outbound (for the schema and for tests) ---------------------------------


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


class Clock(_Out):
    now: float
    deadline: float | None


class EventOut(_Out):
    seq: int
    code: str
    params: dict[str, Any]


class Welcome(_Out):
    type: Literal["welcome"]
    protocol: int
    seat: int | None
    you: dict[str, Any]
    table: dict[str, Any]
    returned: bool = False  # its seat was given back just now (D26)


class Snapshot(_Out):
    type: Literal["snapshot"]
    seq: int
    view: dict[str, Any]
    clock: Clock


class Events(_Out):
    type: Literal["events"]
    seq: int
    events: list[EventOut]
    view: dict[str, Any]
    clock: Clock


class Ack(_Out):
    type: Literal["ack"]
    id: str
    seq: int


class Refused(_Out):
    type: Literal["refused"]
    id: str
    code: str
    params: dict[str, Any]
    message: str


class TableOut(_Out):
    type: Literal["table"]
    table: dict[str, Any]


class RematchOut(_Out):
    """A finished table's rematch was proposed (docs/protocol.md, "Play again")."""

    type: Literal["rematch"]
    table: str
    previous: str
    invite: str | None = None


class Error(_Out):
    type: Literal["error"]
    code: str
    field: str
    message: str


class Pong(_Out):
    type: Literal["pong"]
    now: float


Outbound = Annotated[Welcome | Snapshot | Events | Ack | Refused | TableOut | RematchOut | Error
                     | Pong, Field(discriminator="type")]
outbound: TypeAdapter[Any] = TypeAdapter(Outbound)


def schema() -> dict[str, Any]:
    """The JSON Schema of both directions, generated from the models above."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Trusis protocol {PROTOCOL}",
        "protocol": PROTOCOL,
        "client_to_server": TypeAdapter(Inbound).json_schema(),
        "server_to_client": outbound.json_schema(),
    }


def dumps(message: dict[str, Any]) -> bytes:
    """An outbound message as bytes (orjson: serialising is most of a send's cost)."""
    return orjson.dumps(message)
