"""Engine throughput: random legal games at 5, 10, 20 and 30 players.

Each seat, in seat order, picks uniformly among its concrete legal game actions
(pass included), applies it, then passes. Printed for each size: games/s and
actions/s for the engine alone, and again also building every seat's view at
every phase change (as the server will), with the ratio of the two measured
side by side in the same run. Usage: python bench/engine.py [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import time

from trusis import Action, apply, legal_actions, new_game
from trusis.rules.actions import PASS
from trusis.rules.roles import ILLUSION
from trusis.rules.state import GameState
from trusis.rules.views import all_views

NAMES = [f"P{i}" for i in range(1, 31)]


def random_choice(state: GameState, seat: int, rng: random.Random) -> Action:
    """One uniformly chosen concrete action (pass included; chat and leaving excluded).

    Relies on the documented order of `legal_actions`: powers, then pass, leave, say.
    """
    powers = legal_actions(state, seat)[:-3]
    pick = int(rng.random() * (1 + sum([len(la.targets) for la in powers])))
    if pick == 0:
        return Action(PASS, seat)
    pick -= 1
    for la in powers:
        targets = la.targets
        if pick < len(targets):
            if la.do == ILLUSION:
                shown = la.shown[int(rng.random() * len(la.shown))]
                return Action(ILLUSION, seat, targets[pick], shown)
            return Action(la.do, seat, targets[pick])
        pick -= len(targets)
    raise AssertionError("no legal action")


def play(players: int, seed: int, with_views: bool) -> int:
    """Play one random game to its end; return the number of actions applied."""
    rng = random.Random(seed)
    state = new_game(NAMES[:players], seed)
    actions = 0
    n = state.n
    while state.running:
        kind, number = state.kind, state.number
        if with_views:
            all_views(state)
        for seat in range(1, n + 1):
            if not state.alive[seat] or state.passed[seat]:
                continue
            action = random_choice(state, seat, rng)
            apply(state, action)
            actions += 1
            if action.do != PASS and state.kind == kind and state.number == number:
                apply(state, Action(PASS, seat))
                actions += 1
            if state.kind != kind or state.number != number or not state.running:
                break
    if with_views:
        all_views(state)
    return actions


def measure(players: int, with_views: bool, seconds: float) -> tuple[float, float]:
    """Games per second and actions per second over about `seconds` of play."""
    games = actions = 0
    start = time.perf_counter()
    while True:
        actions += play(players, games, with_views)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed, actions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    args = parser.parse_args()
    print(f"{'players':>7} | {'engine games/s':>14} {'actions/s':>10} | "
          f"{'+views games/s':>14} {'actions/s':>10} | {'views cost':>10}")
    for players in (5, 10, 20, 30):
        # Interleave the two modes so that machine noise hits both alike.
        alone = [measure(players, False, args.seconds / 2) for _ in range(2)]
        viewed = [measure(players, True, args.seconds / 2) for _ in range(2)]
        g1 = max(a[0] for a in alone)
        a1 = max(a[1] for a in alone)
        g2 = max(v[0] for v in viewed)
        a2 = max(v[1] for v in viewed)
        print(f"{players:>7} | {g1:>14,.0f} {a1:>10,.0f} | {g2:>14,.0f} {a2:>10,.0f} | "
              f"{g1 / g2:>9.2f}x")


if __name__ == "__main__":
    main()
