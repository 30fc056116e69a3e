"""Balance-lab throughput: simulated games per second, random vs heuristic bots.

For 10 and 20 players, plays the same games (same seeds) with random bots and
with heuristic bots, in 1 and in 2 worker processes, all in the same run so
that machine noise hits every column alike; prints games/s and the ratios
(2 jobs / 1 job, heuristic / random). No assertions: it is a measuring tape.
Usage: python bench/simulate.py [--games N]
"""

from __future__ import annotations

import argparse
import time

from trusis.lab.simulate import plan, run

TEAMS = ("HUMAN", "TRUSIS", "CASTAWAY")


def games_per_second(kind: str, players: int, games: int, jobs: int) -> float:
    """Play `games` games of `kind` bots at `players` seats with `jobs` processes."""
    batches = plan([players], games, 0, None, dict.fromkeys(TEAMS, kind), batch=5)
    start = time.perf_counter()
    played = sum(1 for _ in run(batches, jobs))
    return played / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=60, help="games per measurement")
    args = parser.parse_args()
    print(f"{'players':>7} {'bots':>10} | {'1 job g/s':>9} {'2 jobs g/s':>10} "
          f"{'2j/1j':>6} | {'heur/random (1 job)':>19}")
    for players in (10, 20):
        rates: dict[tuple[str, int], float] = {}
        for kind in ("random", "heuristic"):
            for jobs in (1, 2):
                rates[(kind, jobs)] = games_per_second(kind, players, args.games, jobs)
        for kind in ("random", "heuristic"):
            one, two = rates[(kind, 1)], rates[(kind, 2)]
            ratio = rates[("heuristic", 1)] / rates[("random", 1)]
            tail = f"{ratio:>18.2f}x" if kind == "heuristic" else ""
            print(f"{players:>7} {kind:>10} | {one:>9.1f} {two:>10.1f} {two / one:>5.2f}x |"
                  f" {tail}")


if __name__ == "__main__":
    main()
