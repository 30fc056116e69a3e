"""Are people singled out by the bots on Day 1? (issue 40: "fair to people")

One person and `--seats - 1` bots of `--kind`; the person plays Day 1 in one of the
styles of bench/people.py (votes early at random, votes late, passes at once, says
little, says much). Fairness is the issue's measure: how often the person is voted out
on Day 1, divided by the fair share — the share of games in which Day 1 killed anyone,
over the living seats. Equivalently, among the days whose vote killed someone, the share
whose victim was the person, times the seats; its Wilson 95% interval is printed with it.
The bar is 1.2.

- `--where lab` (default): the server's bot schedule (`trusis.server.tables.botplay.BotPlay`, at
  `--pace`) on a simulated clock; deterministic, hundreds of games a second or so.
- `--where server`: a real `trusis serve` (its default bot pace unless `--pace`), the
  person a program seat over the WebSocket protocol; `--tables` games per style, run
  `--concurrent` at a time (bench/fairness_server.py).

It also prints how the day was paced: when the bots' first vote came, whether the seat
the person voted for voted back and how soon, and, for a person who passed at once, how
long the day went on after that. No assertions: a measuring tape
(tests/test_bots_fairness.py holds the behaviours at CI size).
Usage: python bench/fairness.py [--styles early,pass] [--games 400] [--seats 10]
       [--kind normal] [--pace 1] [--day 180] [--jobs 2] [--seed 0]
       [--where server --tables 240 --concurrent 24]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from people import NAMES, STYLES, plan
from trusis.bots.registry import create_bot
from trusis.lab.simulate import wilson
from trusis.rules.actions import TIMEOUT, Action
from trusis.rules.formats import EventData
from trusis.server.tables.botplay import BotPlay
from trusis.table.table import Table

BAR = 1.2


@dataclass(frozen=True)
class Day1:
    """How Day 1 of one game went, as the person at `person` lived it."""

    style: str
    person: int
    seats: int
    target: int  # whom the person voted for (0: nobody)
    killed: int  # the seat the vote killed (0: nobody)
    on_person: int  # visible votes on the person when the day ended
    first_vote: float | None  # seconds into the day of the bots' first vote
    first_line: float | None  # ... and of their first public line
    back: float | None  # seconds from the person's vote to its target's vote on the person
    pass_to_end: float | None  # seconds from the person's pass to the end of the day
    lines_before_end: int  # public bot lines after the person passed (or all day)


def read_day(style: str, person: int, seats: int, events: Sequence[EventData],
             started: float) -> Day1:
    """The measures of one Day 1 from its public events (`t` seconds, any epoch)."""
    target, killed, ended = 0, 0, None
    votes: dict[int, int] = {}
    first_vote = first_line = voted_at = back = passed_at = None
    lines_after = 0
    for event in events:
        code, params, t = event["code"], event["params"], event.get("t", started) - started
        if code == "phase_started" and params["kind"] != "day":
            ended = t
            break
        if code == "vote_cast":
            voter, to = params["voter"], params["target"]
            votes[voter] = to
            if voter == person:
                target, voted_at = to, t
            elif first_vote is None:
                first_vote = t
            if voter == target and to == person and back is None and voted_at is not None:
                back = t - voted_at
        elif code == "vote_withdrawn":
            votes.pop(params["voter"], None)
        elif code == "vote_killed":
            killed = params["seat"]
        elif code == "passed" and params.get("seat") == person:
            passed_at = t
        elif code == "said" and params["seat"] != person:
            if first_line is None:
                first_line = t
            if passed_at is not None or style != "pass":
                lines_after += 1
        elif code == "game_over":
            ended = t
            break
    on_person = sum(1 for to in votes.values() if to == person)
    pass_to_end = None if passed_at is None or ended is None else ended - passed_at
    return Day1(style, person, seats, target, killed, on_person, first_vote, first_line, back,
                pass_to_end, lines_after)


def play_day(style: str, seed: int, seats: int, kind: str, pace: float, day: float,
             deal: Sequence[str] | None = None) -> tuple[Table, int]:
    """Day 1 of one game on a simulated clock, the bots scheduled as a server schedules
    them (and woken after each of the person's actions, as a server wakes them); the
    person's seat turns round the table with the seed. The table and the person's seat."""
    rng = random.Random(seed)
    person = 1 + seed % seats
    table = Table(list(NAMES[:seats]), seed, deal=list(deal) if deal else None,
                  bot_seats=[s for s in range(1, seats + 1) if s != person])
    bots = BotPlay(table, pace, day, random.Random(seed))
    for seat in range(1, seats + 1):
        if seat != person:
            bots.seat(seat, create_bot(kind, seat, rng.randrange(2**31)), 0.0)
    bots.new_phase(0.0, day)
    moves = plan(style, person, seats, day, rng)
    state = table.state
    now = 0.0
    while state.running and state.kind == "day":
        due = bots.next_due()
        if moves and (due is None or moves[0].at <= max(now, due)):
            move = moves.pop(0)
            now = max(now, move.at)
            table.play(move.action, now)
        elif due is None or max(now, due) >= day:
            table.play(Action(TIMEOUT, None), day)
            break
        else:
            now = max(now, due)
        for action in bots.step(now):
            table.play(action, now)
            if not state.running or state.kind != "day":
                break
    return table, person


def lab_day(style: str, seed: int, seats: int, kind: str, pace: float, day: float) -> Day1:
    """The measures of `play_day`."""
    table, person = play_day(style, seed, seats, kind, pace, day)
    return read_day(style, person, seats, table.events_after(None, 0), 0.0)


def _lab_batch(args: tuple[str, Sequence[int], int, str, float, float]) -> list[Day1]:
    style, seeds, seats, kind, pace, day = args
    return [lab_day(style, seed, seats, kind, pace, day) for seed in seeds]


def lab(style: str, games: int, seed: int, seats: int, kind: str, pace: float, day: float,
        jobs: int = 1) -> list[Day1]:
    """`games` Day 1s of `style` (seeds seed, seed + 1, ...)."""
    seeds = list(range(seed, seed + games))
    batches = [(style, seeds[i:i + 25], seats, kind, pace, day) for i in range(0, games, 25)]
    if jobs <= 1:
        return [d for batch in batches for d in _lab_batch(batch)]
    with ProcessPoolExecutor(jobs) as pool:
        return [d for result in pool.map(_lab_batch, batches) for d in result]


@dataclass(frozen=True)
class Fairness:
    """The issue's ratio: the person's Day-1 deaths over the fair share, with its interval."""

    games: int
    kill_days: int
    person_killed: int
    ratio: float
    low: float
    high: float


def fairness(days: Sequence[Day1]) -> Fairness:
    kills = [d for d in days if d.killed]
    hit = sum(1 for d in kills if d.killed == d.person)
    seats = days[0].seats if days else 1
    if not kills:
        return Fairness(len(days), 0, 0, 0.0, 0.0, 0.0)
    low, high = wilson(hit, len(kills))
    return Fairness(len(days), len(kills), hit, seats * hit / len(kills), seats * low,
                    seats * high)


def _median(values: Sequence[float | None]) -> str:
    kept = sorted(v for v in values if v is not None)
    if not kept:
        return "-"
    quarter = kept[len(kept) // 4]
    three = kept[(3 * len(kept)) // 4]
    return f"{statistics.median(kept):.1f} s (middle half {quarter:.1f}-{three:.1f})"


def report(style: str, days: Sequence[Day1]) -> str:
    f = fairness(days)
    mark = "ok" if f.ratio <= BAR else "OVER"
    lines = [f"{style:7s} voted out {f.person_killed}/{f.games} games; Day-1 kills in "
             f"{f.kill_days}; ratio {f.ratio:.2f} ({f.low:.2f}-{f.high:.2f}) {mark}"]
    lines.append(f"        bots' first vote {_median([d.first_vote for d in days])}; "
                 f"first line {_median([d.first_line for d in days])}")
    voters = [d for d in days if d.target]
    if voters:
        backs = [d.back for d in voters if d.back is not None]
        lines.append(f"        its target voted back at {len(backs)}/{len(voters)}, after "
                     f"{_median(backs)}")
    killed = [d.on_person for d in days if d.killed == d.person]
    if killed:
        lines.append(f"        when voted out: {statistics.median(killed):g} votes on the "
                     f"person (median), at most {max(killed)}")
    if style == "pass":
        lines.append(f"        the day went on {_median([d.pass_to_end for d in days])} after "
                     f"the pass; bot lines meanwhile: "
                     f"{statistics.median([d.lines_before_end for d in days]):g} (median)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--styles", default=",".join(STYLES))
    parser.add_argument("--games", type=int, default=400, help="lab games per style")
    parser.add_argument("--seats", type=int, default=10)
    parser.add_argument("--kind", default="normal")
    parser.add_argument("--pace", type=float, default=1.0)
    parser.add_argument("--day", type=float, default=180.0, help="Day 1's length in seconds")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--where", choices=("lab", "server"), default="lab")
    parser.add_argument("--tables", type=int, default=240, help="server tables per style")
    parser.add_argument("--concurrent", type=int, default=24, help="server tables at once")
    args = parser.parse_args()
    styles = [s for s in args.styles.split(",") if s]
    start = time.perf_counter()
    where = (f"lab, {args.games} games a style, bot pace {args.pace:g}" if args.where == "lab"
             else f"a real server, {args.tables} tables a style, bot pace {args.pace:g}")
    print(f"{args.seats} seats: one person and {args.seats - 1} {args.kind} bots; Day 1 of "
          f"{args.day:g} s; {where}; seed {args.seed}")
    for style in styles:
        if args.where == "lab":
            days = lab(style, args.games, args.seed, args.seats, args.kind, args.pace, args.day,
                       args.jobs)
        else:
            from fairness_server import server_days

            days = server_days(style, args.tables, args.seed, args.seats, args.kind, args.pace,
                               args.day, args.concurrent)
        print(report(style, days), flush=True)
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
