"""The lobby's requests as values: what the game's writer is asked to do, by whom.

Every request that changes a table's seats or starts its game (`seating.py`) or
its rematch (`tables/rematch/offers.py`) is run by the one process that writes that game
(`owner.py`). Here, or forwarded to another process, it is the same value: one type
per request, with its arguments by name (`to_wire` and `from_wire` carry it to another
process and back), never a method looked up from a string.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal, assert_never

from trusis.server.data.store import Player

LobbyMethod = Literal["sit", "stand", "add_bot", "free", "program_seat", "start", "replace",
                      "claim", "return", "rematch", "rematch_accept", "rematch_decline",
                      "draw", "rename_check", "rename", "close", "remove"]

LobbyResult = int | str | tuple[int, str] | None
"""A seat number (sit, add_bot, claim, return, rematch_accept), a claim code (replace), a
table id (rematch), a seat and its token (program_seat), the record's length after an
admin's draw (draw, D38), or nothing (close, D51; remove, D34, D55; among others)."""


@dataclass(frozen=True)
class Sit:
    """`player` sits at `seat` (None: the first free one): the seat number."""

    player: Player
    seat: int | None = None
    method: ClassVar[Literal["sit"]] = "sit"


@dataclass(frozen=True)
class Stand:
    """`player` leaves their seat in the waiting room."""

    player: Player
    method: ClassVar[Literal["stand"]] = "stand"


@dataclass(frozen=True)
class AddBot:
    """The host seats a bot of `kind` at `seat` (None: the first free one)."""

    player: Player
    kind: str
    seat: int | None = None
    method: ClassVar[Literal["add_bot"]] = "add_bot"


@dataclass(frozen=True)
class Free:
    """The host frees `seat` (or lets a rematch's kept seat go, D19)."""

    player: Player
    seat: int
    method: ClassVar[Literal["free"]] = "free"


@dataclass(frozen=True)
class Remove:
    """D34, D55: the host removes the person at `seat` from the waiting room."""

    player: Player
    seat: int
    method: ClassVar[Literal["remove"]] = "remove"


@dataclass(frozen=True)
class ProgramSeat:
    """The host hands `seat` to a program called `name` (D41): the seat and its token."""

    player: Player
    seat: int | None
    name: str
    method: ClassVar[Literal["program_seat"]] = "program_seat"


@dataclass(frozen=True)
class Start:
    """The host starts the game."""

    player: Player
    method: ClassVar[Literal["start"]] = "start"


@dataclass(frozen=True)
class Replace:
    """R53: the host hands departed `seat` to a bot of `kind`, or (`by` "person") to a
    person: then the claim code."""

    player: Player
    seat: int
    by: str
    kind: str
    method: ClassVar[Literal["replace"]] = "replace"


@dataclass(frozen=True)
class Claim:
    """A person takes the departed seat a claim `code` names (R53)."""

    player: Player
    code: str
    method: ClassVar[Literal["claim"]] = "claim"


@dataclass(frozen=True)
class Return:
    """D29: the player takes their departed seat back."""

    player: Player
    method: ClassVar[Literal["return"]] = "return"


@dataclass(frozen=True)
class Draw:
    """D38: an admin ends a stuck game as a draw: the record's length after it."""

    player: Player
    method: ClassVar[Literal["draw"]] = "draw"


@dataclass(frozen=True)
class Close:
    """D51: the host closes a table that has not started."""

    player: Player
    method: ClassVar[Literal["close"]] = "close"


@dataclass(frozen=True)
class RenameCheck:
    """D46: whether `player` may be called `name` at the table (nothing changes)."""

    player: Player
    name: str
    method: ClassVar[Literal["rename_check"]] = "rename_check"


@dataclass(frozen=True)
class Rename:
    """D46: `player` is called `name` at the table from now on."""

    player: Player
    name: str
    method: ClassVar[Literal["rename"]] = "rename"


@dataclass(frozen=True)
class Rematch:
    """D19: propose the finished game's rematch: the new table's id."""

    player: Player
    method: ClassVar[Literal["rematch"]] = "rematch"


@dataclass(frozen=True)
class RematchAccept:
    """D19: take the seat the rematch keeps: the seat number."""

    player: Player
    method: ClassVar[Literal["rematch_accept"]] = "rematch_accept"


@dataclass(frozen=True)
class RematchDecline:
    """D19: not this time: the kept seat (or the seat taken) goes free."""

    player: Player
    method: ClassVar[Literal["rematch_decline"]] = "rematch_decline"


LobbyRequest = (Sit | Stand | AddBot | Free | Remove | ProgramSeat | Start | Replace | Claim
                | Return | Draw | Close | RenameCheck | Rename | Rematch | RematchAccept
                | RematchDecline)
"""One lobby request, each its own type: the writer runs it with one `match` that names
every type (`Hub.run_lobby`, `typing.assert_never`), so a new request nobody runs is a
type error, not a silent answer."""


@dataclass(frozen=True)
class Wire:
    """A request's arguments as the cluster's `Lobby` message carries them (flat, by name,
    empty when unused): what `to_wire` gives and `from_wire` reads."""

    method: LobbyMethod
    seat: int | None = None
    kind: str = ""
    by: str = ""
    name: str = ""
    code: str = ""


def to_wire(request: LobbyRequest) -> Wire:
    """The request's method and arguments, to forward it to another process."""
    match request:
        case Sit(_, seat) | Free(_, seat) | Remove(_, seat):
            return Wire(request.method, seat=seat)
        case AddBot(_, kind, seat):
            return Wire(request.method, seat=seat, kind=kind)
        case ProgramSeat(_, seat, name):
            return Wire(request.method, seat=seat, name=name)
        case Replace(_, seat, by, kind):
            return Wire(request.method, seat=seat, by=by, kind=kind)
        case Claim(_, code):
            return Wire(request.method, code=code)
        case RenameCheck(_, name) | Rename(_, name):
            return Wire(request.method, name=name)
        case Stand() | Start() | Return() | Draw() | Close() | Rematch() | RematchAccept() \
                | RematchDecline():
            return Wire(request.method)
        case _:
            assert_never(request)


def from_wire(player: Player, wire: Wire) -> LobbyRequest:
    """The request another process forwarded, as its own type again."""
    method = wire.method
    match method:
        case "sit":
            return Sit(player, wire.seat)
        case "stand":
            return Stand(player)
        case "add_bot":
            return AddBot(player, wire.kind, wire.seat)
        case "free":
            return Free(player, seat_number(wire.seat))
        case "remove":
            return Remove(player, seat_number(wire.seat))
        case "program_seat":
            return ProgramSeat(player, wire.seat, wire.name)
        case "start":
            return Start(player)
        case "replace":
            return Replace(player, seat_number(wire.seat), wire.by, wire.kind)
        case "claim":
            return Claim(player, wire.code)
        case "return":
            return Return(player)
        case "draw":
            return Draw(player)
        case "close":
            return Close(player)
        case "rename_check":
            return RenameCheck(player, wire.name)
        case "rename":
            return Rename(player, wire.name)
        case "rematch":
            return Rematch(player)
        case "rematch_accept":
            return RematchAccept(player)
        case "rematch_decline":
            return RematchDecline(player)
        case _:
            assert_never(method)


def seat_number(result: LobbyResult) -> int:
    if not isinstance(result, int):
        raise TypeError(f"a seat number was expected, not {result!r}")
    return result


def text(result: LobbyResult) -> str:
    if not isinstance(result, str):
        raise TypeError(f"a string was expected, not {result!r}")
    return result
