"""A person at a table with one TRUSIS is not voted out for how they play (issue 40, D70).

At five to seven seats of the standard set nothing on Day 1 is evidence, and the bots'
hunches used to race: the seat that does not hunch back (a person voting late, or mid-day
after saying hello) lost the race 2.1-2.3 times as often as its share at seven seats. Since
D70 the Human bots draw one seat by lot among the seats that did not claim a role, people
and bots alike, from what the table said and its first vote. This is bench/fairness.py at
CI size: the lab plays the server's bot schedule on a simulated clock, deterministically
(the same seeds give the same games), so these are counts, not timings. The bar of the
issue is 1.2 times the fair share; claimers, spared on Day 1, leave the rest of the table
a share above the fair one (docs/bots.md), so here the person must be clearly better off
than before, in every style that votes.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from trusis.bots import phrases
from trusis.bots.weigh import INFO_ROLES
from trusis.rules.roles import ROLES, TEAM_HUMAN

BENCH = Path(__file__).resolve().parent.parent / "bench"
GAMES = 120
DAY = 30.0


def fairness() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    if "fairness" not in sys.modules:
        spec = importlib.util.spec_from_file_location("fairness", BENCH / "fairness.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["fairness"] = module
        spec.loader.exec_module(module)
    return sys.modules["fairness"]


def shares(style: str, seats: int) -> tuple[float, float]:
    """The person's ratio to the fair share, and an unclaimed Human bot's, over GAMES Day 1s."""
    bench = fairness()
    kills = person = bots = bot_seats = 0
    for seed in range(GAMES):
        table, seat = bench.play_day(style, seed, seats, "normal", 1.0, DAY)
        day = bench.read_day(style, seat, seats, table.events_after(None, 0), 0.0)
        roles = table.state.roles
        plain = [s for s in range(1, seats + 1) if s != seat and roles[s] == "HUMAN"]
        bot_seats += len(plain)
        if day.killed:
            kills += 1
            person += day.killed == seat
            bots += day.killed in plain
    assert kills >= GAMES // 2, "Day 1 should still kill most days"
    return seats * person / kills, seats * bots / kills * GAMES / bot_seats


# (style, seats) -> the person's ratio over these GAMES seeds before D70 (main at 3defee1).
BEFORE = {("late", 7): 2.39, ("quiet", 7): 2.51, ("early", 7): 2.18, ("early", 6): 2.40,
          ("late", 6): 2.20, ("early", 5): 1.78, ("late", 5): 2.09}


def test_no_style_is_the_seat_the_bots_race_onto_at_five_to_seven_seats() -> None:
    ratios = {key: shares(*key)[0] for key in BEFORE}
    # After D70: 0.9-1.6 each, pooled 1.25, against 1.8-2.5 and 2.22 before. The lot is
    # fair among the seats that did not claim; claimers, spared, keep the pooled figure
    # near seats / unclaimed seats (about 1.3 at seven seats): docs/bots.md.
    for key, ratio in ratios.items():
        assert ratio <= 1.9, (key, ratio, BEFORE[key])
    assert sum(ratios.values()) / len(ratios) <= 1.5, ratios


def test_the_lot_never_falls_on_a_claimer() -> None:
    bench = fairness()
    for seed in range(40):
        table, seat = bench.play_day("late", seed, 7, "normal", 1.0, DAY)
        day = bench.read_day("late", seat, 7, table.events_after(None, 0), 0.0)
        if day.killed and day.killed != seat:
            assert table.state.roles[day.killed] not in INFO_ROLES, seed


def test_D70_a_vote_by_lot_is_said_to_be_one() -> None:
    """A new user at seven seats read the lot as a pile-on: the bots' lines about the seat
    they all voted were "Most of us are on Hugo" (the crowd) or a hunch. Now, once the day's
    first vote has drawn the lot, a Human bot that says why it votes says it is a lot —
    never the crowd or a hunch (the first voter's own first vote was one: it is left out)."""
    bench = fairness()
    lots = 0
    for seed in range(40):
        table, seat = bench.play_day("late", seed, 7, "normal", 1.0, DAY)
        by_name = {name: s for s, name in enumerate(bench.NAMES[:7], start=1)}
        roles = table.state.roles
        humans = {s for s in range(1, 8) if ROLES[roles[s]].team == TEAM_HUMAN}
        first = 0  # the day's first voter: its first vote, a hunch, drew the lot
        hunches: dict[int, tuple[str, int]] = {}  # a bot's last hunch or lot said, and whom
        voted: dict[int, int] = {}
        for event in table.events_after(None, 0):
            code, params = event["code"], event["params"]
            if code == "phase_started" and params["kind"] != "day":
                break
            first = first or (params["voter"] if code == "vote_cast" else 0)
            if code == "vote_cast":
                voted[params["voter"]] = params["target"]
            if code == "said" and params["seat"] in humans:
                said = phrases.read(params["text"], by_name, "en")
                named = [n for name, n in by_name.items() if name in params["text"]]
                if said and said[0] in (phrases.WHY_HUNCH, phrases.WHY_LOT) and named:
                    hunches[params["seat"]] = (said[0], named[0])
            if code != "said" or params["seat"] not in humans - {seat, first} or not first:
                continue
            read = phrases.read(params["text"], by_name, "en")
            kind = read[0] if read else ""
            lots += kind == phrases.WHY_LOT
            assert kind not in (phrases.WHY_CROWD, phrases.WHY_HUNCH), (seed, params["text"])
        # ... and one that gave a hunch, then followed the lot, said so before its vote
        # (a new player read "a hunch about Nico", then saw a silent vote for Elsa).
        for bot, (last, named) in hunches.items():
            assert voted.get(bot, named) == named, (seed, bot, last)
    assert lots >= 10, lots
