"""Bots keep a human pace at a server table, and are fair to the person there (issue 40).

Ten seats, one scripted person (bench/people.py) and nine `normal` bots scheduled exactly
as a server schedules them (`BotPlay` at pace 1, on a simulated clock: bench/fairness.py,
which prints the figures over hundreds of games). Each test pins one behaviour the issue
asks for: an early lone vote is a question, not a reason to pile on; no hunch vote in the
first seconds of a day; the day goes on, readable, after the only person passed.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

from trusis.bots import phrases
from trusis.bots.base import Bot
from trusis.bots.registry import create_bot
from trusis.rules.actions import Action
from trusis.rules.formats import EventData
from trusis.server.tables.botplay import READABLE, BotPlay
from trusis.table.table import Table

BENCH = Path(__file__).resolve().parent.parent / "bench"
DAY = 30.0  # the shortest day a table may have (server/tables/options.py)


def bench() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location("fairness", BENCH / "fairness.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fairness"] = module
    spec.loader.exec_module(module)
    return module


def day_events(style: str, seed: int, deal: list[str] | None = None
               ) -> tuple[list[EventData], int, dict[int, str]]:
    table, person = bench().play_day(style, seed, 10, "normal", 1.0, DAY, deal)
    names = {s: table.state.names[s] for s in range(1, 11)}
    return table.events_after(None, 0), person, names


def test_an_early_lone_vote_is_asked_about_not_answered_with_votes() -> None:
    """The person votes for a random seat in the first second. Its target asks why rather
    than voting back at once (never within RETORT: 8 s of a 30-second day), and the other
    bots do not pile onto the person: no second vote on it while it is a lone accuser."""
    asked = back_fast = piled = 0
    games = 16
    for seed in range(games):
        events, person, names = day_events("early", seed)
        target = next(e["params"]["target"] for e in events
                      if e["code"] == "vote_cast" and e["params"]["voter"] == person)
        asks = [e for e in events if e["code"] == "said" and e["params"]["seat"] == target
                and (phrases.read(e["params"]["text"], {n: s for s, n in names.items()})
                     or ("", []))[0] == phrases.ASK_WHY_ME]
        asked += bool(asks) and names[person] in asks[0]["params"]["text"]
        votes_on_person = [e for e in events if e["code"] == "vote_cast"
                           and e["params"]["target"] == person]
        back = [e for e in votes_on_person if e["params"]["voter"] == target]
        back_fast += bool(back) and back[0].get("t", 0) - 1.0 < 8.0
        piled += len({e["params"]["voter"] for e in votes_on_person
                      if e.get("t", 0) < 8.0}) >= 2
    assert back_fast == 0, back_fast
    assert piled == 0, piled
    assert asked >= games // 3, asked  # ASK_CHANCE is 0.6


def test_no_bot_votes_in_the_first_seconds_of_a_day_without_evidence() -> None:
    """Without a power role at the table nobody holds evidence on Day 1, so no bot votes
    in the day's first tenth (HOLD: at least 5 s); the bots talk first."""
    deal = ["HUMAN"] * 8 + ["TRUSIS"] * 2
    firsts, lines_first = [], 0
    for seed in range(12):
        events, person, _names = day_events("pass", seed, random.Random(seed).sample(deal, 10))
        votes = [e.get("t", 0.0) for e in events if e["code"] == "vote_cast"]
        said = [e.get("t", 0.0) for e in events if e["code"] == "said"
                and e["params"]["seat"] != person]
        assert votes, seed
        firsts.append(min(votes))
        lines_first += bool(said) and min(said) <= min(votes)
    assert min(firsts) >= 5.0, firsts
    assert lines_first >= 6, lines_first


def test_the_day_goes_on_readably_after_the_only_person_passed() -> None:
    """The person passes in the first second: the bots still talk and vote, spread over
    READABLE of the day (10 s of a 30-second day), instead of ending it within 0.4 s."""
    share, low, high = READABLE["day"]
    readable = min(high, max(low, share * DAY))
    for seed in range(8):
        events, person, _names = day_events("pass", seed)
        ended = next(e.get("t", 0.0) for e in events if e["code"] == "phase_started")
        votes = sorted(e.get("t", 0.0) for e in events if e["code"] == "vote_cast")
        lines = [e for e in events if e["code"] == "said" and e["params"]["seat"] != person]
        assert ended >= readable, (seed, ended)
        assert lines, seed
        assert len(set(votes)) >= 3 and votes[-1] - votes[0] >= 2.0, (seed, votes)


class Plain(Bot):
    """A plug-in bot as the documentation shows one: it only passes."""

    kind = "plain"

    def act(self) -> Action | None:
        return self.pass_()


def test_a_plug_in_bot_plays_on_the_server_schedule() -> None:
    """`BotPlay` tells every bot the time (`Bot.tick`, on the base class): a plug-in that
    knows nothing of it still plays, and sees the clock if it wants to."""
    table = Table([f"P{i}" for i in range(1, 6)], 3)
    play = BotPlay(table, 1.0, DAY, random.Random(3))
    plain = Plain(2)
    play.seat(2, plain, 0.0)
    for seat in (3, 4, 5):
        play.seat(seat, create_bot("normal", seat, seat), 0.0)
    play.new_phase(0.0, DAY)
    table.play(Action("pass", 1), 0.5)
    now = 0.5
    while table.state.running and table.state.kind == "day" and table.state.number == 1:
        due = play.next_due()
        assert due is not None
        now = max(now, due)
        for action in play.step(now):
            table.play(action, now)
    assert plain.clock is not None and plain.clock.length <= DAY
