"""R13, R21–R26, R29, R30 against an independent reading of the rules, over random games.

Random legal actions are played; this file keeps its own record of every seat's
last choice (R13) and resolves each phase itself, then compares with the engine.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from trusis import Action, GameState, apply, concrete_actions, new_game


def single_most(counts: dict[int, int]) -> int | None:
    if not counts:
        return None
    top = max(counts.values())
    best = [s for s, c in counts.items() if c == top]
    return best[0] if len(best) == 1 else None


class Mirror:
    """The choices of the current phase, as R13 says they stand."""

    def __init__(self) -> None:
        self.choices: dict[str, dict[int, Any]] = {}
        self.extra_today: dict[int, int] = {}
        self.alive_before: list[bool] = []

    def record(self, action: Action) -> None:
        do, seat = action.do, action.seat
        assert seat is not None
        if do in ("sweep", "foresee", "pass", "say"):
            return
        key = "vote" if do == "illusion" else do
        table = self.choices.setdefault(key, {})
        if action.target is None:
            table.pop(seat, None)
        else:
            table[seat] = action.target  # for an illusion: the real, counted vote

    def drop(self, seat: int) -> None:
        """R52/D6: a seat that leaves before passing loses its choices of this phase."""
        for table in self.choices.values():
            table.pop(seat, None)

    def resolve(self, kind: str) -> dict[str, Any]:
        """The expected history entry of the phase that just ended (alive = before it)."""
        alive = self.alive_before
        votes = self.choices.get("vote", {})
        deaths: set[int] = set()
        victim = None
        counts: dict[int, int] = {}
        for target in votes.values():
            counts[target] = counts.get(target, 0) + 1
        if kind == "day":
            for wise, target in self.extra_today.items():
                if alive[wise] and alive[target]:
                    counts[target] = counts.get(target, 0) + 1
            victim = single_most(counts)
            if victim:
                deaths.add(victim)
            self.extra_today = {}
        else:
            target = single_most(counts)
            protected = target in self.choices.get("protect", {}).values()
            if target and not protected:
                deaths.add(target)
            for kamikaze, struck in self.choices.get("kamikaze", {}).items():
                deaths |= {kamikaze, struck}
            self.extra_today = dict(self.choices.get("extra_vote", {}))
        revives = self.choices.get("revive", {})
        deaths |= set(revives)
        revived = sorted(set(revives.values()))
        self.choices = {}
        return {"vote_killed": victim, "died": sorted(deaths), "revived": revived}


def random_action(rng: random.Random, state: GameState) -> Action | None:
    players = state.n
    roll = rng.random()
    if roll < 0.02:
        return Action("timeout")
    seat = rng.randint(1, players)
    if roll < 0.03:
        return Action("leave", seat) if not state.left[seat] else Action("replace", seat)
    options = [a for a in concrete_actions(state, seat) if a.do != "leave"]
    if not options:
        return None
    action = rng.choice(options)
    if action.do != "pass" and rng.random() < 0.4:
        action = Action("pass", seat)
    return action


@pytest.mark.parametrize("seed", range(80))
def test_R13_R21_R30_R52_random_phases_resolve_as_the_rules_say(seed: int) -> None:
    rng = random.Random(1000 + seed)
    players = rng.randint(5, 20)
    state = new_game([f"P{i}" for i in range(players)], seed=seed)
    mirror = Mirror()
    mirror.alive_before = list(state.alive)
    phases = 0
    for _ in range(4000):
        if not state.running:
            break
        action = random_action(rng, state)
        if action is None:
            continue
        kind = state.kind
        seat = action.seat
        if action.do == "leave" and seat is not None and state.alive[seat] \
                and not state.passed[seat]:
            mirror.drop(seat)
        before = len(state.history)
        apply(state, action)
        if action.do not in ("leave", "replace", "timeout"):
            mirror.record(action)
        for entry in state.history[before:]:
            entry = dict(entry)
            assert entry.pop("phase")["kind"] == kind
            assert entry == mirror.resolve(kind)
            alive = mirror.alive_before
            for dead in entry["died"]:
                alive[dead] = False
            for back in entry["revived"]:
                alive[back] = True
            kind = "night" if kind == "day" else "day"
            phases += 1
        assert mirror.alive_before == state.alive
    assert phases > 0
