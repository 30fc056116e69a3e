"""Bots at a slow table (D65): they visit a phase of hours at moments of their own, as its
people do — not all in its first minutes, never in its last stretch — and still talk and vote.

Ten seats, one person who never comes, nine `normal` bots scheduled exactly as a server
schedules them (`BotPlay` at pace 1, woken after each action), on a simulated clock: a day
of 20 hours ("a day a day", D62), played to its timer (R12).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from trusis.bots.registry import create_bot
from trusis.rules.actions import TIMEOUT, Action
from trusis.server.tables.botplay import SLOW_FIRST, SLOW_LAST, BotPlay
from trusis.table.table import Table

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon"]
DAY = 20 * 3600.0


def slow_day(seed: int, slow: bool = True) -> tuple[list[tuple[float, int, str]], int, int]:
    """Day 1 with the person at seat 1 away: each bot action (time, seat, what), the bots'
    turns (how often they were asked), and the day's last action's time."""
    table = Table(list(NAMES), seed)
    bots = BotPlay(table, 1.0, DAY, random.Random(seed), slow=slow)
    rng = random.Random(seed)
    for seat in range(2, 11):
        bots.seat(seat, create_bot("normal", seat, rng.randrange(2**31)), 0.0)
    turns = 0
    decide = bots.driver.decide

    def counted(seat: int) -> Any:
        nonlocal turns
        turns += 1
        return decide(seat)

    bots.driver.decide = counted  # type: ignore[method-assign]
    bots.new_phase(0.0, DAY)
    acted: list[tuple[float, int, str]] = []
    now = 0.0
    while table.state.running and table.state.kind == "day":
        due = bots.next_due()
        if due is None or due >= DAY:
            table.play(Action(TIMEOUT, None), DAY)
            break
        now = max(now, due)
        for action in bots.step(now):
            table.play(action, now)
            acted.append((now, action.seat or 0, action.do))
    return acted, turns, len(acted)


@pytest.mark.parametrize("seed", range(6))
def test_D65_bots_visit_a_slow_day_within_its_window_and_still_talk_and_vote(seed: int) -> None:
    acted, turns, _count = slow_day(seed)
    assert acted, "the bots did nothing all day"
    times = [at for at, _seat, _do in acted]
    # Not all at once at its start: nobody before the first visits' earliest moment, and
    # the bots' first moves spread over hours.
    assert min(times) >= SLOW_FIRST[0] * DAY - 1
    first = {}
    for at, seat, _do in acted:
        first.setdefault(seat, at)
    assert max(first.values()) - min(first.values()) >= 0.1 * DAY, sorted(first.values())
    # Not at its deadline: nothing in the day's last stretch (the timer passes them, R12).
    assert max(times) < SLOW_LAST * DAY, max(times) / DAY
    # Still players: they talk and vote.
    assert sum(do == "say" for _at, _seat, do in acted) >= 3, acted
    assert len({seat for _at, seat, do in acted if do == "vote"}) >= 5, acted
    # And a visit is a visit: a day of 20 hours costs each bot tens of turns, not thousands.
    assert turns <= 9 * 60, turns


def test_D65_a_real_time_table_is_unchanged() -> None:
    """The same day without the slow option: the bots start within seconds, as before."""
    acted, _turns, _count = slow_day(0, slow=False)
    assert min(at for at, _seat, _do in acted) < 60
