"""Do the bots vote out a person who passes at once on Day 1? (issue 21, D23)

Five seats: one person and four default bots, scheduled exactly as a server table schedules
them (`trusis.server.tables.botplay.BotPlay` at a human pace, on a simulated clock). The person
passes in the first second of Day 1 without voting; the bots then finish the day. Over
`--games` games (the person's seat turns round the table) it prints how often the passer
died on Day 1, and, for comparison, how often a given seat dies on Day 1 when the same
person votes nothing but waits for the timer (the control: a random seat's chance).
The target is at most twice the control. No assertions: a measuring tape
(tests/test_bots_early_pass.py holds the bound).
Usage: python bench/early_pass.py [--games 100] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass

from trusis.bots.registry import DEFAULT_BOT, create_bot
from trusis.rules.actions import PASS, TIMEOUT, Action
from trusis.server.tables.botplay import BotPlay
from trusis.table.table import Table

SEATS = 5
DAY_SECONDS = 180.0  # a table's default day (server/options.py)


@dataclass(frozen=True)
class Day1:
    """How Day 1 of one game went: the first vote's target and who was voted out (0: none)."""

    person: int
    first: int
    killed: int


def day_one(seed: int, person: int, early_pass: bool) -> Day1:
    """Play Day 1 of one game: `person` passes at second 0.5 (or waits for the timer)."""
    rng = random.Random(seed)
    table = Table([f"P{i}" for i in range(1, SEATS + 1)], seed)
    bots = BotPlay(table, 1.0, DAY_SECONDS, random.Random(seed))
    for seat in range(1, SEATS + 1):
        if seat != person:
            bots.seat(seat, create_bot(DEFAULT_BOT, seat, rng.randrange(2**31)), 0.0)
    bots.new_phase(0.0, DAY_SECONDS)
    now = 0.0
    passed = False
    while table.state.running and table.state.number == 1 and table.state.kind == "day":
        due = bots.next_due()
        if early_pass and not passed and (due is None or due > 0.5):
            now = 0.5
            table.play(Action(PASS, person), now)
            passed = True
            continue
        if due is None or due > DAY_SECONDS:
            table.play(Action(TIMEOUT, None), DAY_SECONDS)
            break
        now = max(now, due)
        for action in bots.step(now):
            table.play(action, now)
            if table.state.kind != "day" or not table.state.running:
                break
    events = table.events_after(None, 0)
    first = next((int(e["params"]["target"]) for e in events if e["code"] == "vote_cast"), 0)
    killed = next((int(e["params"]["seat"]) for e in events if e["code"] == "vote_killed"), 0)
    return Day1(person, first, killed)


def games(count: int, seed: int, early_pass: bool) -> list[Day1]:
    """`count` games, the person's seat turning round the table."""
    return [day_one(seed + i, 1 + i % SEATS, early_pass) for i in range(count)]


def measure(count: int, seed: int, early_pass: bool) -> tuple[int, int]:
    """(games in which the person died on Day 1, games with a Day-1 vote death)."""
    results = games(count, seed, early_pass)
    return (sum(r.killed == r.person for r in results), sum(r.killed != 0 for r in results))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    results = games(args.games, args.seed, early_pass=True)
    died = sum(r.killed == r.person for r in results)
    deaths = sum(r.killed != 0 for r in results)
    accused = [r for r in results if r.first == r.person]
    c_died, c_deaths = measure(args.games, args.seed, early_pass=False)
    n = args.games
    print(f"{n} five-seat games, one person and {SEATS - 1} {DEFAULT_BOT} bots")
    print(f"  passed at once, no vote: the passer died on Day 1 in {died}/{n} = {died / n:.0%}"
          f" (a Day-1 vote death in {deaths}/{n})")
    print(f"  the first vote of the day went to the passer in {len(accused)}/{n};"
          f" the passer then died in {sum(r.killed == r.person for r in accused)}")
    print(f"  control (no vote, waits): that seat died on Day 1 in {c_died}/{n} = {c_died / n:.0%};"
          f" a random seat: {c_deaths}/{SEATS * n} = {c_deaths / (SEATS * n):.0%}")
    base = c_deaths / (SEATS * n)
    print(f"  ratio passer / random seat: {died / n / base:.1f}" if base else "  no control deaths")


if __name__ == "__main__":
    main()
