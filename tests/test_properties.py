"""Property-based tests over random games: termination, determinism, serialisation,
the agreement of `legal_actions` with `apply`, and refusals that change nothing.

Games come from `randomgames`: 5–30 players, the standard set or random custom
sets within R4/R5/R6, random seeds, and random mixes of legal actions, passes,
chat, leave/replace, timeouts and illegal actions. Each test names the rule or
contract (docs/rules.md, docs/record.md) it checks.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from randomgames import (
    GAME_DOS,
    Log,
    Mix,
    Policy,
    Step,
    Table,
    expected_resolution,
    listed,
    mixes,
    play,
    role_strings,
    rules_allow_table,
    rules_powers,
    seat_names,
    snapshot,
    tables,
    walk,
)
from trusis import (
    Action,
    Event,
    GameState,
    IllegalAction,
    SetupError,
    apply,
    concrete_actions,
    legal_actions,
    new_game,
    parse_record,
    replay,
    view,
)
from trusis.rules.roles import SPECIAL_ROLE_IDS, STANDARD_LIST

FACTS = role_strings()
FAST = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
# The `slow` variants run more examples; they run only with TRUSIS_SLOW=1 (and -m slow):
# 200 each in CI (.ci/run), where the four took about 8 minutes of a worker at 400;
# TRUSIS_PROPERTY_EXAMPLES=2000 runs a longer campaign.
slow = pytest.mark.skipif(not os.environ.get("TRUSIS_SLOW"), reason="set TRUSIS_SLOW=1")
SLOW = settings(max_examples=int(os.environ.get("TRUSIS_PROPERTY_EXAMPLES", "200")),
                deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def event_rows(events: list[Event]) -> list[tuple[Any, ...]]:
    """Events as comparable data (JSON round-tripped params, audience included)."""
    return [(e.seq, e.code, json.dumps(e.params, sort_keys=True), e.audience, tuple(e.seats))
            for e in events]


# -- R1, R4–R6: which tables start -------------------------------------------------


@FAST
@given(n=st.integers(3, 32), counts=st.dictionaries(
    st.sampled_from(SPECIAL_ROLE_IDS), st.integers(0, 5), max_size=6), standard=st.booleans(),
    seed=st.integers(0, 2**40))
def test_r1_r4_r5_r6_new_game_starts_exactly_the_tables_the_rules_allow(
        n: int, counts: dict[str, int], standard: bool, seed: int) -> None:
    custom = None if standard else counts
    allowed = rules_allow_table(n, custom)
    try:
        state = new_game(seat_names(n), seed, custom)
    except SetupError as err:
        assert not allowed, f"refused an allowed table: {err}"
        assert str(err)
        return
    assert allowed, f"started a table the rules refuse: n={n} custom={custom}"
    roles = state.roles[1:]  # the deal is a permutation of the R2/R3 list
    if custom is None:
        assert sorted(roles) == sorted(STANDARD_LIST[:n])  # R2
    else:
        for role in SPECIAL_ROLE_IDS:
            assert roles.count(role) == custom.get(role, 0)  # R3
        assert roles.count("HUMAN") == n - sum(custom.values())


# -- R34: termination ----------------------------------------------------------------


def _check_termination(table: Table, mix: Mix) -> None:
    log = play(table, mix)
    state = log.state
    note(log.describe(20))
    assert not state.running, "the game must end"
    history = state.history
    # Random actions stop after `active_phases` ended phases. Then only passes and
    # timeouts: at most one more phase can kill (a Wise Woman's pending extra vote,
    # R22), then R34 ends the game after six quiet phases in a row.
    assert len(history) <= mix.active_phases + 7, (len(history), mix.active_phases)
    # R34 exactly: a draw by stalemate follows six quiet phases, and no earlier run
    # of six quiet phases exists.
    quiet = 0
    for i, entry in enumerate(history):
        quiet = 0 if entry["died"] or entry["revived"] else quiet + 1
        if i < len(history) - 1:
            assert quiet < 6, f"six quiet phases did not end the game (phase {i})"
    stalemate = any(e.code == "stalemate" for e in log.events())
    assert stalemate == (quiet >= 6 and state.winner == "DRAW")
    if stalemate:
        assert state.winners == []


@FAST
@given(tables(), mixes())
def test_r34_termination(table: Table, mix: Mix) -> None:
    _check_termination(table, mix)


@pytest.mark.slow
@slow
@SLOW
@given(tables(), mixes(max_active=20))
def test_r34_termination_slow(table: Table, mix: Mix) -> None:
    _check_termination(table, mix)


# -- R21–R30: the end of a phase ------------------------------------------------------------


def _check_resolution(table: Table, mix: Mix) -> None:
    ended: list[int] = []

    def observer(state: GameState, step: Step, events: list[Event] | None,
                 before: dict[str, Any]) -> None:
        if events is None or len(state.history) == len(before["history"]):
            return
        entry = state.history[len(before["history"])]
        died, revived, victim = expected_resolution(before, step.action)
        got = (set(entry["died"]), set(entry["revived"]), entry["vote_killed"] or 0)
        assert got == (died, revived, victim), (entry, before["kind"], step.action)
        ended.append(1)

    log = play(table, mix, observer)
    note(log.describe(30))


@FAST
@given(tables(), mixes())
def test_r21_r30_phase_resolution_matches_the_rules(table: Table, mix: Mix) -> None:
    """Tally (R21–R23), night kills (R24–R26), Knights (R29), all at once (R30)."""
    _check_resolution(table, mix)


# -- docs/record.md: replay is deterministic ------------------------------------------------


def _check_replay(table: Table, mix: Mix) -> None:
    log = play(table, mix)
    note(log.describe(20))
    exported = log.game.record.to_dict()
    assert "deal" in exported  # docs/record.md: exported records always carry the deal
    parsed = parse_record(json.loads(json.dumps(exported)))
    again = replay(parsed)
    assert again.refused == []
    assert again.state.to_dict() == log.state.to_dict()
    assert event_rows(again.events) == event_rows(log.events())
    # A record that also holds the refused actions replays to the same game, and
    # reports exactly those actions as refused, by index (docs/record.md "Refused").
    raw: list[dict[str, Any]] = []
    refused_at: list[int] = []
    for outcome in log.outcomes:
        data = outcome.step.action.to_dict()
        try:
            Action.from_dict(data, table.n)
        except ValueError:  # malformed in a record (e.g. an illusion without shown)
            continue
        if outcome.error is not None:
            refused_at.append(len(raw))
        raw.append(data)
    full = dict(exported, actions=raw)
    again = replay(parse_record(json.loads(json.dumps(full))))
    assert [r.index for r in again.refused] == refused_at
    assert again.state.to_dict() == log.state.to_dict()
    assert event_rows(again.events) == event_rows(log.events())


@FAST
@given(tables(), mixes())
def test_record_replay_is_deterministic(table: Table, mix: Mix) -> None:
    _check_replay(table, mix)


@pytest.mark.slow
@slow
@SLOW
@given(tables(), mixes())
def test_record_replay_is_deterministic_slow(table: Table, mix: Mix) -> None:
    _check_replay(table, mix)


# -- serialisation -----------------------------------------------------------------------


def _run(state: GameState, steps: list[Step]) -> list[tuple[Any, ...]]:
    """Apply steps; the outcome of each (its events, or its refusal code)."""
    out: list[tuple[Any, ...]] = []
    for step in steps:
        try:
            out.append(("ok", event_rows(apply(state, step.action))))
        except IllegalAction as err:
            out.append(("refused", err.code, err.params))
    return out


def _check_serialisation(table: Table, mix: Mix, where: float) -> None:
    log = play(table, mix, check_refusals=False)
    steps = [o.step for o in log.outcomes]
    cut = int(where * len(steps))
    note(f"cut at {cut} of {len(steps)}\n" + log.describe())
    original = table.new_state()
    _run(original, steps[:cut])
    text = json.dumps(original.to_dict())
    loaded = GameState.from_dict(json.loads(text))
    assert loaded.to_dict() == original.to_dict()
    copied = original.copy()
    rest = _run(original, steps[cut:])
    assert _run(loaded, steps[cut:]) == rest
    assert loaded.to_dict() == original.to_dict()
    assert _run(copied, steps[cut:]) == rest  # clone-then-apply equals apply
    assert copied.to_dict() == original.to_dict()
    assert original.to_dict() == log.state.to_dict()


@FAST
@given(tables(), mixes(), st.floats(0, 1))
def test_state_json_round_trip_plays_on_identically(table: Table, mix: Mix, where: float) -> None:
    _check_serialisation(table, mix, where)


@pytest.mark.slow
@slow
@SLOW
@given(tables(), mixes(), st.floats(0, 1))
def test_state_json_round_trip_plays_on_identically_slow(
        table: Table, mix: Mix, where: float) -> None:
    _check_serialisation(table, mix, where)


# -- legal_actions agrees exactly with apply ------------------------------------------


def derived_actions(state: GameState, seat: int) -> set[Action]:
    """Every concrete game action `legal_actions` offers `seat` (chat left out)."""
    out: set[Action] = set()
    for legal in legal_actions(state, seat):
        if legal.do == "say":
            continue
        if legal.do in ("pass", "leave"):
            out.add(Action(legal.do, seat))
            continue
        if legal.withdraw:
            out.add(Action(legal.do, seat, None))
        for target in legal.targets:
            if legal.do == "illusion":
                out.update(Action("illusion", seat, target, shown) for shown in legal.shown)
            else:
                out.add(Action(legal.do, seat, target))
    return out


def universe(state: GameState, seat: int, rng: random.Random) -> list[Action]:
    """Every power and pass for `seat`, against every target and None (illusion
    shown values sampled), plus leave."""
    seats: list[int | None] = [None, *range(1, state.n + 1)]
    actions = [Action(do, seat, target) for do in GAME_DOS if do != "illusion"
               for target in seats]
    pairs = [(t, s) for t in seats for s in seats]
    actions += [Action("illusion", seat, t, s) for t, s in rng.sample(pairs, min(80, len(pairs)))]
    actions.append(Action("leave", seat))
    return actions


def rules_say_legal(state: GameState, seat: int, to: int | None) -> bool:
    """R50, D8, D9: who may say what to whom (a non-empty text)."""
    if state.left[seat]:
        return False
    return to is None or (to != seat and not state.left[to])


def check_legal_agrees(state: GameState, seat: int, rng: random.Random) -> None:
    offered = derived_actions(state, seat)
    assert {a for a in concrete_actions(state, seat)} == offered
    sample = list(offered)
    rng.shuffle(sample)
    for action in sample[:12]:
        trial = state.copy()
        try:
            apply(trial, action)
        except IllegalAction as err:
            raise AssertionError(f"listed action {action} refused: {err.code} {err}") from None
    before = snapshot(state)
    for action in universe(state, seat, rng):
        if action in offered:
            continue
        if action.do == "illusion" and action.target is None and \
                Action("illusion", seat, None) in offered:
            continue  # a withdrawal: `shown` is irrelevant (R21)
        if action.do == "pass" and Action("pass", seat) in offered:
            continue  # a pass takes no target
        try:
            apply(state, action)
        except IllegalAction:
            continue
        raise AssertionError(f"unlisted action {action} was accepted")
    assert snapshot(state) == before, "a refusal changed the state"
    # Chat: legal_actions lists the recipients a seat may whisper to.
    says = [la for la in legal_actions(state, seat) if la.do == "say"]
    assert bool(says) == rules_say_legal(state, seat, None)
    for to in [None, *range(1, state.n + 1)]:
        expected = rules_say_legal(state, seat, to)
        if says and to is not None:
            assert (to in says[0].targets) == expected, (seat, to)
        if expected and rng.random() > 0.1:
            continue  # accepted chat is checked on a few copies only
        trial = state.copy() if expected else state
        try:
            apply(trial, Action("say", seat, text="hello", to=to))
            accepted = True
        except IllegalAction:
            accepted = False
        assert accepted == expected, (seat, to, accepted)
    assert snapshot(state) == before, "a refused message changed the state"


def check_legal_matches_rules(state: GameState, seat: int) -> None:
    """R11–R29 and R52, read directly from docs/rules.md: what `legal_actions` must offer."""
    offered = {la.do: la for la in legal_actions(state, seat)}
    if state.left[seat]:
        assert offered == {}
        return
    if not state.running:
        assert set(offered) == {"say"}
        return
    expected = {"leave", "say"}
    if state.alive[seat] and not state.passed[seat]:
        expected.add("pass")
        for power in rules_powers(state.roles[seat], state.kind):
            if (power == "sweep" and seat in state.swept) or (
                    power == "foresee" and seat in state.foreseen):
                continue  # R13: once a night
            expected.add(power)
    assert set(offered) == expected, (state.roles[seat], state.kind, sorted(offered))
    alive = [s for s in range(1, state.n + 1) if state.alive[s]]
    dead = [s for s in range(1, state.n + 1) if not state.alive[s]]
    others = [s for s in alive if s != seat]
    for do, la in offered.items():
        if do in ("pass", "leave", "say"):
            continue
        want = {"protect": alive, "revive": dead}.get(do, others)
        assert sorted(la.targets) == want, (do, la.targets)
        if do == "illusion":
            assert sorted(la.shown) == others
        assert la.withdraw == (do not in ("sweep", "foresee")), do  # R13, D3


def _check_legal(table: Table, mix: Mix, picks: int) -> None:
    rng = random.Random(mix.rng_seed ^ 0x5EED)
    checked: list[int] = []

    def observer(state: GameState, step: Step, events: list[Event] | None,
                 before: dict[str, Any]) -> None:
        seats = [s for s in (step.action.seat,) if s is not None]
        seats.append(rng.randint(1, state.n))
        for seat in seats:  # the cheap check against docs/rules.md: every step
            check_legal_matches_rules(state, seat)
        if len(checked) >= picks or rng.random() > 0.05:
            return
        for seat in seats:
            check_legal_agrees(state, seat, rng)
        checked.append(len(seats))

    log: Log = play(table, mix, observer)
    note(log.describe(30))


@FAST
@given(tables(), mixes())
def test_legal_actions_agree_exactly_with_apply(table: Table, mix: Mix) -> None:
    _check_legal(table, mix, picks=4)


@pytest.mark.slow
@slow
@SLOW
@given(tables(), mixes())
def test_legal_actions_agree_exactly_with_apply_slow(table: Table, mix: Mix) -> None:
    _check_legal(table, mix, picks=40)


# -- R14: refusals change nothing --------------------------------------------------------


def _check_refusals(table: Table, mix: Mix) -> None:
    """`play` checks every refusal leaves `to_dict()` unchanged and unrecorded; here
    we also check each refusal has a reason, and that the generator's illegal
    actions were indeed tried."""
    log = play(table, mix, check_refusals=True)
    note(log.describe(30))
    for outcome in log.outcomes:
        if outcome.error is not None:
            assert outcome.error.code and str(outcome.error)
            assert outcome.step.intent == "illegal"


@FAST
@given(tables(), mixes())
def test_r14_refusals_change_nothing(table: Table, mix: Mix) -> None:
    _check_refusals(table, mix)


@FAST
@given(tables(max_players=12), st.integers(0, 2**32 - 1), st.integers(0, 40))
def test_r14_any_action_refused_changes_nothing(table: Table, rng_seed: int, steps: int) -> None:
    """Fire arbitrary well-formed actions (any do, any seat, any target) at a game;
    each is accepted or refused, and a refusal leaves the state byte-identical."""
    rng = random.Random(rng_seed)
    state = table.new_state()
    seats: list[int | None] = [None, *range(1, table.n + 1)]
    dos = [*GAME_DOS, "leave", "replace", "timeout", "say"]
    for _ in range(steps * 10):
        do = rng.choice(dos)
        action = Action(do, rng.randint(1, table.n), rng.choice(seats), rng.choice(seats),
                        rng.choice(["hi", "", "x" * 501]), rng.choice(seats))
        before = snapshot(state)
        was_listed = do in GAME_DOS and listed(state, action)
        try:
            apply(state, action)
        except IllegalAction:
            assert snapshot(state) == before, action
            assert not was_listed, f"listed action refused: {action}"


def test_to_dict_is_a_snapshot() -> None:
    """A dict taken by `to_dict()` must not change with the state afterwards; otherwise
    every "refusal leaves to_dict() unchanged" check made that way is vacuous."""
    state = new_game(seat_names(5), deal=["HUMAN", "TRUSIS", "SWEEPER", "BUTCHER", "HUMAN"])
    taken = state.to_dict()
    frozen = json.dumps(taken, sort_keys=True)
    apply(state, Action("leave", 1))
    assert json.dumps(taken, sort_keys=True) == frozen


# -- the same contracts, as a Hypothesis state machine (shrinks to short action lists) ----


class TrusisMachine(RuleBasedStateMachine):
    """Mixed action sequences, each rule one kind of step; every accepted or refused
    step is checked (R14), and `legal_actions` is checked against docs/rules.md after each."""

    def __init__(self) -> None:
        super().__init__()
        self.state: GameState | None = None
        self.policy: Policy | None = None

    @initialize(table=tables(max_players=14), seed=st.integers(0, 2**32 - 1))
    def start(self, table: Table, seed: int) -> None:
        self.state = table.new_state()
        self.policy = Policy(Mix(seed, 1000, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0))

    def _try(self, step: Step | None) -> None:
        if step is None or self.state is None:
            return
        state = self.state
        before = snapshot(state)
        note(f"step: {step.action.to_dict()} ({step.intent} {step.why})")
        try:
            apply(state, step.action)
        except IllegalAction as err:
            assert snapshot(state) == before, f"R14: refusal {err.code} changed the state"
            assert step.intent != "legal", f"legal step refused: {err.code} {err}"
            return
        assert step.intent != "illegal", f"illegal step accepted ({step.why})"

    def _policy(self, rng: random.Random) -> tuple[GameState, Policy]:
        assert self.state is not None and self.policy is not None
        self.policy.rng = rng
        return self.state, self.policy

    @rule(rng=st.randoms(use_true_random=False))
    def power(self, rng: random.Random) -> None:
        state, policy = self._policy(rng)
        if state.running:
            self._try(policy._power(state))

    @rule(rng=st.randoms(use_true_random=False))
    def pass_(self, rng: random.Random) -> None:
        state, policy = self._policy(rng)
        if state.running:
            self._try(policy._pass(state))

    @rule(rng=st.randoms(use_true_random=False))
    def chat(self, rng: random.Random) -> None:
        state, policy = self._policy(rng)
        self._try(policy._chat(state))

    @rule(rng=st.randoms(use_true_random=False))
    def presence(self, rng: random.Random) -> None:
        state, policy = self._policy(rng)
        if state.running:
            self._try(policy._presence(state))

    @rule()
    def timeout(self) -> None:
        assert self.state is not None
        self._try(Step(Action("timeout"), "legal" if self.state.running else "illegal"))

    @rule(rng=st.randoms(use_true_random=False))
    def illegal(self, rng: random.Random) -> None:
        state, policy = self._policy(rng)
        self._try(policy._illegal(state))

    @invariant()
    def legal_actions_follow_the_rules(self) -> None:
        if self.state is not None:
            for seat in range(1, self.state.n + 1):
                check_legal_matches_rules(self.state, seat)

    @invariant()
    def spectators_learn_no_role(self) -> None:
        if self.state is not None and self.state.running:
            data = view(self.state, None)
            assert data["known"] == {}
            for path, leaf in walk(data):
                assert leaf not in FACTS or path[:1] == ("composition",), (path, leaf)


TrusisMachine.TestCase.settings = settings(
    max_examples=25, stateful_step_count=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
test_state_machine_mixed_actions = TrusisMachine.TestCase
