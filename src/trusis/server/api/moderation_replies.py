"""What the moderation routes answer, as types (replies.py says why TypedDicts): reports,
decisions, sanctions and their lifts, hidden lines, the audit log, staff roles, and what
a player is told of their own warnings and mute."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from trusis.server.api.replies import OPEN
from trusis.server.data.audit import AuditLine
from trusis.server.data.lookup import PlayerFacts
from trusis.server.data.sanctions import Sanction, UnseenWarning
from trusis.server.data.staff import StaffRow


@OPEN
class Named(TypedDict):
    id: str | None
    name: str | None


@OPEN
class Reporter(TypedDict):
    id: str
    name: str
    seat: int | None


@OPEN
class About(TypedDict):
    id: str | None
    name: str | None
    seat: int


@OPEN
class ModerationReport(TypedDict):
    """A report as the moderation page shows it: names, never a role (R51, D35)."""

    id: str
    table: Named
    at: float
    phase: str
    reason: str
    chat: list[dict[str, Any]]
    seats: dict[int, str]
    reporter: Reporter
    about: About
    state: str
    handled_by: str | None
    handled_at: float | None
    about_staff: NotRequired[bool]  # about a moderator or an admin: an admin decides it (D36)


@OPEN
class ReportsAnswer(TypedDict):
    reports: list[ModerationReport]


@OPEN
class DecisionAnswer(TypedDict):
    id: str
    state: str


@OPEN
class PlayersFound(TypedDict):
    players: list[PlayerFacts]


@OPEN
class PlayerRecord(TypedDict):
    player: PlayerFacts
    roles: list[str]
    reports: list[ModerationReport]
    sanctions: list[Sanction]
    muted_until: float | None
    banned: bool


@OPEN
class SanctionAnswer(TypedDict):
    id: str
    kind: str
    until: float | None


@OPEN
class LiftAnswer(TypedDict):
    id: str
    lifted: bool
    kind: str


@OPEN
class HiddenLineAnswer(TypedDict):
    """A chat line hidden or shown again (D71): where it is, its seat, and the hide's reason
    and time (for an unhide, those of the hide it undid)."""

    table: str
    place: Literal["game", "waiting"]
    number: int
    seat: int
    hidden: bool
    reason: str
    at: float


@OPEN
class AuditAnswer(TypedDict):
    log: list[AuditLine]


@OPEN
class StaffAnswer(TypedDict):
    roles: list[str]
    staff: list[StaffRow]


@OPEN
class RoleAnswer(TypedDict):
    id: str
    role: str
    held: bool
    changed: bool


@OPEN
class WarningsAnswer(TypedDict):
    warnings: list[UnseenWarning]


@OPEN
class MuteFacts(TypedDict):
    """A mute as its player reads it (the `muted` frame's fields): never who gave it."""

    id: str
    reason: str
    at: float
    until: float | None


@OPEN
class MuteAnswer(TypedDict):
    mute: MuteFacts | None  # the player's own chat mute in force, if any (D53)


@OPEN
class SeenAnswer(TypedDict):
    id: str
    seen: bool


@OPEN
class DrawAnswer(TypedDict):
    """A stuck game ended as a draw (D38): the record's length after the `draw`."""

    table: str
    status: str
    winner: str
    count: int
