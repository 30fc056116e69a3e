"""The game state: every fact of a running game, and its JSON form.

The state is a plain mutable object (slots, lists indexed by seat, index 0
unused) because the engine is hot code: simulations play millions of actions.
It holds no clock and no random generator — after the deal, Trusis has no
chance — so serialising it and loading it back plays on identically.
"""

from __future__ import annotations

import copy
from typing import Any

from trusis.events import INTERNAL, PUBLIC, SEATS, Event
from trusis.roles import DAY

RUNNING = "running"
FINISHED = "finished"


class GameState:
    """A game in progress or finished. Change it only through `trusis.engine.apply`."""

    __slots__ = (
        "alive",
        "bots",
        "chat",
        "day_deaths",
        "digger_target",
        "extra_votes",
        "foreseen",
        "history",
        "illusions",
        "kamikazes",
        "kind",
        "known",
        "left",
        "n",
        "names",
        "number",
        "passed",
        "pending_extra",
        "protects",
        "quiet",
        "results",
        "revives",
        "roles",
        "seed",
        "seq",
        "status",
        "swept",
        "table_set",
        "trusis_seats",
        "votes",
        "waiting",
        "winner",
        "winners",
    )

    def __init__(self, names: list[str], roles: list[str], seed: int = 0,
                 table_set: dict[str, Any] | None = None) -> None:
        n = len(names)
        self.n: int = n
        self.names: list[str] = ["", *names]  # current occupant of each seat (R53)
        self.roles: list[str] = ["", *roles]
        self.seed: int = seed
        self.table_set: dict[str, Any] = table_set or {"standard": True}
        self.status: str = RUNNING
        self.kind: str = DAY
        self.number: int = 1
        self.alive: list[bool] = [False] + [True] * n
        self.passed: list[bool] = [True] + [False] * n
        self.left: list[bool] = [False] * (n + 1)
        self.waiting: int = n  # alive seats that have not passed (R12)
        # Choices of the current phase, seat -> target (R13: the last one counts).
        self.votes: dict[int, int] = {}  # day votes, or TRUSIS night votes
        self.illusions: dict[int, tuple[int, int]] = {}  # seat -> (shown, target)
        self.protects: dict[int, int] = {}
        self.kamikazes: dict[int, int] = {}
        self.revives: dict[int, int] = {}
        self.extra_votes: dict[int, int] = {}  # chosen tonight, counted tomorrow
        self.pending_extra: dict[int, int] = {}  # chosen last night, counted today
        self.swept: set[int] = set()
        self.foreseen: set[int] = set()
        # Knowledge: seat -> {seat -> most precise fact} and private results.
        self.known: list[dict[int, str]] = [{}] + [{s: roles[s - 1]} for s in range(1, n + 1)]
        self.results: list[list[dict[str, Any]]] = [[] for _ in range(n + 1)]
        # Chat: (seq, kind, number, sender, recipient or 0 for everyone, text).
        self.chat: list[tuple[int, str, int, int, int, str]] = []
        self.history: list[dict[str, Any]] = []
        self.quiet: int = 0  # phases in a row with no death and no revival (R34)
        self.winner: str | None = None
        self.winners: list[int] = []
        self.seq: int = 0  # number of the last event
        self.trusis_seats: tuple[int, ...] = tuple(
            s for s in range(1, n + 1) if roles[s - 1] == "TRUSIS"
        )
        self.bots: list[bool] = [False] * (n + 1)
        self.day_deaths: list[int] = []  # for the Gravekeepers at nightfall (R28)
        self.digger_target: int = 0  # the Trusis kill, for the Gravediggers at dawn (R28)

    # -- events -------------------------------------------------------------

    def emit(self, out: list[Event], code: str, params: dict[str, Any]) -> None:
        """Record a public event."""
        self.seq += 1
        out.append(Event(self.seq, code, params, PUBLIC))

    def tell(self, out: list[Event], seats: tuple[int, ...], code: str,
             params: dict[str, Any]) -> None:
        """Record an event for `seats` only."""
        self.seq += 1
        out.append(Event(self.seq, code, params, SEATS, seats))

    def note(self, out: list[Event], code: str, params: dict[str, Any]) -> None:
        """Record an internal event: kept for statistics, never sent to anyone."""
        self.seq += 1
        out.append(Event(self.seq, code, params, INTERNAL))

    # -- copies and JSON ----------------------------------------------------

    def copy(self) -> GameState:
        """An independent copy (for search, bots and tests)."""
        return copy.deepcopy(self)

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-able data (secrets included: server-side only)."""
        data: dict[str, Any] = {}
        for name in self.__slots__:
            value = getattr(self, name)
            if isinstance(value, set):
                value = sorted(value)
            elif isinstance(value, dict):
                value = {str(k): list(v) if isinstance(v, tuple) else v for k, v in value.items()}
            elif name == "known":
                value = [{str(k): v for k, v in d.items()} for d in value]
            elif name == "chat":
                value = [list(c) for c in value]
            elif isinstance(value, tuple):
                value = list(value)
            data[name] = value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        """Rebuild a state written by `to_dict`."""
        state = cls.__new__(cls)
        for name in cls.__slots__:
            value = data[name]
            if name in ("swept", "foreseen"):
                value = set(value)
            elif name == "illusions":
                value = {int(k): (v[0], v[1]) for k, v in value.items()}
            elif name in ("votes", "protects", "kamikazes", "revives", "extra_votes",
                          "pending_extra"):
                value = {int(k): v for k, v in value.items()}
            elif name == "known":
                value = [{int(k): v for k, v in d.items()} for d in value]
            elif name == "chat":
                value = [tuple(c) for c in value]
            elif name == "trusis_seats":
                value = tuple(value)
            elif name == "table_set" or isinstance(value, list):
                value = copy.deepcopy(value)
            setattr(state, name, value)
        return state

    # -- small queries ------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.status == RUNNING

    def alive_seats(self) -> list[int]:
        return [s for s in range(1, self.n + 1) if self.alive[s]]

    def phase(self) -> dict[str, Any]:
        return {"kind": self.kind, "number": self.number}
