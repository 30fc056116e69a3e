"""The end of a phase, in the order of R30, and the start of the next one.

(1) tally and apply all the phase's deaths at once, judging every choice against
who is alive when the phase ends; (2) apply revivals; (3) check victory and the
stalemate; (4) start the next phase and deliver the automatic information (R28).
"""

from __future__ import annotations

from typing import Any

from trusis.rules.events import INTERNAL, Event
from trusis.rules.frozen import FrozenDict, FrozenList
from trusis.rules.roles import (
    DAY,
    GRAVEDIGGER,
    GRAVEKEEPER,
    NIGHT,
    ROLE_IDS,
    TRUSIS,
)
from trusis.rules.state import FINISHED, GameState
from trusis.rules.victory import DRAW, PHASE_LIMIT, STALEMATE_PHASES, winner_of, winning_seats


def single_most(counts: dict[int, int]) -> int:
    """The one seat with strictly the most votes, or 0 for a tie or no votes (R23, R24)."""
    best = 0
    top = 0
    tied = False
    for seat, count in counts.items():
        if count > top:
            best, top, tied = seat, count, False
        elif count == top:
            tied = True
    return 0 if tied else best


def learn(state: GameState, seat: int, about: int, fact: str) -> None:
    """Give `seat` a fact about `about`, keeping the most precise one (a role id wins)."""
    known = state.known[seat]
    if known.get(about) not in ROLE_IDS or fact in ROLE_IDS:
        known[about] = fact
        state.known_views.pop(seat, None)  # the view's copy is stale


def _day_deaths(state: GameState, out: list[Event]) -> tuple[set[int], int]:
    """R23 (with R21, R22): the day's tally. Returns the deaths and the vote victim."""
    alive = state.alive
    counts: dict[int, int] = {}
    get = counts.get
    for voter, target in state.votes.items():
        if alive[voter] and alive[target]:
            counts[target] = get(target, 0) + 1
    if state.illusions:
        for voter, (_shown, target) in state.illusions.items():
            if alive[voter] and alive[target]:
                counts[target] = get(target, 0) + 1
    if state.pending_extra:
        for voter, target in state.pending_extra.items():
            if alive[voter] and alive[target]:
                counts[target] = get(target, 0) + 1
    victim = single_most(counts)
    # Internal: the choice tables are handed over as they are, not copied — the
    # next phase starts with new ones, so these are never changed again.
    state.seq += 1  # state.note, inlined (hot code)
    out.append(Event(state.seq, "tally", {
        "counts": counts, "victim": victim or None, "votes": state.votes,
        "illusions": state.illusions, "extra_votes": state.pending_extra,
    }, INTERNAL))
    deaths = {victim} if victim else set()
    return deaths, victim


def _night_deaths(state: GameState, out: list[Event]) -> set[int]:
    """R24–R26: the Trusis kill unless protected, and every Kamikaze strike."""
    alive = state.alive
    counts: dict[int, int] = {}
    get = counts.get
    for voter, target in state.votes.items():
        if alive[voter] and alive[target]:
            counts[target] = get(target, 0) + 1
    target = single_most(counts)
    protects = state.protects
    protectors = sorted(
        [p for p, t in protects.items() if t == target and alive[p]]
    ) if protects else []
    deaths: set[int] = set()
    state.digger_target = 0
    if target and not protectors:
        deaths.add(target)
        state.digger_target = target
    kamikazes = state.kamikazes
    strikes = {k: t for k, t in kamikazes.items() if alive[k] and alive[t]} if kamikazes else {}
    for kamikaze, victim in strikes.items():
        deaths.add(kamikaze)
        deaths.add(victim)
    state.seq += 1  # state.note, inlined; see the tally's note on sharing
    out.append(Event(state.seq, "night_kills", {
        "trusis_votes": state.votes, "trusis_target": target or None,
        "protected_by": protectors, "protects": protects, "kamikaze": strikes,
        "extra_votes": state.extra_votes,  # the Wise Women's choices in force tonight
    }, INTERNAL))
    return deaths


def end_phase(state: GameState, out: list[Event]) -> None:
    """Resolve the current phase (R30) and start the next, looping while nobody can act."""
    while True:
        _resolve(state, out)
        if state.status == FINISHED or state.waiting > 0:
            return


def _resolve(state: GameState, out: list[Event]) -> None:
    alive = state.alive
    victim = 0
    day = state.kind == DAY
    if day:
        deaths, victim = _day_deaths(state, out)
    else:
        deaths = _night_deaths(state, out)
    revives = state.revives
    if revives:
        knights = [k for k in revives if alive[k]]
        revived = sorted({t for k, t in revives.items() if alive[k] and not alive[t]})
        deaths.update(knights)
    else:
        knights = []
        revived = []
    died = sorted(deaths)
    # Step 1: every death at once; the causes stay internal (R30, R40).
    # (state.emit, inlined: seq and public_count are counted here and stored once.)
    seq = state.seq
    public = state.public_count
    if day:
        seq += 1
        public += 1
        if victim:
            out.append(Event(seq, "vote_killed", {"seat": victim}))
        else:
            out.append(Event(seq, "nobody_killed", {}))
    causes: dict[int, list[str]] = {}
    if died:
        kamikazes = state.kamikazes
        struck = set(kamikazes.values()) if kamikazes else ()
        digger_target = 0 if day else state.digger_target
        for seat in died:
            alive[seat] = False
            seq += 1
            public += 1
            out.append(Event(seq, "died", {"seat": seat}))
            why = causes[seat] = []
            if seat == victim:
                why.append("vote")
            if seat == digger_target:
                why.append("trusis")
            if kamikazes and (seat in kamikazes or seat in struck):
                why.append("kamikaze")
            if seat in knights:
                why.append("sacrifice")
    elif not day:
        seq += 1
        public += 1
        out.append(Event(seq, "quiet_night", {}))
    # Step 2: revivals (R29).
    for seat in revived:
        alive[seat] = True
        seq += 1
        public += 1
        out.append(Event(seq, "revived", {"seat": seat}))
    state.public_count = public
    changed = bool(died or revived)
    if changed:
        state.derive_living()
        seq += 1  # state.note, inlined
        out.append(Event(seq, "phase_outcome", {
            "causes": causes,
            "revives": {k: t for k, t in revives.items() if k in knights},
        }, INTERNAL))
    state.seq = seq
    phase = {"kind": state.kind, "number": state.number}
    state.history.append({
        "phase": phase, "vote_killed": victim or None,
        "died": died, "revived": revived,
    })
    state.day_deaths = died if day else []
    state.quiet = 0 if changed else state.quiet + 1
    # Step 3: victory (R31–R33), then the stalemate (R34). With nobody dead or
    # revived the living are as before, so no condition can have become true.
    winner = winner_of(state.roles, alive) if changed else None
    if winner is None and state.quiet >= STALEMATE_PHASES:
        winner = DRAW
        state.emit(out, "stalemate", {"phases": state.quiet})
    elif winner is None and len(state.history) >= PHASE_LIMIT:
        # D15: R34 cannot end two Knights reviving each other for ever.
        winner = DRAW
        state.emit(out, "phase_limit", {"phases": len(state.history)})
    if winner is not None:
        finish(state, out, winner)
        return
    # Step 4: the next phase.
    start_next_phase(state, out)


def finish(state: GameState, out: list[Event], winner: str) -> None:
    """End the game: R35 winners, every role revealed to everyone."""
    state.status = FINISHED
    state.running = False
    state.winner = winner
    state.winners = winning_seats(state.roles, winner)
    _clear_choices(state)
    state.pending_extra = {}
    state.passed = [True] * (state.n + 1)
    state.waiting = 0
    roles = dict(enumerate(state.roles))
    del roles[0]
    # Everyone now knows every role: one dict shared by every seat, as nothing can be
    # learnt once the game is over (the JSON form and copies keep one per seat).
    state.known = [state.known[0], *[roles] * state.n]
    state.memo = {}  # views rebuild what they cached (knowledge, legal actions)
    state.known_views = {}
    state.emit(out, "game_over", {  # read-only lists and maps: every seat reads this event
        "winner": winner, "winners": FrozenList(state.winners),
        "roles": FrozenDict({str(s): r for s, r in roles.items()}),
    })


def _clear_choices(state: GameState) -> None:
    state.votes = {}
    state.illusions = {}
    state.protects = {}
    state.kamikazes = {}
    state.revives = {}
    state.swept = set()
    state.foreseen = set()


def start_next_phase(state: GameState, out: list[Event]) -> None:
    """Begin the next phase, deliver R28 information and auto-pass departed seats (R52)."""
    if state.kind == DAY:
        state.kind = NIGHT
        state.pending_extra = {}
    else:
        state.kind = DAY
        state.number += 1
        state.pending_extra = state.extra_votes
    state.extra_votes = {}
    # New tables, never cleared ones: the phase's events hold the old ones (the tally's note).
    _clear_choices(state)
    n = state.n
    state.passed = passed = [True] + [False] * n
    state.seq += 1  # state.emit, inlined
    state.public_count += 1
    out.append(Event(state.seq, "phase_started", {"kind": state.kind, "number": state.number}))
    if state.day_deaths if state.kind == NIGHT else state.digger_target:
        _deliver_information(state, out)
    living = state.living
    if len(state.present) == n:  # nobody has left: every living seat is to play
        state.waiting = len(living)
        return
    left = state.left
    waiting = 0
    auto: list[int] = []
    for seat in living:
        if left[seat]:
            passed[seat] = True
            auto.append(seat)
        else:
            waiting += 1
    state.waiting = waiting
    for seat in auto:
        state.emit(out, "passed", {"seat": seat, "auto": True})


def _deliver_information(state: GameState, out: list[Event]) -> None:
    """R28: Gravekeepers at nightfall, Gravediggers at dawn; the dead learn nothing."""
    roles = state.roles
    alive = state.alive
    phase = FrozenDict(state.phase())  # shared by every result delivered now: read-only
    if state.kind == NIGHT and state.day_deaths:
        for seat in range(1, state.n + 1):
            if roles[seat] != GRAVEKEEPER or not alive[seat]:
                continue
            for dead in state.day_deaths:
                fact = TRUSIS if roles[dead] == TRUSIS else "NOT_TRUSIS"
                _private_result(state, out, seat, "gravekeeper_result", dead, fact, phase)
    elif state.kind == DAY and state.digger_target:
        dead = state.digger_target
        for seat in range(1, state.n + 1):
            if roles[seat] == GRAVEDIGGER and alive[seat]:
                _private_result(state, out, seat, "gravedigger_result", dead, roles[dead], phase)
        state.digger_target = 0


def _private_result(state: GameState, out: list[Event], seat: int, code: str,
                    target: int, fact: str, phase: dict[str, Any]) -> None:
    """Give one seat a private fact: in its knowledge, its results, and an event."""
    learn(state, seat, target, fact)
    key = "result" if code in ("gravekeeper_result", "sweep_result") else "role"
    state.results[seat].append(  # read-only: views hand it out as it is
        FrozenDict({"phase": phase, "kind": code, "target": target, key: fact}))
    state.tell(out, (seat,), code, {"target": target, key: fact})
