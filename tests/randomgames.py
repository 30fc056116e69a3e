"""Random legal (and illegal) Trusis games for the property-based tests.

Hypothesis draws the *shape* of a game — the table (5–30 players, the standard
set or a custom set that respects R4/R5/R6), the seed and the mix of behaviours
— and a `random.Random` seeded by Hypothesis draws the individual actions, so
that a game of several hundred actions stays cheap. Every game is driven by a
`Policy` that mixes: actions chosen from `legal_actions` (withdrawals,
illusions, revives included), passes, public and private chat, leave and
replace, timeouts, and deliberately illegal actions (dead actors, wrong roles,
self targets, dead targets, passed seats, out-of-phase powers, second sweeps…).

After `active_phases` ended phases the policy only passes, chats and times out,
so every game terminates (see `test_properties.test_r34_termination`).

`play` runs a policy against a `Game`, checks the per-step contracts every
property relies on (an action the generator meant to be legal is accepted, one
meant to be illegal is refused, a refusal changes nothing), and calls an
optional observer after every step; it returns a `Log` of the whole game.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from trusis import (
    Action,
    Event,
    Game,
    GameState,
    IllegalAction,
    SetupError,
    legal_actions,
    new_game,
)
from trusis.rules.roles import ROLE_IDS, SPECIAL_ROLE_IDS, STANDARD_LIST, TEAM_OF

POWERS: tuple[str, ...] = (
    "vote", "illusion", "protect", "extra_vote", "kamikaze", "revive", "sweep", "foresee",
)
GAME_DOS: tuple[str, ...] = (*POWERS, "pass")
# Powers each role has in each phase, written from docs/rules.md §2 (not read from the engine).
DAY_POWERS: dict[str, tuple[str, ...]] = {
    "ILLUSIONIST": ("vote", "illusion"),
    "WHITE_KNIGHT": ("vote", "revive"),
    "BLACK_KNIGHT": ("vote", "revive"),
}
NIGHT_POWERS: dict[str, tuple[str, ...]] = {
    "SWEEPER": ("sweep",),
    "PRIEST": ("protect",),
    "WISE_WOMAN": ("extra_vote",),
    "WHITE_KNIGHT": ("revive",),
    "TRUSIS": ("vote",),
    "ORACLE": ("foresee",),
    "BLACK_KNIGHT": ("revive",),
    "KAMIKAZE": ("kamikaze",),
}
SEED_BASE = 7_310_000_000_000  # seeds are big, unique numbers, so a leaked seed is findable
STEP_CAP = 6000  # a safety net: no generated game comes near it


def rules_powers(role: str, kind: str) -> tuple[str, ...]:
    """R20–R29: the powers a role has in a phase (every role votes by day)."""
    if kind == "day":
        return DAY_POWERS.get(role, ("vote",))
    return NIGHT_POWERS.get(role, ())


# -- tables ----------------------------------------------------------------------


def r5_minimum(role: str, count: int) -> float:
    """R5 written independently: the k-th copy needs min(4k+1, p_k) players."""
    if count <= 0:
        return 0
    positions = [i + 1 for i, r in enumerate(STANDARD_LIST) if r == role]
    p = positions[count - 1] if count <= len(positions) else math.inf
    return min(4 * count + 1, p)


def rules_allow_table(n: int, custom: dict[str, int] | None) -> bool:
    """R1, R4, R5 and R6 for a table of `n` players (R6 depends only on the counts)."""
    if not 5 <= n <= 30:
        return False
    if custom is None:
        deal = list(STANDARD_LIST[:n])
    else:
        if sum(custom.values()) > n:  # R4
            return False
        if any(n < r5_minimum(role, c) for role, c in custom.items()):  # R5
            return False
        deal = [r for r, c in custom.items() for _ in range(c)]
        deal += ["HUMAN"] * (n - len(deal))
    trusis = deal.count("TRUSIS")
    others = sum(1 for r in deal if TEAM_OF[r] in ("HUMAN", "CASTAWAY"))
    return trusis >= 1 and 2 * trusis <= n and others > 0  # R6


@dataclass(frozen=True)
class Table:
    """Who sits at the table and how roles are dealt."""

    names: tuple[str, ...]
    seed: int
    custom: dict[str, int] | None

    @property
    def n(self) -> int:
        return len(self.names)

    def new_state(self) -> GameState:
        return new_game(list(self.names), self.seed, self.custom)

    def new_game(self) -> Game:
        return Game(list(self.names), self.seed, self.custom)


def seat_names(n: int) -> tuple[str, ...]:
    return tuple(f"Seat{s:02d}" for s in range(1, n + 1))


@st.composite
def custom_counts(draw: st.DrawFn, n: int) -> dict[str, int]:
    """Counts of special roles for `n` players: within R5, at least one TRUSIS."""
    counts: dict[str, int] = {}
    for role in SPECIAL_ROLE_IDS:
        top = 0
        while top < 5 and r5_minimum(role, top + 1) <= n:
            top += 1
        low = 1 if role == "TRUSIS" else 0
        if top >= low:
            count = draw(st.integers(low, top) if role == "TRUSIS" else
                         st.one_of(st.just(0), st.integers(0, top)))
            if count:
                counts[role] = count
    return counts


@st.composite
def tables(draw: st.DrawFn, min_players: int = 5, max_players: int = 30) -> Table:
    """A table that can start: the standard set, or a custom set within R4/R5/R6."""
    n = draw(st.integers(min_players, max_players))
    seed = SEED_BASE + draw(st.integers(0, 10**9))
    custom = None if draw(st.booleans()) else draw(custom_counts(n))
    assume(custom is None or rules_allow_table(n, custom))
    table = Table(seat_names(n), seed, custom)
    try:
        table.new_state()
    except SetupError:  # must not happen: the test of setup checks R4–R6 agree
        assume(False)
    return table


# -- the policy ------------------------------------------------------------------


@dataclass
class Mix:
    """How a random game behaves (drawn by Hypothesis, so it shrinks)."""

    rng_seed: int
    active_phases: int  # phases in which seats take random actions; then only passes
    activity: float  # random non-pass actions per alive seat in an active phase (average)
    focus: float  # chance that a choice names the phase's favourite target (so votes kill)
    illegal: float  # share of deliberately illegal actions
    chat: float  # share of chat
    presence: float  # share of leave / replace
    timeout: float  # chance, per pass, that the timer runs out instead
    after_end: int  # actions tried after the game ended (chat, refusals)


@st.composite
def mixes(draw: st.DrawFn, max_active: int = 10) -> Mix:
    return Mix(
        rng_seed=draw(st.integers(0, 2**32 - 1)),
        active_phases=draw(st.one_of(st.integers(0, max_active), st.just(max_active))),
        activity=draw(st.sampled_from([0.0, 0.3, 0.8, 1.5])),
        focus=draw(st.sampled_from([0.0, 0.5, 0.8])),
        illegal=draw(st.sampled_from([0.0, 0.1, 0.25, 0.5])),
        chat=draw(st.sampled_from([0.0, 0.1, 0.3])),
        presence=draw(st.sampled_from([0.0, 0.02, 0.08])),
        timeout=draw(st.sampled_from([0.0, 0.02, 0.1, 0.3])),
        after_end=draw(st.integers(0, 4)),
    )


@dataclass(frozen=True)
class Step:
    """One action to try and what the generator means by it."""

    action: Action
    intent: str  # "legal" (must be accepted), "illegal" (must be refused)
    why: str = ""  # for illegal actions: which rule refuses it


class Policy:
    """Chooses the next action of a random game."""

    def __init__(self, mix: Mix) -> None:
        self.mix = mix
        self.rng = random.Random(mix.rng_seed)
        self.texts = 0
        self.phase_key: tuple[int, str, int] = (-1, "", 0)
        self.budget = 0
        self.favourite = 0
        self.after_end = mix.after_end

    def canary(self, private: bool) -> str:
        """A chat text that occurs nowhere else: a marker for the leak scans."""
        self.texts += 1
        return f"#{'w' if private else 'p'}{self.texts:05d}-{self.rng.randrange(10**6):06d}#"

    def next(self, state: GameState) -> Step | None:
        rng = self.rng
        if not state.running:
            if self.after_end <= 0:
                return None
            self.after_end -= 1
            if rng.random() < 0.5:
                return self._chat(state) or self._illegal(state)
            return self._illegal(state)
        key = (len(state.history), state.kind, state.number)
        active = len(state.history) < self.mix.active_phases
        if key != self.phase_key:
            self.phase_key = key
            mean = self.mix.activity * len(_alive(state))
            self.budget = rng.randint(0, round(2 * mean)) if active else 0
            self.favourite = rng.choice(_alive(state))
        roll = rng.random()
        if roll < self.mix.chat:
            step = self._chat(state)
            if step:
                return step
        roll = rng.random()
        if roll < self.mix.illegal:
            return self._illegal(state)
        if roll < self.mix.illegal + self.mix.presence:
            step = self._presence(state)
            if step:
                return step
        if self.budget > 0:
            self.budget -= 1
            step = self._power(state)
            if step:
                return step
        if rng.random() < self.mix.timeout:
            return Step(Action("timeout"), "legal")
        return self._pass(state)

    # -- legal steps ------------------------------------------------------------

    def _pass(self, state: GameState) -> Step:
        waiting = [s for s in range(1, state.n + 1)
                   if state.alive[s] and not state.passed[s] and not state.left[s]]
        if not waiting:  # cannot happen in a running game (R12/R52)
            return Step(Action("timeout"), "legal")
        return Step(Action("pass", self.rng.choice(waiting)), "legal")

    def _power(self, state: GameState) -> Step | None:
        rng = self.rng
        seats = [s for s in range(1, state.n + 1)
                 if state.alive[s] and not state.passed[s] and not state.left[s]]
        rng.shuffle(seats)
        for seat in seats[:4]:
            options = [la for la in legal_actions(state, seat)
                       if la.do in POWERS and (la.targets or la.withdraw)]
            if not options:
                continue
            legal = rng.choice(options)
            if legal.withdraw and (not legal.targets or rng.random() < 0.15):
                return Step(Action(legal.do, seat, None), "legal")
            target = rng.choice(legal.targets)
            if self.favourite in legal.targets and rng.random() < self.mix.focus:
                target = self.favourite
            shown = rng.choice(legal.shown) if legal.do == "illusion" else None
            return Step(Action(legal.do, seat, target, shown), "legal")
        return None

    def _chat(self, state: GameState) -> Step | None:
        rng = self.rng
        present = [s for s in range(1, state.n + 1) if not state.left[s]]
        if not present:
            return None
        seat = rng.choice(present)
        if rng.random() < 0.5:
            return Step(Action("say", seat, text=self.canary(False)), "legal")
        others = [s for s in present if s != seat]
        if not others:
            return None
        return Step(Action("say", seat, text=self.canary(True), to=rng.choice(others)), "legal")

    def _presence(self, state: GameState) -> Step | None:
        rng = self.rng
        gone = [s for s in range(1, state.n + 1) if state.left[s]]
        if gone and rng.random() < 0.5:
            by = rng.choice(["bot", None, f"Newcomer{rng.randrange(1000):03d}"])
            return Step(Action("replace", rng.choice(gone), by=by), "legal")
        here = [s for s in range(1, state.n + 1) if not state.left[s]]
        if not here:
            return None
        return Step(Action("leave", rng.choice(here)), "legal")

    # -- illegal steps ----------------------------------------------------------

    def _illegal(self, state: GameState) -> Step:
        makers = list(ILLEGAL_MAKERS)
        self.rng.shuffle(makers)
        for maker in makers:
            step = maker(self, state)
            if step is not None:  # illegal by docs/rules.md, whatever the engine lists
                return step
        return Step(Action("say", 1, text="   "), "illegal", "D9 empty message")


def _alive(state: GameState) -> list[int]:
    return [s for s in range(1, state.n + 1) if state.alive[s]]


def _dead(state: GameState) -> list[int]:
    return [s for s in range(1, state.n + 1) if not state.alive[s]]


def _actors(state: GameState) -> list[int]:
    return [s for s in range(1, state.n + 1)
            if state.alive[s] and not state.passed[s] and not state.left[s]]


def _ill_dead_actor(p: Policy, state: GameState) -> Step | None:
    dead = [s for s in _dead(state) if not state.left[s]]
    if not dead or not state.running:
        return None
    seat = p.rng.choice(dead)
    do = p.rng.choice(GAME_DOS)
    target = p.rng.choice(_alive(state) or [seat])
    return Step(Action(do, seat, target, target), "illegal", "R15 dead actor")


def _ill_wrong_role(p: Policy, state: GameState) -> Step | None:
    actors = _actors(state)
    if not actors:
        return None
    seat = p.rng.choice(actors)
    mine = rules_powers(state.roles[seat], state.kind)
    others = [d for d in POWERS if d not in mine]
    if not others:
        return None
    do = p.rng.choice(others)
    pool = [s for s in range(1, state.n + 1) if s != seat]
    target = p.rng.choice(pool)
    return Step(Action(do, seat, target, target), "illegal", "R14 wrong role or phase")


def _ill_self_target(p: Policy, state: GameState) -> Step | None:
    actors = _actors(state)
    if not actors:
        return None
    seat = p.rng.choice(actors)
    mine = [d for d in rules_powers(state.roles[seat], state.kind) if d != "protect"]
    if not mine:
        return None
    do = p.rng.choice(mine)
    shown = p.rng.choice([seat, *_alive(state)])
    return Step(Action(do, seat, seat, shown), "illegal", "R14 self target")


def _ill_dead_target(p: Policy, state: GameState) -> Step | None:
    actors = _actors(state)
    dead = _dead(state)
    if not actors or not dead:
        return None
    seat = p.rng.choice(actors)
    mine = [d for d in rules_powers(state.roles[seat], state.kind) if d != "revive"]
    if not mine:
        return None
    do = p.rng.choice(mine)
    target = p.rng.choice(dead)
    if do == "illusion" and p.rng.random() < 0.5:  # a dead shown seat, a live real target
        alive = [s for s in _alive(state) if s != seat]
        return Step(Action(do, seat, p.rng.choice(alive or [target]), target),
                    "illegal", "R14 dead shown")
    return Step(Action(do, seat, target, target), "illegal", "R14 dead target")


def _ill_revive_alive(p: Policy, state: GameState) -> Step | None:
    knights = [s for s in _actors(state) if "revive" in rules_powers(state.roles[s], state.kind)]
    if not knights:
        return None
    seat = p.rng.choice(knights)
    return Step(Action("revive", seat, p.rng.choice(_alive(state))), "illegal",
                "R14 revive an alive seat")


def _ill_passed(p: Policy, state: GameState) -> Step | None:
    passed = [s for s in _alive(state) if state.passed[s] and not state.left[s]]
    if not passed or not state.running:
        return None
    seat = p.rng.choice(passed)
    mine = rules_powers(state.roles[seat], state.kind)
    do = p.rng.choice([*mine, "pass"])
    target = p.rng.choice([s for s in _alive(state) if s != seat] or [seat])
    return Step(Action(do, seat, target, target), "illegal", "R11 seat has passed")


def _ill_second_instant(p: Policy, state: GameState) -> Step | None:
    used = [s for s in _actors(state) if s in state.swept or s in state.foreseen]
    if not used:
        return None
    seat = p.rng.choice(used)
    do = "sweep" if seat in state.swept else "foresee"
    target = p.rng.choice([s for s in _alive(state) if s != seat] or [seat])
    return Step(Action(do, seat, target), "illegal", "R13 second sweep/foresee")


def _ill_withdraw_instant(p: Policy, state: GameState) -> Step | None:
    seers = [s for s in _actors(state)
             if {"sweep", "foresee"} & set(rules_powers(state.roles[s], state.kind))]
    if not seers:
        return None
    seat = p.rng.choice(seers)
    do = rules_powers(state.roles[seat], state.kind)[0]
    return Step(Action(do, seat, None), "illegal", "D3 instant power withdrawn")


def _ill_illusion_no_shown(p: Policy, state: GameState) -> Step | None:
    ill = [s for s in _actors(state) if "illusion" in rules_powers(state.roles[s], state.kind)]
    others = _alive(state)
    if not ill:
        return None
    seat = p.rng.choice(ill)
    target = p.rng.choice([s for s in others if s != seat] or [seat])
    return Step(Action("illusion", seat, target, None), "illegal", "D4 illusion without shown")


def _ill_left_actor(p: Policy, state: GameState) -> Step | None:
    gone = [s for s in range(1, state.n + 1) if state.left[s]]
    if not gone:
        return None
    seat = p.rng.choice(gone)
    choice = p.rng.choice([*GAME_DOS, "leave", "say"])
    if choice == "say":
        return Step(Action("say", seat, text=p.canary(False)), "illegal", "D8 departed chat")
    if choice == "leave":
        return Step(Action("leave", seat), "illegal", "R52 leaving twice")
    target = p.rng.choice(_alive(state) or [seat])
    return Step(Action(choice, seat, target, target), "illegal", "R52 departed seat acts")


def _ill_chat(p: Policy, state: GameState) -> Step | None:
    present = [s for s in range(1, state.n + 1) if not state.left[s]]
    if not present:
        return None
    seat = p.rng.choice(present)
    gone = [s for s in range(1, state.n + 1) if state.left[s]]
    kind = p.rng.randrange(4)
    if kind == 0:
        return Step(Action("say", seat, text=p.canary(True), to=seat), "illegal", "D9 whisper self")
    if kind == 1 and gone:
        return Step(Action("say", seat, text=p.canary(True), to=p.rng.choice(gone)), "illegal",
                    "D8 whisper to a departed seat")
    if kind == 2:
        return Step(Action("say", seat, text=" \t "), "illegal", "D9 empty message")
    return Step(Action("say", seat, text=p.canary(False) + "x" * 500), "illegal",
                "D9 message too long")


def _ill_presence(p: Policy, state: GameState) -> Step | None:
    here = [s for s in range(1, state.n + 1) if not state.left[s]]
    if not here:
        return None
    return Step(Action("replace", p.rng.choice(here), by="bot"), "illegal",
                "R53 replacing a seat that has not left")


def _ill_after_end(p: Policy, state: GameState) -> Step | None:
    if state.running:
        return None
    do = p.rng.choice([*GAME_DOS, "leave", "timeout", "replace"])
    seat = p.rng.randint(1, state.n)
    if do == "timeout":
        return Step(Action("timeout"), "illegal", "D13 timeout after the end")
    target = p.rng.randint(1, state.n)
    return Step(Action(do, seat, target, target), "illegal", "R14 game over")


ILLEGAL_MAKERS: tuple[Callable[[Policy, GameState], Step | None], ...] = (
    _ill_dead_actor, _ill_wrong_role, _ill_self_target, _ill_dead_target, _ill_revive_alive,
    _ill_passed, _ill_second_instant, _ill_withdraw_instant, _ill_illusion_no_shown,
    _ill_left_actor, _ill_chat, _ill_presence, _ill_after_end,
)


# -- what legal_actions promises -------------------------------------------------


def listed(state: GameState, action: Action) -> bool:
    """Whether `action` (a power or pass) is one of the choices `legal_actions` offers."""
    if action.seat is None:
        return False
    for legal in legal_actions(state, action.seat):
        if legal.do != action.do:
            continue
        if legal.do in ("pass", "leave"):
            return True
        if action.target is None:
            return legal.withdraw
        if action.target not in legal.targets:
            return False
        return legal.do != "illusion" or action.shown in legal.shown
    return False


# -- playing ---------------------------------------------------------------------


@dataclass
class Outcome:
    """One tried step: its events if accepted, its refusal otherwise."""

    step: Step
    events: list[Event] | None
    error: IllegalAction | None


@dataclass
class Log:
    table: Table
    mix: Mix
    game: Game
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def state(self) -> GameState:
        return self.game.state

    def accepted(self) -> list[Action]:
        return [o.step.action for o in self.outcomes if o.events is not None]

    def events(self) -> list[Event]:
        return [e for o in self.outcomes if o.events is not None for e in o.events]

    def describe(self, last: int | None = None) -> str:
        """The steps as a short action list, for failure reports."""
        rows = self.outcomes if last is None else self.outcomes[-last:]
        lines = [f"table: n={self.table.n} seed={self.table.seed} custom={self.table.custom}",
                 f"deal: {self.game.state.roles[1:]}"]
        for o in rows:
            mark = "ok " if o.events is not None else f"REFUSED({o.error and o.error.code}) "
            lines.append(mark + json.dumps(o.step.action.to_dict()))
        return "\n".join(lines)


Observer = Callable[[GameState, Step, list[Event] | None, dict[str, Any]], None]


def play(table: Table, mix: Mix, observer: Observer | None = None,
         check_refusals: bool = True) -> Log:
    """Play a random game to its end (and a few steps after), checking per step that
    generated-legal actions are accepted, generated-illegal ones refused, and that
    a refusal changes nothing (R14). `observer(state, step, events, before)` sees
    every step; `before` is the state's `to_dict()` before the step."""
    game = table.new_game()
    log = Log(table, mix, game)
    policy = Policy(mix)
    for _ in range(STEP_CAP):
        state = game.state
        step = policy.next(state)
        if step is None:
            return log
        frozen = snapshot(state) if (check_refusals or observer) else "{}"
        before: dict[str, Any] = json.loads(frozen)
        recorded = len(game.record.actions)
        try:
            events: list[Event] | None = game.play(step.action)
            error = None
        except IllegalAction as err:
            events, error = None, err
        log.outcomes.append(Outcome(step, events, error))
        if step.intent == "legal" and error is not None:
            raise AssertionError(
                f"a legal action was refused ({error.code}: {error}):\n{log.describe(30)}")
        if step.intent == "illegal" and error is None:
            raise AssertionError(
                f"an illegal action was accepted ({step.why}):\n{log.describe(30)}")
        if error is not None and check_refusals:
            assert snapshot(state) == frozen, (
                f"R14: refusal {error.code} changed the state:\n{log.describe(30)}")
            assert len(game.record.actions) == recorded, "a refused action was recorded"
        if observer is not None:
            observer(state, step, events, before)
    raise AssertionError(f"the game did not end within {STEP_CAP} steps:\n{log.describe(40)}")


def snapshot(state: GameState) -> str:
    """`to_dict()` frozen as text: the dict itself shares lists with the live state."""
    return json.dumps(state.to_dict(), sort_keys=True)


def role_strings() -> frozenset[str]:
    """Every fact string that names something about a seat's role."""
    return frozenset(ROLE_IDS) | {"NEITHER", "NOT_TRUSIS"}


def walk(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every (path, leaf) of JSON data; dict keys are also reported as ("<key>", key).

    With an explicit stack, not nested generators: each leaf used to climb one generator a
    level, and the every-seat leak campaign spent most of CI's time there."""
    out: list[tuple[tuple[Any, ...], Any]] = []
    stack: list[tuple[tuple[Any, ...], Any]] = [(path, data)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                out.append(((*where, "<key>"), key))
                stack.append(((*where, key), value))
        elif isinstance(node, list):
            stack.extend(((*where, i), value) for i, value in enumerate(node))
        else:
            out.append((where, node))
    return out


def single_most(counts: dict[int, int]) -> int:
    """R23/R24: the one seat with strictly the most votes, else 0."""
    if not counts:
        return 0
    top = max(counts.values())
    best = [s for s, c in counts.items() if c == top]
    return best[0] if len(best) == 1 else 0


def expected_resolution(before: dict[str, Any], action: Action) -> tuple[set[int], set[int], int]:
    """R21–R30 written from docs/rules.md: the deaths, revivals and vote victim of the phase
    that `action` ends, from the choices standing in `before` (a `to_dict()`).

    Returns (died, revived, the day's vote victim or 0)."""
    alive: list[bool] = before["alive"]

    def table(name: str) -> dict[int, Any]:
        return {int(k): v for k, v in before[name].items()}

    votes, illusions = table("votes"), table("illusions")
    protects, kamikazes, revives = table("protects"), table("kamikazes"), table("revives")
    pending = table("pending_extra")
    seat = action.seat
    if action.do == "leave" and seat and alive[seat] and not before["passed"][seat]:
        for choices in (votes, illusions, protects, kamikazes, revives):  # R52
            choices.pop(seat, None)
    died: set[int] = set()
    victim = 0
    counts: dict[int, int] = {}
    if before["kind"] == "day":
        ballots = [*votes.items(), *((v, pair[1]) for v, pair in illusions.items()),
                   *pending.items()]
        for voter, target in ballots:
            if alive[voter] and alive[target]:
                counts[target] = counts.get(target, 0) + 1
        victim = single_most(counts)
        if victim:
            died.add(victim)
    else:
        for voter, target in votes.items():
            if alive[voter] and alive[target]:
                counts[target] = counts.get(target, 0) + 1
        target = single_most(counts)
        if target and not any(t == target and alive[p] for p, t in protects.items()):
            died.add(target)
        for kamikaze, target in kamikazes.items():
            if alive[kamikaze] and alive[target]:
                died.update((kamikaze, target))
    knights = {k for k in revives if alive[k]}
    revived = {t for k, t in revives.items() if alive[k] and not alive[t]}
    return died | knights, revived, victim
