"""Worlds: the role deals a seat's view allows, weighed by what it saw and heard.

The `expert` bot (trusis.bots.expert) thinks in *worlds*: complete deals of the
table's composition that agree with every fact its seat holds (its own role, R7,
sweeps, visions, graves), each weighed by how well it explains what the seat saw and
heard — the suspicion its `ListeningBeliefs` put on each seat, and the claims made at
the table (a Human power role says what it is on Day 1; a Human does not claim a role
it does not hold, a Trusis may). A world then becomes a `GameState` the engine can
play forward (`position`): the public position of the view, with the sampled roles.

Everything here reads the seat's `View` and beliefs only — never a `GameState` of the
real game — so a world holds nothing its seat could not know or guess.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from trusis.bots.weigh import INFO_ROLES, ListeningBeliefs
from trusis.rules.formats import View
from trusis.rules.frozen import thaw
from trusis.rules.roles import (
    CASTAWAY,
    GRAVEDIGGER,
    ROLES,
    TEAM_HUMAN,
    TEAM_OF,
    TEAM_TRUSIS,
    TRUSIS,
)
from trusis.rules.state import GameState

DRAWS = 48  # candidate deals drawn before weighing (cheap: a shuffle each)
LIAR_HUMAN = -3.0  # log-weight of a world where a Human claims a role it does not hold
LIAR_TRUSIS = -0.7  # ... where a Trusis-team seat does (bluffing is what they do)
SILENT_CLAIMER = -1.2  # ... where a Human power role alive on Day 1 never said what it is


def fits(fact: str, role: str) -> bool:
    """Whether `role` agrees with a fact of the seat's `known` (a role, or a verdict)."""
    if fact in ROLES:
        return fact == role
    if fact == "NEITHER":  # a sweep: neither TRUSIS nor CASTAWAY (R27)
        return role not in (TRUSIS, CASTAWAY)
    if fact == "NOT_TRUSIS":  # a grave (R28)
        return role != TRUSIS
    return True


@dataclass(frozen=True, slots=True)
class World:
    """One deal (index 0 unused, as in GameState) and its share of the belief."""

    roles: tuple[str, ...]
    weight: float


def _log(p: float) -> float:
    return math.log(min(0.999, max(0.001, p)))


def log_weight(roles: Sequence[str], beliefs: ListeningBeliefs, day1_alive: set[int]) -> float:
    """How well the deal `roles` explains what this seat saw (votes, talk) and heard
    (claims), up to a constant."""
    total = 0.0
    me = beliefs.seat
    for seat in range(1, len(roles)):
        if seat == me or seat in beliefs.known:
            continue
        p = beliefs.p_trusis(seat)
        total += _log(p) if roles[seat] == TRUSIS else _log(1.0 - p)
    claimed: set[int] = set()
    for role, who in beliefs.role_claims.items():
        for seat in who:
            if seat == me or seat >= len(roles):
                continue
            claimed.add(seat)
            held = roles[seat]
            if held != role:
                total += LIAR_TRUSIS if TEAM_OF[held] == TEAM_TRUSIS else LIAR_HUMAN
    for seat in day1_alive:  # open claims: a Human power role says what it is on Day 1
        if seat != me and seat not in claimed and roles[seat] in INFO_ROLES:
            total += SILENT_CLAIMER
    return total


def sample(view: View, beliefs: ListeningBeliefs, rng: random.Random, count: int,
           day1_alive: set[int]) -> list[World]:
    """`count` worlds drawn from the belief (importance resampling of `DRAWS` deals that
    agree with every fact), most likely first; fewer when facts leave fewer deals."""
    me = int(view["seat"] or 0)
    n = len(view["players"])
    facts: dict[int, str] = {int(s): f for s, f in view["known"].items()}
    facts[me] = str(view.get("role", ""))
    fixed = {s: f for s, f in facts.items() if f in ROLES}
    pool: list[str] = []
    for role, number in view["composition"].items():
        pool.extend([role] * number)
    for role in fixed.values():
        pool.remove(role)
    open_seats = [s for s in range(1, n + 1) if s not in fixed]
    # Seats with a verdict first, so a shuffle that breaks one is seen at once.
    open_seats.sort(key=lambda s: s not in facts)
    found: dict[tuple[str, ...], float] = {}
    for _ in range(DRAWS * 4):
        if len(found) >= DRAWS:
            break
        rng.shuffle(pool)
        if not all(fits(facts[s], r) for s, r in zip(open_seats, pool, strict=True)
                   if s in facts):
            continue
        roles = [""] * (n + 1)
        for s, r in fixed.items():
            roles[s] = r
        for s, r in zip(open_seats, pool, strict=True):
            roles[s] = r
        key = tuple(roles)
        if key not in found:
            found[key] = log_weight(roles, beliefs, day1_alive)
    if not found:
        return []
    keys = sorted(found)  # a fixed order: the same view draws the same worlds
    top = max(found.values())
    weights = [math.exp(found[k] - top) for k in keys]
    chosen = rng.choices(range(len(keys)), weights, k=count)
    counts: dict[int, int] = {}
    for i in chosen:
        counts[i] = counts.get(i, 0) + 1
    worlds = [World(keys[i], c / count) for i, c in counts.items()]
    worlds.sort(key=lambda w: (-w.weight, w.roles))
    return worlds


def marginals(worlds: Sequence[World], n: int) -> dict[int, dict[str, float]]:
    """seat -> team -> its share of the worlds (TRUSIS counted as its own team)."""
    out: dict[int, dict[str, float]] = {s: {} for s in range(1, n + 1)}
    for world in worlds:
        for seat in range(1, n + 1):
            role = world.roles[seat]
            key = TRUSIS if role == TRUSIS else TEAM_OF[role]
            out[seat][key] = out[seat].get(key, 0.0) + world.weight
    return out


def position(view: View, roles: Sequence[str]) -> GameState:
    """The view's public position with the deal `roles`: a state the engine can play
    on. What the seat cannot see of the phase (night choices of others, private
    results) is left empty, as if nobody had made those choices yet."""
    players = view["players"]
    names = [str(p["name"]) for p in players]
    state = GameState(names, list(roles[1:]))
    me = int(view["seat"] or 0)
    state.kind = view["phase"]["kind"]
    state.number = int(view["phase"]["number"])
    state.alive = [False] + [bool(p["alive"]) for p in players]
    state.left = [False] + [bool(p["left"]) for p in players]
    state.passed = [True] + [bool(p["passed"]) or not p["alive"] for p in players]
    state.waiting = sum(1 for s in range(1, state.n + 1) if not state.passed[s])
    state.quiet = int(view["quiet_phases"])
    state.history = [thaw(h) for h in view["history"]]
    state.votes = {int(k): int(v) for k, v in view["votes"].items()} \
        if state.kind == "day" or roles[me] == TRUSIS else {}
    for seat, role in enumerate(roles):  # R7
        if role == TRUSIS:
            state.known[seat].update({s: TRUSIS for s, r in enumerate(roles) if r == TRUSIS})
        elif role == GRAVEDIGGER:
            state.known[seat].update({s: r for s, r in enumerate(roles)
                                      if r in (TRUSIS, GRAVEDIGGER)})
    state.known[me].update({int(s): str(f) for s, f in view["known"].items()})
    choices: Mapping[str, object] = view.get("choices", {})
    pending = choices.get("extra_vote_today")
    if isinstance(pending, int) and pending:
        state.pending_extra = {me: pending}
    if choices.get("sweep"):
        state.swept.add(me)
    if choices.get("foresee"):
        state.foreseen.add(me)
    if state.kind == "night" and state.history:  # R28: tonight's Gravekeepers
        state.day_deaths = list(state.history[-1].get("died", []))
    state.derive()
    return state


def team_value(state: GameState, team: str) -> float:
    """How well `team` stands in `state`: a win or a loss outright, else its living
    seats against the other side's (a TRUSIS weighs most: the game turns on them)."""
    if state.winner is not None:
        return 10.0 if state.winner == team else -10.0
    value = 0.0
    for seat in state.living:
        role = state.roles[seat]
        side = TEAM_OF[role]
        worth = 2.0 if role == TRUSIS else (1.2 if role in INFO_ROLES else 1.0)
        if side == team:
            value += worth
        elif side in (TEAM_HUMAN, TEAM_TRUSIS):
            value -= worth
    return value
