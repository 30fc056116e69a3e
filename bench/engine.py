"""Engine throughput: random legal games at 5, 10, 20 and 30 players.

Each seat, in seat order, picks uniformly among its concrete legal game actions
(pass included), applies it, then passes. Three ways are measured for each size,
interleaved in the same run so that machine noise hits them alike, each the best
of `--rounds` short runs:

- `reference`: bench/reference_engine.py, a straightforward engine of the same
  rules with no events, no views and no refusal reasons — the yardstick;
- `engine`: trusis.rules (events, audiences, precise refusals), with the same
  random players (the same seeds play the same games on both: checked first);
- `+views`: the engine again, also building every seat's view at every phase
  change, as the server does.

Printed: games/s and actions/s of each, engine/reference (>= 1 means the engine
is at least as fast as the yardstick) and what the views cost (engine/+views).
Then the balance lab's speed: heuristic-bot games per second at 10 players
(trusis.lab.simulate.play_one, one process).
Usage: python bench/engine.py [--seconds S] [--rounds R] [--lab-games G]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_engine import ReferenceGame
from trusis import Action, apply, legal_actions, new_game
from trusis.lab.simulate import game_seed, play_one
from trusis.rules.actions import PASS
from trusis.rules.roles import ILLUSION, TEAMS
from trusis.rules.views import all_views

NAMES = [f"P{i}" for i in range(1, 31)]
SIZES = (5, 10, 20, 30)


class Power(Protocol):
    @property
    def do(self) -> str: ...
    @property
    def targets(self) -> tuple[int, ...]: ...
    @property
    def shown(self) -> tuple[int, ...]: ...


def random_choice(powers: Sequence[Power], rng: random.Random) -> tuple[str, int, int | None]:
    """One uniformly chosen concrete action among `powers` and pass: (do, target, shown).

    The same code picks for both engines, from lists in the same order.
    """
    pick = int(rng.random() * (1 + sum([len(p.targets) for p in powers])))
    if pick == 0:
        return PASS, 0, None
    pick -= 1
    for p in powers:
        targets = p.targets
        if pick < len(targets):
            if p.do == ILLUSION:
                return ILLUSION, targets[pick], p.shown[int(rng.random() * len(p.shown))]
            return p.do, targets[pick], None
        pick -= len(targets)
    raise AssertionError("no legal action")


def play_engine(players: int, seed: int, with_views: bool = False) -> tuple[int, str | None]:
    """One random game on the engine; (actions applied, winner)."""
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
            # The documented order of legal_actions: powers, then pass, leave, say.
            do, target, shown = random_choice(legal_actions(state, seat)[:-3], rng)
            if do != PASS:
                apply(state, Action(do, seat, target, shown))
                actions += 1
            apply(state, Action(PASS, seat))
            actions += 1
            if state.kind != kind or state.number != number or not state.running:
                break
    if with_views:
        all_views(state)
    return actions, state.winner


def play_reference(players: int, seed: int) -> tuple[int, str | None]:
    """The same random game on the reference engine."""
    rng = random.Random(seed)
    game = ReferenceGame(players, seed)
    actions = 0
    n = game.n
    while game.running:
        kind, number = game.kind, game.number
        for seat in range(1, n + 1):
            if not game.alive[seat] or game.passed[seat]:
                continue
            do, target, shown = random_choice(game.powers(seat), rng)
            if do != PASS:
                game.act(do, seat, target, shown)
                actions += 1
            game.pass_(seat)
            actions += 1
            if game.kind != kind or game.number != number or not game.running:
                break
    return actions, game.winner


MODES: dict[str, Callable[[int, int], tuple[int, Any]]] = {
    "reference": play_reference,
    "engine": play_engine,
    "+views": lambda players, seed: play_engine(players, seed, True),
}


def measure(play: Callable[[int, int], tuple[int, Any]], players: int,
            seconds: float) -> tuple[float, float]:
    """Games per second and actions per second over about `seconds` of play."""
    games = actions = 0
    start = time.process_time()
    while True:
        actions += play(players, games)[0]
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return games / elapsed, actions / elapsed


def check_same_games(games: int = 20) -> None:
    """The yardstick plays the same games: same actions and winner for every seed."""
    for players in SIZES:
        for seed in range(games):
            ours, theirs = play_engine(players, seed), play_reference(players, seed)
            if ours != theirs:
                raise SystemExit(f"{players} players, seed {seed}: engine {ours}, "
                                 f"reference {theirs}: the yardstick is wrong")


def lab_rate(players: int, games: int, rounds: int) -> float:
    """Heuristic-bot games per second in the balance lab (best of `rounds`)."""
    bots = dict.fromkeys(TEAMS, "heuristic")
    best = 0.0
    for r in range(rounds):
        start = time.process_time()
        for i in range(r * games, (r + 1) * games):
            play_one(players, game_seed(0, players, i), None, bots, index=i)
        best = max(best, games / (time.process_time() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=0.5, help="time per short run")
    parser.add_argument("--rounds", type=int, default=3, help="short runs per measurement")
    parser.add_argument("--lab-games", type=int, default=20, help="heuristic games per run")
    args = parser.parse_args()
    check_same_games()
    print(f"{'players':>7} | {'reference g/s':>13} {'actions/s':>10} | "
          f"{'engine g/s':>10} {'actions/s':>10} {'vs ref':>7} | "
          f"{'+views g/s':>10} {'actions/s':>10} {'views cost':>10}")
    for players in SIZES:
        best = {mode: (0.0, 0.0) for mode in MODES}
        for _ in range(args.rounds):
            for mode, play in MODES.items():
                g, a = measure(play, players, args.seconds)
                best[mode] = (max(best[mode][0], g), max(best[mode][1], a))
        (rg, ra), (eg, ea), (vg, va) = best["reference"], best["engine"], best["+views"]
        print(f"{players:>7} | {rg:>13,.0f} {ra:>10,.0f} | {eg:>10,.0f} {ea:>10,.0f} "
              f"{eg / rg:>6.2f}x | {vg:>10,.0f} {va:>10,.0f} {eg / vg:>9.2f}x")
    if args.lab_games:
        rate = lab_rate(10, args.lab_games, args.rounds)
        print(f"balance lab, heuristic bots, 10 players: {rate:,.1f} games/s (one process)")


if __name__ == "__main__":
    main()
