"""The client data formats, typed: the `trusis-view/1` view and the events a seat reads.

A view and its events cross every layer — the engine makes them, the table numbers
them, bots, the terminal game and the server read them, clients receive them as
JSON — so their shape is written down once, here, as TypedDicts that strict mypy
checks at each of those layers. They describe plain JSON: at run time a view is a
dict (views.py), and what is shared in it is read-only (frozen.py), which the
`Sequence` and `Mapping` types below say to the type checker too.

docs/protocol.md, "The view, field by field", documents every key; a test checks
that the page and these types name the same keys. `/api/view.schema.json` serves
the JSON Schema made from them (server/protocol.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired

# typing_extensions' TypedDict: pydantic makes the JSON Schema from it on Python < 3.12.
from typing_extensions import TypedDict

PhaseKind = Literal["day", "night"]
"""The two phases (R11): a day, then a night."""

GameStatus = Literal["running", "finished"]
"""A game's status: a view's `status`."""

Audience = Literal["public", "seats", "internal"]
"""Who may read an event (events.py): everyone, the listed seats, or nobody."""


class PhaseData(TypedDict):
    kind: PhaseKind
    number: int


class PlayerData(TypedDict):
    seat: int
    name: str
    alive: bool
    passed: bool
    left: bool
    bot: bool


class HistoryEntry(TypedDict):
    phase: PhaseData
    vote_killed: int | None
    died: Sequence[int]
    revived: Sequence[int]


ChatLine = TypedDict("ChatLine", {  # "from" is a keyword: the functional form
    "phase": PhaseData, "from": int, "text": str, "to": NotRequired[int],
    "name": str, "bot": NotRequired[bool],  # its writer then (R53: the seat may change hands)
})


class LegalEntry(TypedDict):
    do: str
    targets: NotRequired[Sequence[int]]
    shown: NotRequired[Sequence[int]]
    withdraw: NotRequired[bool]


class IllusionChoice(TypedDict):
    shown: int
    target: int


class Choices(TypedDict, total=False):
    vote: int
    illusion: IllusionChoice
    protect: int
    kamikaze: int
    revive: int
    extra_vote: int
    extra_vote_today: int
    swept: bool
    foreseen: bool


class ResultEntry(TypedDict):
    phase: PhaseData
    kind: str
    target: int
    result: NotRequired[str]
    role: NotRequired[str]


class View(TypedDict):
    """`trusis-view/1`: everything one seat (or a spectator) may know now."""

    format: Literal["trusis-view/1"]
    status: GameStatus
    phase: PhaseData
    winner: str | None
    winners: Sequence[int]
    players: Sequence[PlayerData]
    composition: Mapping[str, int]
    alive: Sequence[int]
    passed: Sequence[int]
    history: Sequence[HistoryEntry]
    quiet_phases: int
    votes: Mapping[str, int]
    vote_counts: Mapping[str, int]
    bot_seats: NotRequired[Sequence[int]]
    seat: int | None
    seq: int
    chat: NotRequired[Sequence[ChatLine]]
    known: Mapping[str, str]
    legal: Sequence[LegalEntry]
    role: NotRequired[str]
    team: NotRequired[str]
    choices: NotRequired[Choices]
    results: NotRequired[Sequence[ResultEntry]]


class SeatParams(TypedDict):
    seat: int


class PassedParams(TypedDict):
    seat: int
    auto: NotRequired[bool]


class SeatsParams(TypedDict):
    seats: Sequence[int]


class VoterParams(TypedDict):
    voter: int


class VoteParams(TypedDict):
    voter: int
    target: int


class ReplacedParams(TypedDict):
    seat: int
    by: str


class SaidParams(TypedDict):
    seat: int
    text: str


class WhisperedParams(TypedDict):
    seat: int
    to: int
    text: str


class IllusionParams(TypedDict):
    shown: int
    target: int


class PowerParams(TypedDict):
    power: str


class ChoiceParams(TypedDict):
    power: str
    target: int


class ResultParams(TypedDict):
    target: int
    result: str


class RoleParams(TypedDict):
    target: int
    role: str


class NoParams(TypedDict):
    pass


class PhasesParams(TypedDict):
    phases: int


class GameOverParams(TypedDict):
    winner: str
    winners: Sequence[int]
    roles: Mapping[str, str]


EVENT_PARAMS: Mapping[str, type] = {
    "passed": PassedParams, "timed_out": SeatsParams, "left": SeatParams,
    "replaced": ReplacedParams, "returned": ReplacedParams, "said": SaidParams,
    "whispered": WhisperedParams,
    "vote_cast": VoteParams, "vote_withdrawn": VoterParams, "trusis_vote": VoteParams,
    "trusis_vote_withdrawn": VoterParams, "illusion_made": IllusionParams,
    "choice_made": ChoiceParams, "choice_withdrawn": PowerParams,
    "sweep_result": ResultParams, "gravekeeper_result": ResultParams,
    "foresee_result": RoleParams, "gravedigger_result": RoleParams,
    "vote_killed": SeatParams, "nobody_killed": NoParams, "died": SeatParams,
    "quiet_night": NoParams, "revived": SeatParams, "stalemate": PhasesParams,
    "phase_limit": PhasesParams, "operator_draw": NoParams, "game_over": GameOverParams,
    "phase_started": PhaseData,
}
"""The params of every event a seat may read, by code (internal events reach no one)."""


class EventData(TypedDict):
    """One event as a seat reads it (`Table.events_after`, the `events` frame)."""

    seq: int
    code: str
    params: Mapping[str, Any]
    t: NotRequired[float]
