"""The game state: every fact of a running game, and its JSON form.

The state is a plain mutable object (slots, lists indexed by seat, index 0
unused) because the engine is hot code: simulations play millions of actions.
It holds no clock and no random generator — after the deal, Trusis has no
chance — so serialising it and loading it back plays on identically.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from trusis.rules.events import INTERNAL, PUBLIC, SEATS, Event
from trusis.rules.formats import GameStatus, PhaseKind
from trusis.rules.frozen import FrozenDict, freeze, thaw
from trusis.rules.roles import DAY, STANDARD_LIST

# Roles listed in the order they first appear in the standard list (R2), as docs/record.md does.
COMPOSITION_ORDER: Final = tuple(dict.fromkeys(STANDARD_LIST))

RUNNING: Final = "running"
FINISHED: Final = "finished"


# Sorted roles -> composition.
_COMPOSITIONS: Final[dict[tuple[str, ...], FrozenDict[str, int]]] = {}


def _composition(roles: list[str]) -> FrozenDict[str, int]:
    """How many of each role (public, docs/record.md), in the order of R2's list.

    Shared between the games dealt the same roles, and by their views: read-only.
    """
    key = tuple(sorted(roles))
    composition = _COMPOSITIONS.get(key)
    if composition is None:
        counts = dict.fromkeys(COMPOSITION_ORDER, 0)
        for role in roles:
            counts[role] += 1
        composition = FrozenDict({r: c for r, c in counts.items() if c})
        if len(_COMPOSITIONS) >= 4096:  # custom sets are many: keep the cache bounded
            _COMPOSITIONS.clear()
        _COMPOSITIONS[key] = composition
    return composition


# The fields of a state, in the order of its JSON form (docs/record.md).
SAVED: Final = (
    # The table.
    "n", "names", "roles", "seed", "table_set", "trusis_seats", "bots", "bot_seats",
    # Where the game stands.
    "status", "kind", "number", "alive", "passed", "left", "waiting", "quiet",
    "winner", "winners", "seq", "public_count", "private_count", "history",
    # Choices of the current phase (and last night's extra votes).
    "votes", "illusions", "protects", "kamikazes", "revives", "extra_votes",
    "pending_extra", "swept", "foreseen",
    # Knowledge, results and talk.
    "known", "results", "chat", "day_deaths", "digger_target",
)
# Derived from the fields above, kept for speed, never serialised.
DERIVED: Final = (
    "living", "present", "running", "composition", "others", "recipients", "memo",
    "chat_lines", "says", "known_views", "history_lines", "player_lines",
)


class GameState:
    """A game in progress or finished. Change it only through `trusis.rules.engine.apply`."""

    __slots__ = SAVED + DERIVED

    def __init__(self, names: list[str], roles: list[str], seed: int = 0,
                 table_set: dict[str, Any] | None = None) -> None:
        n = len(names)
        self.n: int = n
        self.names: list[str] = ["", *names]  # current occupant of each seat (R53)
        self.roles: list[str] = ["", *roles]
        self.seed: int = seed
        self.table_set: dict[str, Any] = table_set or {"standard": True}
        self.status: GameStatus = RUNNING
        self.kind: PhaseKind = DAY
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
        self.known: list[dict[int, str]] = [{}, *[{s: r} for s, r in enumerate(roles, 1)]]
        # Each result a FrozenDict: views hand them out as they are (frozen.py).
        self.results: list[list[dict[str, Any]]] = [[] for _ in range(n + 1)]
        # Chat: (seq, kind, number, sender, recipient or 0 for everyone, text).
        # (seq, phase kind, phase number, sender, recipient or 0, text, the sender's name
        # then, whether a bot played the sender's seat then): a line keeps its writer (R53).
        self.chat: list[tuple[int, str, int, int, int, str, str, bool]] = []
        self.history: list[dict[str, Any]] = []
        self.quiet: int = 0  # phases in a row with no death and no revival (R34)
        self.winner: str | None = None
        self.winners: list[int] = []
        self.seq: int = 0  # number of the last event, hidden ones included (server-side only)
        self.public_count: int = 0  # public events so far
        self.private_count: list[int] = [0] * (n + 1)  # events to each seat alone or in a group
        self.trusis_seats: tuple[int, ...] = tuple(
            [s for s, r in enumerate(roles, 1) if r == "TRUSIS"]
        )
        self.bots: list[bool] = [False] * (n + 1)
        # Seats the host gave to bots before the start, as the table's seats show them to
        # everyone (D73): public, and set by the table (`Game`), never by an action.
        self.bot_seats: tuple[int, ...] = ()
        self.day_deaths: list[int] = []  # for the Gravekeepers at nightfall (R28)
        self.digger_target: int = 0  # the Trusis kill, for the Gravediggers at dawn (R28)
        # Derived fields (see derive), set directly: everyone is alive and present.
        seats = tuple(range(1, n + 1))
        self.living: tuple[int, ...] = seats
        self.present: tuple[int, ...] = seats
        self.running: bool = True
        self.composition: FrozenDict[str, int] = _composition(roles)
        self.others: dict[int, tuple[int, ...]] = {}
        self.recipients: dict[int, tuple[int, ...]] = {}
        self.memo: dict[Any, Any] = {}
        self.says: dict[int, Any] = {}  # seat -> its `say` LegalAction (legal.py)
        self.known_views: dict[int, dict[str, str]] = {}  # seat -> its view's `known` (views.py)
        # Chat as client lines (sender, recipient or 0, line), built once per message.
        self.chat_lines: list[tuple[int, int, dict[str, Any]]] = []
        # The history as client data, built once per ended phase (views.py).
        self.history_lines: list[dict[str, Any]] = []
        # Each seat's `players` entry of the views, by its values (views.py): made once.
        self.player_lines: dict[tuple[int, str, bool, bool, bool, bool], Any] = {}

    def derive(self) -> None:
        """Recompute every derived field (after construction or loading)."""
        self.chat_lines = []
        self.known_views = {}
        self.history_lines = []
        self.player_lines = {}
        self.composition = _composition(self.roles[1:])
        self.running = self.status == RUNNING
        self.derive_living()
        self.derive_present()

    def derive_living(self) -> None:
        """Recompute what depends on who is alive, after deaths or revivals."""
        alive = self.alive
        self.living = tuple([s for s in range(1, self.n + 1) if alive[s]])
        self.others = {}  # seat -> the other living seats, filled on demand
        self.memo = {}  # values derived from who is alive and present (e.g. legal actions)

    def derive_present(self) -> None:
        """Recompute what depends on who is present, after a leave or a replace."""
        left = self.left
        self.present = tuple([s for s in range(1, self.n + 1) if not left[s]])
        self.recipients = {}  # seat -> the other present seats, filled on demand
        self.says = {}
        self.memo = {}

    # -- events -------------------------------------------------------------

    def emit(self, out: list[Event], code: str, params: dict[str, Any]) -> None:
        """Record a public event."""
        self.seq += 1
        self.public_count += 1
        out.append(Event(self.seq, code, params, PUBLIC))

    def tell(self, out: list[Event], seats: tuple[int, ...], code: str,
             params: dict[str, Any]) -> None:
        """Record an event for `seats` only."""
        self.seq += 1
        private = self.private_count
        for seat in seats:
            private[seat] += 1
        out.append(Event(self.seq, code, params, SEATS, seats))

    def note(self, out: list[Event], code: str, params: dict[str, Any]) -> None:
        """Record an internal event: kept for statistics, never sent to anyone."""
        self.seq += 1
        out.append(Event(self.seq, code, params, INTERNAL))

    # -- copies and JSON ----------------------------------------------------

    def copy(self) -> GameState:
        """An independent copy (for search, bots and tests)."""
        return copy.deepcopy(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> GameState:
        # Field by field, as deepcopy would do it by itself for a plain class: a class
        # compiled by mypyc cannot be made without calling __init__.
        new = GameState([], [])
        memo[id(self)] = new
        for name in SAVED + DERIVED:
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new

    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-able data (secrets included: server-side only)."""
        data: dict[str, Any] = {}
        for name in SAVED:
            value = getattr(self, name)
            if name == "bot_seats" and not value:
                continue  # written only when set: a state of before D73 reads the same
            if isinstance(value, set):
                value = sorted(value)
            elif isinstance(value, dict):
                value = {
                    str(k): list(v) if isinstance(v, tuple) else copy.deepcopy(v)
                    for k, v in value.items()
                }
            elif name == "known":
                value = [{str(k): v for k, v in d.items()} for d in value]
            elif name == "results":
                value = [[thaw(r) for r in own] for own in value]
            elif name == "chat":
                value = [list(c) for c in value]
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, list):
                value = copy.deepcopy(value)  # a snapshot, not the live lists
            data[name] = value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameState:
        """Rebuild a state written by `to_dict`."""
        # Built through __init__ (then every field overwritten): a class compiled by
        # mypyc has no plain __new__ to call.
        state = cls(data["names"][1:], data["roles"][1:], data["seed"], data["table_set"])
        for name in SAVED:
            value = data.get(name, []) if name == "bot_seats" else data[name]
            if name in ("swept", "foreseen"):
                value = set(value)
            elif name == "illusions":
                value = {int(k): (v[0], v[1]) for k, v in value.items()}
            elif name in ("votes", "protects", "kamikazes", "revives", "extra_votes",
                          "pending_extra"):
                value = {int(k): v for k, v in value.items()}
            elif name == "known":
                value = [{int(k): v for k, v in d.items()} for d in value]
            elif name == "results":
                value = [[freeze(r) for r in own] for own in value]
            elif name == "chat":
                value = [tuple(c) for c in value]
            elif name in ("trusis_seats", "bot_seats"):
                value = tuple(value)
            elif name == "table_set" or isinstance(value, list):
                value = copy.deepcopy(value)
            setattr(state, name, value)
        state.derive()
        return state

    # -- small queries ------------------------------------------------------

    def stream_position(self, seat: int | None) -> int:
        """How many events `seat` (None: a spectator) may have seen so far."""
        if seat is None:
            return self.public_count
        return self.public_count + self.private_count[seat]

    def alive_seats(self) -> list[int]:
        return list(self.living)

    def others_of(self, seat: int) -> tuple[int, ...]:
        """The living seats other than `seat` (cached until someone dies or revives)."""
        others = self.others.get(seat)
        if others is None:
            living = self.living
            if seat in living:  # living is sorted: cut `seat` out at C speed
                i = living.index(seat)
                others = living[:i] + living[i + 1:]
            else:
                others = living
            self.others[seat] = others
        return others

    def recipients_of(self, seat: int) -> tuple[int, ...]:
        """The present seats other than `seat`: who it may whisper to (R50, D8)."""
        recipients = self.recipients.get(seat)
        if recipients is None:
            recipients = self.recipients[seat] = tuple([s for s in self.present if s != seat])
        return recipients

    def phase(self) -> dict[str, Any]:
        return {"kind": self.kind, "number": self.number}
