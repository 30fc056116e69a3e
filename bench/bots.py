"""New bots against the heuristic bot, on each side, with 95% intervals.

For each player count, plays the same seeds three ways: every seat `heuristic`
(the baseline), the Human team `KIND` against heuristic Trusis, and the Trusis
team `KIND` against heuristic Humans (Castaways stay heuristic). Prints each
team's win rate with its Wilson interval, the two-proportion z of KIND against
the baseline, and how the day votes took shape (the share of killing days whose
victim drew the first vote; the top share of votes after a quarter, a half and
all of the day). No assertions: it is a measuring tape.
Usage: python bench/bots.py [--kind normal] [--players 7,10,14] [--games 300] [--jobs 2]
"""

from __future__ import annotations

import argparse
import math
import time

from trusis.lab.simulate import DayVotes, plan, run, tally, wilson

TEAMS = ("HUMAN", "TRUSIS", "CASTAWAY")


def match(players: list[int], games: int, bots: dict[str, str], jobs: int, seed: int,
          ) -> tuple[dict[str, int], int, DayVotes]:
    tallies = tally(run(plan(players, games, seed, None, bots), jobs))
    wins = {team: sum(t.wins[team] for t in tallies) for team in ("HUMAN", "TRUSIS")}
    votes = DayVotes()
    for t in tallies:
        votes.add(t.votes)
    return wins, sum(t.games for t in tallies), votes


def z_test(w1: int, w0: int, n: int) -> float:
    pooled = (w1 + w0) / (2 * n)
    se = math.sqrt(max(1e-12, pooled * (1 - pooled) * 2 / n))
    return (w1 - w0) / n / se


def rate(wins: int, n: int) -> str:
    low, high = wilson(wins, n)
    return f"{wins}/{n} = {wins / n:.1%} ({low:.1%}–{high:.1%})"


def shape(votes: DayVotes) -> str:
    d = votes.as_dict()
    c = d["concentration"]
    return (f"first-voted victim {d['first_voted_share']:.0%} of {d['kill_days']} kill days; "
            f"top share {c['quarter']:.0%} / {c['half']:.0%} / {c['all']:.0%}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kind", default="normal")
    parser.add_argument("--players", default="7,10,14")
    parser.add_argument("--games", type=int, default=300, help="games per player count")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    players = [int(p) for p in args.players.split(",")]
    base_bots = dict.fromkeys(TEAMS, "heuristic")
    start = time.perf_counter()
    base, n, base_votes = match(players, args.games, base_bots, args.jobs, args.seed)
    print(f"players {players}, {args.games} games each, seed {args.seed}")
    print(f"baseline heuristic everywhere: Human {rate(base['HUMAN'], n)}, "
          f"Trusis {rate(base['TRUSIS'], n)}")
    print(f"  {shape(base_votes)}")
    for team in ("HUMAN", "TRUSIS"):
        wins, _n, votes = match(players, args.games, {**base_bots, team: args.kind}, args.jobs,
                                args.seed)
        print(f"{team}={args.kind} vs heuristic: {team} wins {rate(wins[team], n)}; "
              f"z = {z_test(wins[team], base[team], n):.1f} against the baseline")
        print(f"  {shape(votes)}")
    everyone, _n, votes = match(players, args.games, dict.fromkeys(TEAMS, args.kind), args.jobs,
                                args.seed)
    print(f"{args.kind} everywhere: Human {rate(everyone['HUMAN'], n)}, "
          f"Trusis {rate(everyone['TRUSIS'], n)}")
    print(f"  {shape(votes)}")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
