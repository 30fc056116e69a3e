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

When the compiled engine has been built (`python tools/build_compiled.py`, into
build/compiled/), `engine` and `+views` are also measured on it, in a second
process importing from there, interleaved with the others in the same rounds; the
yardstick is always the reference in this process, run as plain Python.

Printed: which engine this process runs, then for each size and engine games/s
and actions/s of each way, engine/reference (>= 1 means the engine is at least as
fast as the yardstick) and what the views cost (engine/+views). Then the balance
lab's speed: heuristic-bot games per second at 10 players
(trusis.lab.simulate.play_one, one process), on each engine.
`--against DIR` measures, in the second process instead, the engine of another
source tree (DIR holds its `trusis` package, e.g. `git archive main src | tar -x`
then DIR=src): before/after figures of a change in the same run, in rows named
`against`.
Usage: python bench/engine.py [--seconds S] [--rounds R] [--lab-games G]
                              [--compiled DIR | --no-compiled | --against DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parent))

import trusis.rules
from reference_engine import ReferenceGame
from trusis import Action, apply, legal_actions, new_game
from trusis.lab.simulate import game_seed, play_one
from trusis.rules.actions import PASS
from trusis.rules.roles import ILLUSION, TEAMS
from trusis.rules.views import all_views

NAMES = [f"P{i}" for i in range(1, 31)]
SIZES = (5, 10, 20, 30)
ROOT = Path(__file__).resolve().parent.parent
COMPILED_DIR = ROOT / "build" / "compiled"


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


def engine_name() -> str:
    return "compiled (mypyc)" if trusis.rules.compiled() else "pure Python"


class Worker:
    """This script in a second process importing the compiled build: it measures
    what it is asked, one request at a time, so the runs stay interleaved."""

    def __init__(self, folder: Path, compiled: bool = True) -> None:
        env = {**os.environ, "PYTHONPATH": str(folder)}
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker"], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )
        hello = self.ask("hello")
        if compiled and hello != ["compiled (mypyc)"]:
            raise SystemExit(f"{folder}: the worker runs {hello}, not the compiled engine")

    def ask(self, *words: object) -> list[str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(" ".join(map(str, words)) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("the compiled worker stopped")
        return line.rstrip("\n").split("|")

    def measure(self, mode: str, players: int, seconds: float) -> tuple[float, float]:
        g, a = self.ask("measure", mode, players, seconds)
        return float(g), float(a)

    def lab_rate(self, players: int, games: int, rounds: int) -> float:
        return float(self.ask("lab", players, games, rounds)[0])

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def serve() -> None:
    """The worker's side of `Worker`: answer requests on stdin until it closes."""
    check_same_games()
    for line in sys.stdin:
        words = line.split()
        if words[0] == "hello":
            answer = engine_name()
        elif words[0] == "measure":
            g, a = measure(MODES[words[1]], int(words[2]), float(words[3]))
            answer = f"{g}|{a}"
        else:
            answer = str(lab_rate(int(words[1]), int(words[2]), int(words[3])))
        print(answer, flush=True)


def row(players: int, name: str, ref: tuple[float, float], eng: tuple[float, float],
        views: tuple[float, float]) -> str:
    (rg, ra), (eg, ea), (vg, va) = ref, eng, views
    return (f"{players:>7} {name:<8} | {rg:>13,.0f} {ra:>10,.0f} | {eg:>10,.0f} {ea:>10,.0f} "
            f"{eg / rg:>6.2f}x | {vg:>10,.0f} {va:>10,.0f} {eg / vg:>9.2f}x")


def main() -> None:
    if sys.argv[1:] == ["--worker"]:
        serve()
        return
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=0.5, help="time per short run")
    parser.add_argument("--rounds", type=int, default=3, help="short runs per measurement")
    parser.add_argument("--lab-games", type=int, default=20, help="heuristic games per run")
    parser.add_argument("--compiled", type=Path, default=COMPILED_DIR,
                        help="the compiled build (tools/build_compiled.py), if built")
    parser.add_argument("--no-compiled", action="store_true", help="this process only")
    parser.add_argument("--against", type=Path, default=None,
                        help="another source tree's package folder, measured instead")
    args = parser.parse_args()
    check_same_games()
    print(f"engine: {engine_name()} (this process, and the reference)")
    worker = None
    there = "compiled"
    if args.against is not None:
        worker = Worker(args.against, compiled=False)
        there = "against"
        print(f"engine: against, from {args.against} (a second process)")
    elif args.no_compiled or trusis.rules.compiled():
        pass
    elif (args.compiled / "trusis" / "rules").is_dir():
        worker = Worker(args.compiled)
        print(f"engine: compiled (mypyc), from {args.compiled} (a second process)")
    else:
        print(f"compiled engine: not built (python tools/build_compiled.py {args.compiled})")
    here = "compiled" if trusis.rules.compiled() else "pure"
    print(f"{'players':>7} {'engine':<8} | {'reference g/s':>13} {'actions/s':>10} | "
          f"{'engine g/s':>10} {'actions/s':>10} {'vs ref':>7} | "
          f"{'+views g/s':>10} {'actions/s':>10} {'views cost':>10}")
    for players in SIZES:
        best = {mode: (0.0, 0.0) for mode in [*MODES, "c engine", "c +views"]}
        for _ in range(args.rounds):
            runs = [(mode, mode, False) for mode in MODES]
            if worker is not None:
                runs += [(f"c {mode}", mode, True) for mode in ("engine", "+views")]
            for key, mode, remote in runs:
                if remote:
                    assert worker is not None
                    g, a = worker.measure(mode, players, args.seconds)
                else:
                    g, a = measure(MODES[mode], players, args.seconds)
                best[key] = (max(best[key][0], g), max(best[key][1], a))
        print(row(players, here, best["reference"], best["engine"], best["+views"]))
        if worker is not None:
            print(row(players, there, best["reference"], best["c engine"],
                      best["c +views"]))
    if args.lab_games:
        rate = lab_rate(10, args.lab_games, args.rounds)
        line = f"balance lab, heuristic bots, 10 players: {rate:,.1f} games/s ({here}"
        if worker is not None:
            line += f"), {worker.lab_rate(10, args.lab_games, args.rounds):,.1f} ({there}"
        print(line + "; one process each)")
    if worker is not None:
        worker.close()


if __name__ == "__main__":
    main()
