"""No view leaks: canary checks of every view and every event over random games.

docs/architecture.md, "Views are allow-lists": a seat's view and the events it receives
may hold only what docs/rules.md gives that seat at that moment. Hidden facts carry
markers the scans can find: private chat texts are unique canaries, seeds are
big unique numbers, and every role fact a seat may hold is computed here from
docs/rules.md (R7, R27, R28, R35) independently of the engine's own bookkeeping.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings

from randomgames import (
    POWERS,
    Log,
    Mix,
    Step,
    Table,
    mixes,
    play,
    role_strings,
    rules_powers,
    tables,
    walk,
)
from trusis import Action, Event, GameState, IllegalAction, apply, new_game, view
from trusis.rules.roles import ROLE_IDS, TEAM_OF
from trusis.table.table import Table as LiveTable  # (randomgames' Table is a table's shape)

FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
slow = pytest.mark.skipif(not os.environ.get("TRUSIS_SLOW"), reason="set TRUSIS_SLOW=1")
# Sized for CI (it holds one worker for most of the run: 250 examples took 9 minutes on one
# 2-core machine and 32 on another, which put the whole run at 55; 120 took 7.7 minutes on
# 7 December, when the bots talk more, with the whole run at 40.5 minutes of pytest);
# TRUSIS_LEAK_EXAMPLES=500 or more runs the longer campaign.
SLOW = settings(max_examples=int(os.environ.get("TRUSIS_LEAK_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
FACTS = role_strings()

PUBLIC_CODES = frozenset({
    "vote_cast", "vote_withdrawn", "passed", "timed_out", "left", "replaced", "returned", "said",
    "vote_killed", "nobody_killed", "died", "quiet_night", "revived", "stalemate",
    "game_over", "phase_started",
})
ACTOR_CODES = frozenset({
    "illusion_made", "choice_made", "choice_withdrawn", "sweep_result", "foresee_result",
})
TRUSIS_CODES = frozenset({"trusis_vote", "trusis_vote_withdrawn"})
INTERNAL_CODES = frozenset({"tally", "night_kills", "phase_outcome"})
# The strings a seat may see in its view only if its role has that power (docs/rules.md §2).
POWER_WORDS = {"illusion": "illusion", "extra_vote": "extra_vote",
               "extra_vote_today": "extra_vote", "protect": "protect", "kamikaze": "kamikaze",
               "revive": "revive", "sweep": "sweep", "swept": "sweep", "foresee": "foresee",
               "foreseen": "foresee"}


def sweep_fact(role: str) -> str:
    return role if role in ("TRUSIS", "CASTAWAY") else "NEITHER"  # R27, D10


@dataclass
class Knowledge:
    """What each seat is entitled to know about each other seat, from docs/rules.md."""

    roles: list[str]
    allowed: list[dict[int, set[str]]] = field(default_factory=list)
    finished: bool = False

    @classmethod
    def start(cls, state: GameState) -> Knowledge:
        roles = list(state.roles)
        n = state.n
        allowed: list[dict[int, set[str]]] = [{}]
        for seat in range(1, n + 1):
            mine: dict[int, set[str]] = {seat: {roles[seat]}}
            for other in range(1, n + 1):  # R7
                if roles[seat] in ("TRUSIS", "GRAVEDIGGER") and roles[other] == "TRUSIS":
                    mine.setdefault(other, set()).add("TRUSIS")
                if roles[seat] == "GRAVEDIGGER" and roles[other] == "GRAVEDIGGER":
                    mine.setdefault(other, set()).add("GRAVEDIGGER")
            allowed.append(mine)
        return cls(roles, allowed)

    def give(self, seat: int, about: int, fact: str) -> None:
        self.allowed[seat].setdefault(about, set()).add(fact)

    def may_know(self, seat: int, about: int, fact: str) -> bool:
        if self.finished:
            return fact == self.roles[about]
        return fact in self.allowed[seat].get(about, set())

    def update(self, state: GameState, step: Step, events: list[Event],
               before: dict[str, Any]) -> None:
        """Apply R27 (sweep, foresee), R28 (Gravekeeper, Gravedigger) and R35."""
        action = step.action
        roles = self.roles
        if action.do == "sweep" and action.seat and action.target:
            self.give(action.seat, action.target, sweep_fact(roles[action.target]))
        if action.do == "foresee" and action.seat and action.target:
            self.give(action.seat, action.target, roles[action.target])
        ended = state.history[len(before["history"]):]
        alive = list(before["alive"])
        for i, entry in enumerate(ended):
            goes_on = i < len(ended) - 1 or state.running
            target = 0
            if i == 0 and entry["phase"]["kind"] == "night":
                target = self._trusis_kill(before, action, alive)
                if target:
                    assert target in entry["died"], f"R24: the Trusis target {target} lived"
            for dead in entry["died"]:
                alive[dead] = False
            for back in entry["revived"]:
                alive[back] = True
            if not goes_on:
                continue
            for seat in range(1, state.n + 1):
                if not alive[seat]:
                    continue  # R28: the dead learn nothing
                if roles[seat] == "GRAVEKEEPER" and entry["phase"]["kind"] == "day":
                    for dead in entry["died"]:
                        self.give(seat, dead, "TRUSIS" if roles[dead] == "TRUSIS"
                                  else "NOT_TRUSIS")
                if roles[seat] == "GRAVEDIGGER" and target:
                    self.give(seat, target, roles[target])
        if not state.running:
            self.finished = True

    @staticmethod
    def _trusis_kill(before: dict[str, Any], action: Action, alive: list[bool]) -> int:
        """R24/R25 from the choices standing before the phase-ending action."""
        votes = {int(k): v for k, v in before["votes"].items()}
        protects = {int(k): v for k, v in before["protects"].items()}
        seat = action.seat
        if action.do == "leave" and seat and alive[seat] and not before["passed"][seat]:
            votes.pop(seat, None)  # R52: an unpassed choice is dropped
            protects.pop(seat, None)
        counts: dict[int, int] = {}
        for voter, target in votes.items():
            if alive[voter] and alive[target]:
                counts[target] = counts.get(target, 0) + 1
        if not counts:
            return 0
        top = max(counts.values())
        best = [s for s, c in counts.items() if c == top]
        if len(best) != 1:
            return 0
        target = best[0]
        if any(t == target and alive[p] for p, t in protects.items()):
            return 0
        return target


@dataclass
class Whisper:
    text: str
    sender: int
    to: int


class LeakChecker:
    """Scans views and events of one game as it is played."""

    def __init__(self, table: Table, mix: Mix, every_seat: bool = False) -> None:
        self.table = table
        self.every_seat = every_seat  # all views at every step (else a sample)
        self.rng = random.Random(mix.rng_seed ^ 0xC0FFEE)
        self.knowledge: Knowledge | None = None
        self.whispers: list[Whisper] = []
        self.refused_texts: list[str] = []
        self.views = 0
        self.seen = [0] * (table.n + 1)  # events each seat may have seen; [0]: spectator

    # -- the observer of `randomgames.play` ---------------------------------------

    def __call__(self, state: GameState, step: Step, events: list[Event] | None,
                 before: dict[str, Any]) -> None:
        if self.knowledge is None:
            fresh = new_game(list(self.table.names), self.table.seed, self.table.custom)
            self.knowledge = Knowledge.start(fresh)
            self.check_views(fresh, range(1, fresh.n + 1))  # D12: the first view
        action = step.action
        if events is None:
            if action.do == "say" and (action.text or "").startswith("#"):
                self.refused_texts.append((action.text or "").strip()[:14])  # the canary
            return
        if action.do == "say" and action.to is not None and action.seat is not None:
            self.whispers.append(Whisper((action.text or "").strip(), action.seat, action.to))
        self.knowledge.update(state, step, events, before)
        self.check_events(state, step, events, before)
        phase_changed = len(state.history) != len(before["history"])
        if self.every_seat or phase_changed or self.rng.random() < 0.05:
            seats: Any = range(1, state.n + 1)
        else:
            seats = {s for s in (action.seat, action.to) if s}
            seats.update(self.rng.sample(range(1, state.n + 1), 2))
        self.check_views(state, seats)

    # -- views --------------------------------------------------------------------

    def check_views(self, state: GameState, seats: Any) -> None:
        self.check_view(state, None)
        for seat in seats:
            self.check_view(state, seat)

    def check_view(self, state: GameState, seat: int | None) -> None:
        assert self.knowledge is not None
        self.views += 1
        data = view(state, seat)
        text = json.dumps(data)
        who = "spectator" if seat is None else f"seat {seat}"
        # The seed, and the RNG behind it, never reach a client (docs/architecture.md).
        assert str(self.table.seed) not in text, f"{who}: the seed leaked"
        # The view's event number counts exactly the events this seat may see (R50).
        assert data["seq"] == self.seen[seat or 0], f"{who}: seq {data['seq']}"
        # (b) R50: a private message reaches only its sender and its recipient.
        for w in self.whispers:
            if (w.text in text) != (seat in (w.sender, w.to)):
                raise AssertionError(f"{who}: private message {w.text} "
                                     f"({w.sender}->{w.to}) seen={w.text in text}")
        for refused in self.refused_texts:
            assert refused not in text, f"{who}: a refused message appears"
        leaves = [(path, leaf) for path, leaf in walk(data) if isinstance(leaf, str)]
        # (a) role facts: only where docs/rules.md puts them.
        self.check_role_facts(state, seat, data, leaves)
        # (c) invisible choices and votes.
        self.check_votes(state, seat, data, leaves)

    def check_role_facts(self, state: GameState, seat: int | None, data: dict[str, Any],
                         leaves: list[tuple[tuple[Any, ...], str]]) -> None:
        assert self.knowledge is not None
        k = self.knowledge
        who = "spectator" if seat is None else f"seat {seat}"
        if seat is not None:
            assert data["role"] == state.roles[seat]
            known = {int(t): f for t, f in data["known"].items()}
            for about, fact in known.items():
                assert (about == seat and fact == state.roles[seat]) or \
                    k.may_know(seat, about, fact), f"{who} knows {about} is {fact}"
            entitled = set(range(1, state.n + 1)) if k.finished else set(k.allowed[seat])
            assert set(known) == entitled, f"{who}: known {sorted(known)} != {sorted(entitled)}"
            for result in data["results"]:
                fact = result.get("result", result.get("role"))
                assert k.may_know(seat, result["target"], fact) or k.finished, result
        elif state.running:
            assert data["known"] == {}
        for path, leaf in leaves:
            if leaf not in FACTS:
                continue
            if path[:1] == ("composition",) and path[-1] == "<key>":
                continue  # public: how many of each role (docs/record.md)
            if seat is not None and path in (("role",), ("team",)):
                continue
            if path[:1] == ("known",) and path[-1] != "<key>":
                continue  # checked above
            if seat is not None and path[:1] == ("results",):
                continue  # checked above
            if path == ("winner",) and not state.running:
                continue
            if path[:1] == ("known",) and not state.running:
                continue
            raise AssertionError(f"{who}: role fact {leaf!r} at {path}")

    def check_votes(self, state: GameState, seat: int | None, data: dict[str, Any],
                    leaves: list[tuple[tuple[Any, ...], str]]) -> None:
        who = "spectator" if seat is None else f"seat {seat}"
        votes = {int(k): v for k, v in data["votes"].items()}
        if not state.running:
            assert votes == {}
        elif state.kind == "day":  # R20/R21: the shown vote, never the real one
            expected = dict(state.votes)
            expected.update({v: shown for v, (shown, _t) in state.illusions.items()})
            assert votes == expected, who
        elif seat is not None and state.roles[seat] == "TRUSIS":  # R24
            assert votes == state.votes, who
        else:
            assert votes == {}, f"{who} sees night votes"
        role = state.roles[seat] if seat is not None else None
        mine = set()
        if role is not None:
            mine = set(rules_powers(role, "day")) | set(rules_powers(role, "night"))
        for path, leaf in leaves:
            if path[:1] == ("chat",):
                continue
            word = POWER_WORDS.get(leaf)
            if word is not None and word not in mine:
                raise AssertionError(f"{who} ({role}) sees {leaf!r} at {path}")
        if seat is not None and state.running:
            choices = data["choices"]
            if "illusion" in choices:
                shown, target = state.illusions[seat]
                assert choices["illusion"] == {"shown": shown, "target": target}
            for key, table in (("protect", state.protects), ("kamikaze", state.kamikazes),
                               ("revive", state.revives), ("extra_vote", state.extra_votes),
                               ("vote", state.votes)):
                assert choices.get(key) == table.get(seat), (who, key)

    # -- events -------------------------------------------------------------------

    def check_events(self, state: GameState, step: Step, events: list[Event],
                     before: dict[str, Any]) -> None:
        action = step.action
        roles = state.roles
        trusis = tuple(s for s in range(1, state.n + 1) if roles[s] == "TRUSIS")
        everyone = [None, *range(1, state.n + 1)]
        kind = before["kind"]
        for s in everyone:
            self.seen[s or 0] += sum(1 for e in events if e.visible_to(s))
        for event in events:
            code = event.code
            audience = event.audience
            where = f"{code} after {action.to_dict()}"
            if code in INTERNAL_CODES:
                assert audience == "internal", where
                assert not any(event.visible_to(s) for s in everyone), where
                continue
            if code in PUBLIC_CODES:
                assert audience == "public", where
                if code in ("vote_cast", "vote_withdrawn"):
                    assert kind == "day", f"R24: a night vote made public: {where}"
                if code != "game_over":  # R40: no role before the end (R35)
                    for _path, leaf in walk(event.params):
                        assert leaf not in FACTS, f"R40: {where} carries {leaf!r}"
                continue
            assert audience == "seats", f"unclassified event {where}"
            assert not event.visible_to(None), where
            for s in range(1, state.n + 1):
                assert event.visible_to(s) == (s in event.seats), where
            if code in ACTOR_CODES:
                assert event.seats == (action.seat,), where
            elif code in TRUSIS_CODES:
                assert tuple(sorted(event.seats)) == trusis, where  # R24
            elif code == "whispered":
                assert sorted(event.seats) == sorted({action.seat, action.to}), where  # R50
            elif code in ("gravekeeper_result", "gravedigger_result"):
                assert len(event.seats) == 1, where
                (seat,) = event.seats
                wanted = "GRAVEKEEPER" if code == "gravekeeper_result" else "GRAVEDIGGER"
                assert roles[seat] == wanted, where
                fact = event.params.get("result", event.params.get("role"))
                assert self.knowledge is not None
                assert fact in self.knowledge.allowed[seat].get(event.params["target"], set()), \
                    f"R28: {where} gives {event.params} to seat {seat}"
            else:
                raise AssertionError(f"unclassified private event {where}: add it here")


def _check_no_leaks(table: Table, mix: Mix, every_seat: bool = False) -> None:
    checker = LeakChecker(table, mix, every_seat)
    log: Log = play(table, mix, checker)
    note(log.describe(30))
    assert checker.views > 0


@FAST
@given(tables(), mixes())
def test_r40_r50_views_and_events_never_leak(table: Table, mix: Mix) -> None:
    """R7, R20–R28, R35, R40, R50 and docs/architecture.md: canaries in every view and event."""
    _check_no_leaks(table, mix)


@pytest.mark.slow
@slow
@SLOW
@given(tables(), mixes(max_active=20))
def test_r40_r50_views_and_events_never_leak_slow(table: Table, mix: Mix) -> None:
    _check_no_leaks(table, mix, every_seat=True)


# -- hidden actions are indistinguishable for the other seats ---------------------------


def normalised(data: dict[str, Any], with_seq: bool) -> str:
    """A view as text; without the event counter (see the seq tests below)."""
    if not with_seq:
        data = dict(data)
        data.pop("seq", None)
        data["chat"] = [{k: v for k, v in line.items() if k != "seq"} for line in data["chat"]]
    return json.dumps(data, sort_keys=True)


Pair = tuple[Action, Action | None, set[int]]


def hidden_pairs(state: GameState, rng: random.Random) -> list[Pair]:
    """(secret action, cover action or None, seats that may tell them apart)."""
    pairs: list[Pair] = []
    trusis = {s for s in range(1, state.n + 1) if state.roles[s] == "TRUSIS"}
    for seat in range(1, state.n + 1):
        if not state.alive[seat] or state.passed[seat] or state.left[seat]:
            continue
        others = [s for s in range(1, state.n + 1) if state.alive[s] and s != seat]
        dead = [s for s in range(1, state.n + 1) if not state.alive[s]]
        for power in rules_powers(state.roles[seat], state.kind):
            pool = {"protect": [*others, seat], "revive": dead}.get(power, others)
            if not pool or (power == "sweep" and seat in state.swept) or (
                    power == "foresee" and seat in state.foreseen):
                continue
            target = rng.choice(pool)
            if power == "illusion":
                shown = rng.choice(others)
                pairs.append((Action("illusion", seat, target, shown),
                              Action("vote", seat, shown), {seat}))
            elif power == "vote" and state.kind == "night":
                pairs.append((Action("vote", seat, target), None, trusis | {seat}))
            elif power != "vote":
                pairs.append((Action(power, seat, target), None, {seat}))
    present = [s for s in range(1, state.n + 1) if not state.left[s]]
    if len(present) >= 2:
        a, b = rng.sample(present, 2)
        pairs.append((Action("say", a, text="#secret#", to=b), None, {a, b}))
    return pairs


def check_indistinguishable(state: GameState, rng: random.Random, with_seq: bool) -> int:
    """Views of third parties are the same after a hidden action as after its cover."""
    checked = 0
    for secret, cover, insiders in hidden_pairs(state, rng):
        one = state.copy()
        try:
            apply(one, secret)
        except IllegalAction as err:
            raise AssertionError(f"{secret} refused: {err}") from None
        two = state.copy()
        if cover is not None:
            apply(two, cover)
        for seat in [None, *range(1, state.n + 1)]:
            if seat in insiders:
                continue
            assert normalised(view(one, seat), with_seq) == normalised(view(two, seat), with_seq), (
                f"seat {seat} can tell {secret.to_dict()} from "
                f"{cover.to_dict() if cover else 'nothing'}")
        checked += 1
    return checked


def _check_hidden(table: Table, mix: Mix) -> None:
    rng = random.Random(mix.rng_seed ^ 0xFACE)
    done = [0]

    def observer(state: GameState, step: Step, events: list[Event] | None,
                 before: dict[str, Any]) -> None:
        if done[0] < 3 and state.running and rng.random() < 0.05:
            done[0] += 1
            check_indistinguishable(state, rng, with_seq=True)

    log = play(table, mix, observer, check_refusals=False)
    note(log.describe(20))


@FAST
@given(tables(max_players=16), mixes())
def test_r21_r22_r27_r50_hidden_actions_are_invisible_to_others(table: Table, mix: Mix) -> None:
    """An illusion looks like a plain vote; protect, extra_vote, kamikaze, revive, sweep,
    foresee, a TRUSIS night vote (to non-TRUSIS) and a whisper (to third parties)
    change nothing in anyone else's view, event counter `seq` included."""
    _check_hidden(table, mix)


# -- the event counter `seq` must not be a side channel -----------------------------------
# A global event number would show every client a gap for each hidden event (a whisper,
# a protect, an illusion's private half). The engine numbers each seat's stream apart.


def _views(state: GameState, seats: list[int | None]) -> dict[int | None, str]:
    return {s: normalised(view(state, s), with_seq=True) for s in seats}


def test_r50_a_whisper_changes_no_third_party_view_not_even_seq() -> None:
    state = new_game(["Ann", "Bob", "Cid", "Dee", "Eve"],
                     deal=["HUMAN", "TRUSIS", "SWEEPER", "BUTCHER", "HUMAN"])
    before = _views(state, [None, 3, 4, 5])
    apply(state, Action("say", 1, text="psst", to=2))
    assert _views(state, [None, 3, 4, 5]) == before


def test_r21_an_illusion_looks_exactly_like_a_plain_vote_including_seq() -> None:
    deal = ["HUMAN", "HUMAN", "TRUSIS", "SWEEPER", "BUTCHER", "PRIEST", "HUMAN", "TRUSIS",
            "GRAVEKEEPER", "ILLUSIONIST"]
    names = [f"P{i}" for i in range(1, 11)]
    plain, trick = LiveTable(names, deal=deal), LiveTable(names, deal=deal)
    plain.play(Action("vote", 10, 1))
    trick.play(Action("illusion", 10, 2, 1))
    seats: list[int | None] = [None, *range(1, 10)]
    assert _views(plain.state, seats) == _views(trick.state, seats)
    # And the next events each seat receives carry the same numbers in its stream.
    starts = {s: view(plain.state, s)["seq"] for s in seats}
    plain.play(Action("pass", 1))
    trick.play(Action("pass", 1))
    for s in seats:
        assert plain.events_after(s, starts[s]) == trick.events_after(s, starts[s])


def test_r25_a_protect_changes_no_other_view_including_seq() -> None:
    deal = ["HUMAN", "HUMAN", "TRUSIS", "SWEEPER", "BUTCHER", "PRIEST"]
    state = new_game([f"P{i}" for i in range(1, 7)], deal=deal)
    apply(state, Action("timeout"))  # to Night 1
    assert state.kind == "night"
    before = _views(state, [None, 1, 2, 3, 4, 5])
    apply(state, Action("protect", 6, 1))
    assert _views(state, [None, 1, 2, 3, 4, 5]) == before


def test_team_of_every_role_is_known() -> None:
    """The leak scans rely on every role id being a fact string."""
    assert set(ROLE_IDS) <= FACTS and set(TEAM_OF) == set(ROLE_IDS)
    assert set(POWERS) >= {w for w in POWER_WORDS.values()}
