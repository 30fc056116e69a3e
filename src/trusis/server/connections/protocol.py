"""The WebSocket protocol's messages (docs/protocol.md), as pydantic models.

Inbound frames are parsed and validated here, so a malformed one gets an
`error` naming its field and never reaches a game. Outbound frames are the union
of frames.py, built from the table's views and streams; the JSON Schema served at
`/api/protocol.schema.json` is generated from both.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

from trusis.rules.actions import SAY, TARGETED
from trusis.rules.formats import EVENT_PARAMS, EventData, View
from trusis.rules.roles import ILLUSION
from trusis.rules.views import VIEW_FORMAT
from trusis.server.connections.frames import FRAMES, Frame

PROTOCOL = 1
LAST_SEQ_MAX = 2**63 - 1
"""The largest `last_seq` a `hello` may carry (a signed 64-bit integer, what JSON's
libraries hold as an integer): any number above the stream is answered with a snapshot
(docs/protocol.md); beyond this one the `hello` is invalid (4400). Issue 38: the bound was
10**9, which closed with 4400 where the page promised a snapshot."""


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Hello(_In):
    """The first message of every connection: which protocol, where the client stands."""

    type: Literal["hello"]
    protocol: int
    last_seq: Annotated[int, Field(ge=0, le=LAST_SEQ_MAX)] | None = None
    lang: Literal["en", "fr", "it"] = "en"


class PhaseIn(_In):
    """The phase a command was made in, as the view's `phase` said (docs/protocol.md):
    a command that arrives in another phase is refused as `stale_phase`."""

    kind: Literal["day", "night"]
    number: Annotated[int, Field(ge=1, le=10**6)]


_TARGETED: list[JsonValue] = [do for do in sorted(TARGETED)]


class ActionIn(_In):
    """One action, as in a record but without `seat`: the connection says whose it is.

    As in docs/record.md, a power's `target` must be present (`null` withdraws, R13),
    an illusion's `shown` unless it withdraws, a `say`'s `text`: `parse` checks it,
    the schema says it (`allOf` below), and the defaults only fill what is optional.
    """

    model_config = ConfigDict(json_schema_extra={"allOf": [
        {"if": {"properties": {"do": {"enum": _TARGETED}}, "required": ["do"]},
         "then": {"required": ["target"]}},
        {"if": {"properties": {"do": {"const": ILLUSION},
                               "target": {"type": "integer"}}, "required": ["do", "target"]},
         "then": {"required": ["shown"]}},
        {"if": {"properties": {"do": {"const": SAY}}, "required": ["do"]},
         "then": {"required": ["text"]}},
    ]})

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
        message = _inbound.validate_python(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"] if p not in ("hello", "act", "ping"))
        if where == "action.seat":
            raise BadFrame(where, "an action names no seat: the connection gives it",
                           client_id) from None
        raise BadFrame(where or "type", first["msg"], client_id) from None
    if isinstance(message, Act):
        missing = _missing(data["action"])
        if missing is not None:
            raise BadFrame(f"action.{missing}", f"Field required for {message.action.do!r}",
                           client_id)
    return message


def _missing(action: dict[str, Any]) -> str | None:
    """The field this action needs and lacks (docs/record.md), or None.

    pydantic's defaults cannot tell an absent `target` from `target: null`, and the
    two differ: null withdraws a choice (R13), absent is a mistake that must not."""
    do = action.get("do")
    if do in TARGETED and "target" not in action:
        return "target"
    if do == ILLUSION and action.get("target") is not None and "shown" not in action:
        return "shown"
    if do == SAY and "text" not in action:
        return "text"
    return None


# -- outbound: the frames of frames.py --------------------------------------------

outbound: TypeAdapter[Frame] = FRAMES
"""Every server-to-client frame (frames.py), for the schema and for tests."""


def schema() -> dict[str, Any]:
    """The JSON Schema of both directions, generated from the models above."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"Trusis protocol {PROTOCOL}",
        "protocol": PROTOCOL,
        "client_to_server": TypeAdapter(Inbound).json_schema(),
        "server_to_client": FRAMES.json_schema(),
    }


def view_schema() -> dict[str, Any]:
    """The JSON Schema of `trusis-view/1` and of an event, from the TypedDicts of
    rules/formats.py (served at `/api/view.schema.json`)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": VIEW_FORMAT,
        "view": TypeAdapter(View).json_schema(),
        "event": TypeAdapter(EventData).json_schema(),
        "event_params": {code: TypeAdapter(params).json_schema()
                         for code, params in sorted(EVENT_PARAMS.items())},
    }
