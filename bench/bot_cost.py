"""What a bot's thinking costs: decisions per second and CPU per decision, per kind.

Plays `--games` whole games at each seat count with every seat of one kind (seeds
0, 1, …; the same for every kind) and prints, side by side, the turns the bots took
(a turn is one observe/act: a decision, waiting included), the decisions per second
of one core, the CPU per decision, and for the `expert` the decisions it looked ahead
for and what one of those costs (`--rollouts` plays of the engine each: a server's
`--bot-rollouts`). Process CPU time, one process: run it on a quiet machine, or read
the ratios. No assertions: it is a measuring tape (docs/bots.md, "Cost").
Usage: python bench/bot_cost.py [--kinds heuristic,normal,expert] [--players 10,20]
                                [--games 5] [--rollouts 12]
"""

from __future__ import annotations

import argparse
import time

from trusis.bots import Bot, create_bot, play_game
from trusis.bots.expert import ExpertBot
from trusis.table.table import Table


def measure(kind: str, players: int, games: int, rollouts: int) -> tuple[int, float, int, float]:
    """(turns, CPU seconds, searched decisions, CPU seconds of those) over `games` games."""
    turns = searched = 0
    cpu = search_cpu = 0.0
    for seed in range(games):
        table = Table([f"P{i}" for i in range(1, players + 1)], seed)
        bots: dict[int, Bot] = {s: create_bot(kind, s, seed) for s in range(1, players + 1)}
        for bot in bots.values():
            if isinstance(bot, ExpertBot):
                bot.rollouts = rollouts
            act = bot.act

            def timed(act=act, bot=bot) -> object:  # type: ignore[no-untyped-def]
                nonlocal search_cpu, searched, turns
                turns += 1
                before = getattr(bot, "searches", 0)
                start = time.process_time()
                action = act()
                if getattr(bot, "searches", 0) > before:
                    searched += 1
                    search_cpu += time.process_time() - start
                return action

            bot.act = timed  # type: ignore[method-assign]
        start = time.process_time()
        play_game(table, bots)
        cpu += time.process_time() - start
    return turns, cpu, searched, search_cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--kinds", default="heuristic,normal,expert")
    parser.add_argument("--players", default="10,20")
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--rollouts", type=int, default=12)
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    print(f"{args.games} games per row, every seat one kind; expert rollouts {args.rollouts}")
    print(f"{'seats':>5} {'kind':>10} {'turns':>7} {'dec/s':>8} {'ms/dec':>7} "
          f"{'×normal':>8} {'searched':>8} {'ms/search':>9}")
    for players in (int(p) for p in args.players.split(",")):
        base = 0.0
        for kind in kinds:
            turns, cpu, searched, search_cpu = measure(kind, players, args.games, args.rollouts)
            per = 1000 * cpu / max(1, turns)
            if kind == "normal":
                base = per
            ratio = f"{per / base:.1f}×" if base else "–"
            search = f"{1000 * search_cpu / searched:.0f}" if searched else "–"
            print(f"{players:>5} {kind:>10} {turns:>7} {turns / max(cpu, 1e-9):>8.0f} "
                  f"{per:>7.2f} {ratio:>8} {searched:>8} {search:>9}")


if __name__ == "__main__":
    main()
