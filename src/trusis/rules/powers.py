"""The game powers (R13–R29) and the checks every game action shares (R14).

`engine.apply` hands each power's action to its handler here; each handler checks
the action (raising `IllegalAction` with a reason a player understands, the state
untouched) before it changes anything, and appends the events it makes to `out`.
"""

from __future__ import annotations

from typing import Final

from trusis.rules.actions import Action
from trusis.rules.errors import IllegalAction
from trusis.rules.events import SEATS, Event
from trusis.rules.frozen import FrozenDict
from trusis.rules.resolution import learn
from trusis.rules.roles import (
    CASTAWAY,
    DAY,
    EXTRA_VOTE,
    FORESEE,
    ILLUSION,
    KAMIKAZE_STRIKE,
    POWER_HOLDERS,
    POWERS_BY_PHASE,
    PROTECT,
    REVIVE,
    SWEEP,
    TRUSIS,
    VOTE,
)
from trusis.rules.state import GameState

# -- checks shared by every game action ------------------------------------


# Seats, targets and `to` must be plain ints: `type(x) is int` is the cheapest check
# and refuses True (an int to Python, which would act as seat 1), floats, str, bytes...


def check_seat(state: GameState, seat: int | None, key: str = "seat") -> int:
    if type(seat) is not int or not 1 <= seat <= state.n:
        raise IllegalAction("no_such_seat", number=seat)
    return seat


def check_actor(state: GameState, seat: int | None) -> int:
    """R14: the game runs, the seat exists, is present, alive and has not passed."""
    if (
        state.running and type(seat) is int and 0 < seat <= state.n
        and state.alive[seat] and not state.passed[seat] and not state.left[seat]
    ):
        return seat  # the common case, checked in one go
    if not state.running:
        raise IllegalAction("game_over")
    s = check_seat(state, seat)
    if state.left[s]:
        raise IllegalAction("actor_left", seat=s)
    if not state.alive[s]:
        raise IllegalAction("actor_dead", seat=s)
    if state.passed[s]:
        raise IllegalAction("already_passed", seat=s)
    return s


def check_power(state: GameState, seat: int, power: str) -> None:
    """The seat's role holds `power` in the current phase (R20–R29)."""
    role = state.roles[seat]
    if power in POWERS_BY_PHASE[(role, state.kind)]:
        return
    if power == VOTE:
        raise IllegalAction("night_vote_not_trusis")
    holders = POWER_HOLDERS[power]
    if role in holders:
        raise IllegalAction(f"wrong_phase_{state.kind}", power=power)
    raise IllegalAction("wrong_role", power=power, holders=list(holders))


def check_target(state: GameState, seat: int, power: str, target: int,
                  key: str = "target") -> None:
    """R14: alive and not oneself — except `protect` (self allowed) and `revive` (dead)."""
    if type(target) is not int or not 1 <= target <= state.n:
        raise IllegalAction("no_such_seat", number=target)
    if power == REVIVE:
        if state.alive[target]:
            raise IllegalAction("target_alive", target=target)
        return
    if not state.alive[target]:
        raise IllegalAction(f"{key}_dead", **{key: target})
    if target == seat and power != PROTECT:
        raise IllegalAction(f"{key}_self", power=power)


# -- game actions ------------------------------------------------------------


CHOICES: Final[dict[str, str]] = {
    PROTECT: "protects", EXTRA_VOTE: "extra_votes", KAMIKAZE_STRIKE: "kamikazes",
    REVIVE: "revives",
}


def vote(state: GameState, action: Action, out: list[Event]) -> None:
    seat = action.seat
    if not (  # check_actor's common case, inlined
        state.running and type(seat) is int and 0 < seat <= state.n
        and state.alive[seat] and not state.passed[seat] and not state.left[seat]
    ):
        seat = check_actor(state, seat)
    day = state.kind == DAY
    if not day and state.roles[seat] != TRUSIS:
        check_power(state, seat, VOTE)  # R20, R24: everyone by day, the TRUSIS by night
    target = action.target
    if target is not None and not (
        type(target) is int and 0 < target <= state.n and state.alive[target] and target != seat
    ):
        check_target(state, seat, VOTE, target)  # raises with the precise reason
    if day:
        had = state.votes.pop(seat, None) or state.illusions.pop(seat, None)
        if target is None:
            if had is not None:
                state.emit(out, "vote_withdrawn", {"voter": seat})
            return
        state.votes[seat] = target
        state.seq += 1  # state.emit, inlined
        state.public_count += 1
        out.append(Event(state.seq, "vote_cast", {"voter": seat, "target": target}))
    else:  # R24: the TRUSIS kill vote, seen by every TRUSIS
        if target is None:
            if state.votes.pop(seat, None) is not None:
                state.tell(out, state.trusis_seats, "trusis_vote_withdrawn", {"voter": seat})
            return
        state.votes[seat] = target
        state.tell(out, state.trusis_seats, "trusis_vote", {"voter": seat, "target": target})


def illusion(state: GameState, action: Action, out: list[Event]) -> None:
    """R21: a counted invisible vote for `target`, shown publicly as a vote for `shown`."""
    seat = check_actor(state, action.seat)
    check_power(state, seat, ILLUSION)
    target, shown = action.target, action.shown
    if target is None:
        if state.votes.pop(seat, None) or state.illusions.pop(seat, None):
            state.emit(out, "vote_withdrawn", {"voter": seat})
        return
    if shown is None:
        raise IllegalAction("missing_shown")
    check_target(state, seat, ILLUSION, target)
    check_target(state, seat, ILLUSION, shown, "shown")
    state.votes.pop(seat, None)
    state.illusions[seat] = (shown, target)
    state.emit(out, "vote_cast", {"voter": seat, "target": shown})
    state.tell(out, (seat,), "illusion_made", {"shown": shown, "target": target})


def choice(state: GameState, action: Action, out: list[Event]) -> None:
    """R13: protect, extra_vote, kamikaze and revive — private until the phase ends."""
    power = action.do
    seat = action.seat
    if not (  # check_actor's common case, inlined
        state.running and type(seat) is int and 0 < seat <= state.n
        and state.alive[seat] and not state.passed[seat] and not state.left[seat]
    ):
        seat = check_actor(state, seat)
    if power not in POWERS_BY_PHASE[(state.roles[seat], state.kind)]:
        check_power(state, seat, power)  # raises with the precise reason
    choices: dict[int, int] = getattr(state, CHOICES[power])
    target = action.target
    if target is None:
        if choices.pop(seat, None) is not None:
            state.tell(out, (seat,), "choice_withdrawn", {"power": power})
        return
    check_target(state, seat, power, target)
    choices[seat] = target
    state.seq += 1  # state.tell, inlined
    state.private_count[seat] += 1
    out.append(Event(state.seq, "choice_made", {"power": power, "target": target}, SEATS,
                     (seat,)))


def _instant(state: GameState, action: Action, power: str, used: set[int],
             already: str) -> tuple[int, int]:
    """R13, R27: the checks of a power answered at once: final, once a night, no withdrawal.
    Returns the seat and its target; marks the power used for tonight."""
    seat = check_actor(state, action.seat)
    check_power(state, seat, power)
    if seat in used:
        raise IllegalAction(already)
    target = action.target
    if target is None:
        raise IllegalAction("cannot_withdraw", power=power)
    check_target(state, seat, power, target)
    used.add(seat)
    return seat, target


def sweep(state: GameState, action: Action, out: list[Event]) -> None:
    """R27: TRUSIS, CASTAWAY or NEITHER, at once and once a night."""
    seat, target = _instant(state, action, SWEEP, state.swept, "already_swept")
    role = state.roles[target]
    fact = role if role in (TRUSIS, CASTAWAY) else "NEITHER"
    _result(state, out, seat, "sweep_result", target, "result", fact)


def foresee(state: GameState, action: Action, out: list[Event]) -> None:
    """R27: the exact role, at once and once a night."""
    seat, target = _instant(state, action, FORESEE, state.foreseen, "already_foreseen")
    _result(state, out, seat, "foresee_result", target, "role", state.roles[target])


def _result(state: GameState, out: list[Event], seat: int, code: str, target: int,
            key: str, fact: str) -> None:
    learn(state, seat, target, fact)
    state.results[seat].append(FrozenDict(  # read-only: views hand it out as it is
        {"phase": FrozenDict(state.phase()), "kind": code, "target": target, key: fact}
    ))
    state.tell(out, (seat,), code, {"target": target, key: fact})
