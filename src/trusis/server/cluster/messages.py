"""Every message between processes, as a typed value with one encoder and one decoder.

Four channels carry them (bus.py): a game's owner channel (`o:<table>`: commands,
lobby requests and presence, to the process that writes the game), its table
channel (`t:<table>`: what the writer stored, the table's lobby facts and whom its
host removed from the waiting room, to the processes that follow it), each
process's reply channel (`r:<node>`: answers) and the sessions channel (revoked
tokens, and warnings to tell at once). `k` names the kind; a message that does not
decode is logged and dropped by the bus, never half-read.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from trusis.server.answers import CommandAnswer
from trusis.server.protocol import ActionIn
from trusis.server.requests import LobbyMethod, LobbyResult
from trusis.server.seat import RoomStatus, SeatKind


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Act(_Message):
    """A seat's command, forwarded to the game's writer (`owner.CommandRequest`)."""

    k: Literal["act"] = "act"
    req: str = ""
    sender: str = ""
    player: str
    seat: int | None
    client: str
    action: ActionIn
    lang: str


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
    that game (any more): the request is tried again. `answer` is a command's, `result`
    a lobby request's, with the table's facts after it."""

    k: Literal["reply"] = "reply"
    req: str
    not_owner: bool = False
    error: Failure | None = None
    answer: CommandAnswer | None = None
    result: LobbyResult = None
    table: TableFacts | None = None


class Revoked(_Message):
    """Tokens revoked on process `sender`: one sign-in's (`family`), or all of a player's
    but `keep`'s, or all; `ban`: the player's seats go too (banning.py), and the
    connections are told the ban's end (`until`) and `reason` (D53); `deleted`: an account
    deleted, whose seats go as a ban's (D53)."""

    k: Literal["revoked"] = "revoked"
    sender: str
    player: str
    family: str | None
    keep: str | None
    ban: bool = False
    until: float | None = None
    reason: str = ""
    deleted: bool = False


class Warned(_Message):
    """A moderator warned `player` on process `sender`: every process sends its connections
    of that player the `warning` frame (D53)."""

    k: Literal["warned"] = "warned"
    sender: str
    player: str
    id: str
    reason: str
    at: float


Message = Annotated[Act | Lobby | Presence | Actions | TableFacts | Removed | Reply | Revoked
                    | Warned, Field(discriminator="k")]
_MESSAGE: TypeAdapter[Message] = TypeAdapter(Message)


def encode(message: _Message) -> bytes:
    return orjson.dumps(message.model_dump(mode="json"))


def decode(data: bytes | str) -> Message:
    """The message in `data`, or a pydantic `ValidationError` naming the field."""
    return _MESSAGE.validate_json(data)
