"""A person at a table with one TRUSIS is not voted out for how they play (issue 40, D70).

At five to seven seats of the standard set nothing on Day 1 is evidence, and the bots'
hunches used to race: the seat that does not hunch back (a person voting late, or mid-day
after saying hello) lost the race 2.1-2.3 times as often as its share at seven seats. Since
D70 the Human bots draw one seat by lot among the seats that did not claim a role, people
and bots alike, from what the table said and its first vote. This is bench/fairness.py at
CI size: the lab plays the server's bot schedule on a simulated clock, deterministically
(the same seeds give the same games), so these are counts, not timings. The bar of the
issue is 1.2 times the fair share; claimers, spared on Day 1, leave the rest of the table
a share above the fair one (docs/bots.md) — until D73: the lot weighs a seat the table
shows as a person's (not among the view's `bot_seats`) so that it is drawn no more often than
its fair share of the whole table, and the lot's seed waits for a line or a second vote after
a first vote cast before anyone spoke (such a vote alone gave few distinct draws). Now the
person is within the bar at six and seven seats, pooled over the styles that vote.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from trusis import Table
from trusis.bots import phrases
from trusis.bots.tactics import draw_lot
from trusis.bots.weigh import INFO_ROLES
from trusis.rules.roles import ROLES, TEAM_HUMAN
from trusis.rules.views import view
from trusis.table.record import parse_record

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
# ... and after D70, before D73 (main at b53cb3f): pooled over the four styles that vote,
# 1.07 at five seats, 1.36 at six, 1.34 at seven (claimers spared, the person unclaimed).
VOTING = ("early", "late", "quiet", "chatty")
D70 = {5: 1.07, 6: 1.36, 7: 1.34}


def test_D73_a_person_is_within_the_bar_at_five_to_seven_seats() -> None:
    ratios = {(style, seats): shares(style, seats)[0] for seats in D70 for style in VOTING}
    # Now (D73): 0.7-1.3 each; pooled 1.10, 1.08 and 0.99 at five, six and seven seats.
    # Each figure alone is 120 games (about ±0.3), so the bar holds for the pooled ones.
    for key, ratio in ratios.items():
        assert ratio <= 1.5, (key, ratio, BEFORE.get(key))
    for seats, before in D70.items():
        pooled = sum(ratios[style, seats] for style in VOTING) / len(VOTING)
        assert pooled <= 1.2, (seats, pooled, before, ratios)


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


def test_D73_the_lot_draws_a_person_at_most_at_a_fair_share_of_the_table() -> None:
    """Seven living seats, the Sweeper and the Priest spared (claimers): five seats in the
    lot, one of them a person's. Plainly drawn, the person would go one time in five (1.4x
    a seventh); weighed, one time in seven, and each bot's seat a little more often."""
    seats, living = [1, 2, 4, 6, 7], 7
    digests = [n.to_bytes(8, "big") for n in range(0, 2**64, 2**64 // 7000)]
    draws = [draw_lot(seats, {4}, living, digest) for digest in digests]
    share = draws.count(4) / len(draws)
    assert abs(share - 1 / living) < 0.01, share
    assert all(abs(draws.count(s) / len(draws) - 6 / 28) < 0.01 for s in (1, 2, 6, 7))
    # Where the view does not say who is a bot (the lab), every seat looks alike: D70's
    # plain draw, the same as before D73 (the lab's games do not change).
    digest = (123456789).to_bytes(8, "big")
    assert draw_lot(seats, set(seats), living, digest) == seats[123456789 % len(seats)]
    # Only people in the lot (every bot spared): nothing to weigh them against.
    assert draw_lot([4, 5], {4, 5}, living, digest) == [4, 5][123456789 % 2]


def test_D73_the_seats_bots_hold_from_the_start_are_public_and_kept_by_the_record() -> None:
    table = Table(["Ann", "Bob", "Cid", "Dan", "Eve", "Fay"], 7, bot_seats=[6, 2, 3, 2, 9])
    assert table.state.bot_seats == (2, 3, 6)  # seats of the table, once each, in order
    assert view(table.state, 1)["bot_seats"] == [2, 3, 6]  # every seat sees them
    assert view(table.state, None)["bot_seats"] == [2, 3, 6]  # ... and a spectator
    again = Table.from_record(parse_record(table.record.to_dict()))
    assert again.state.bot_seats == (2, 3, 6)
    plain = Table(["Ann", "Bob", "Cid", "Dan", "Eve", "Fay"], 7)
    assert "bot_seats" not in view(plain.state, 1)  # none given: the view is as before
    assert "bot_seats" not in plain.record.to_dict()
    # A record's optional field never keeps it from loading: what is not a seat is left out.
    odd = plain.record.to_dict() | {"bot_seats": ["2", 0, 3, True]}
    assert Table.from_record(parse_record(odd)).state.bot_seats == (3,)


def _day_one(bench: ModuleType, style: str, seed: int) -> tuple[list[dict[str, object]], set[int],
                                                                 dict[str, int], int]:
    """Day 1's events of a seven-seat lab game, its Human bots, the seats by name, the person."""
    table, seat = bench.play_day(style, seed, 7, "normal", 1.0, DAY)
    by_name = {name: s for s, name in enumerate(bench.NAMES[:7], start=1)}
    roles = table.state.roles
    humans = {s for s in range(1, 8) if ROLES[roles[s]].team == TEAM_HUMAN} - {seat}
    events: list[dict[str, object]] = []
    for event in table.events_after(None, 0):
        if event["code"] == "phase_started" and event["params"]["kind"] != "day":
            break
        events.append(dict(event))
    return events, humans, by_name, seat


def _lot_named(text: str, by_name: dict[str, int]) -> int:
    """The seat a line says the lot drew (D70), or 0 — alone, or after "X, for now."."""
    read = phrases.read(text, by_name, "en")
    if read and read[0] == phrases.SUSPECT_NAME and ". " in text:
        read = phrases.read(text.split(". ", 1)[1], by_name, "en")
    if not read or read[0] != phrases.WHY_LOT:
        return 0
    return next((n for name, n in by_name.items() if name in text), 0)


def test_D70_the_first_vote_on_the_seat_drawn_comes_after_a_word_that_it_is_a_lot() -> None:
    """In a browser trial four bots voted a new player by lot before any of them said it was
    one: the explanation came last. Now the first Human bot to vote the drawn seat (the
    day's first voter aside: its vote, a hunch, seeded the lot) says first that it is a lot
    — or had said it had a hunch about that very seat, and votes as it said."""
    bench = fairness()
    checked = 0
    for seed in range(60):
        events, humans, by_name, _person = _day_one(bench, "late", seed)
        first = next((e["params"]["voter"] for e in events  # type: ignore[index]
                      if e["code"] == "vote_cast"), 0)
        said: set[int] = set()  # seats a lot line has named so far
        hunch: set[tuple[int, int]] = set()  # (bot, seat) of a hunch it said
        on: set[int] = set()  # seats with a vote on them so far
        for event in events:
            params: dict[str, int | str] = event["params"]  # type: ignore[assignment]
            if event["code"] == "said" and params["seat"] in humans:
                text = str(params["text"])
                said.add(_lot_named(text, by_name))
                read = phrases.read(text, by_name, "en")
                if read and read[0] in (phrases.WHY_HUNCH, phrases.SUSPECT_NAME):
                    hunch |= {(int(params["seat"]), n) for name, n in by_name.items()
                              if name in text}
            elif event["code"] == "vote_cast":
                voter, target = int(params["voter"]), int(params["target"] or 0)
                drawn = any(_lot_named(str(e["params"]["text"]), by_name) == target  # type: ignore[index]
                            for e in events if e["code"] == "said")
                if voter in humans - {first} and drawn and target not in on:
                    checked += 1
                    assert target in said or (voter, target) in hunch, (seed, voter, target)
                on.add(target)
    assert checked >= 10, checked


def test_D70_a_bot_asked_whom_it_suspects_names_the_seat_drawn_not_nobody() -> None:
    """Asked "who do you suspect?" with no vote yet and no evidence, a bot answered "too
    early to say" and then voted the asker by lot. Once the lot has drawn a seat, the answer
    names it and says it is the lot's."""
    bench = fairness()
    nobody = named = 0
    for seed in range(60):
        events, humans, by_name, _person = _day_one(bench, "chatty", seed)
        drawn: set[int] = set()
        for event in events:
            params: dict[str, int | str] = event["params"]  # type: ignore[assignment]
            if event["code"] != "said" or params["seat"] not in humans:
                continue
            text = str(params["text"])
            drawn.add(_lot_named(text, by_name))
            read = phrases.read(text, by_name, "en")
            if read and read[0] == phrases.SUSPECT_NOBODY and drawn - {0, int(params["seat"])}:
                nobody += 1
            if read and read[0] == phrases.SUSPECT_NAME and _lot_named(text, by_name):
                named += 1
    assert nobody == 0, nobody
    assert named >= 3, named
