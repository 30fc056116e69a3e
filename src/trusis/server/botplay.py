"""Bots at a server table: when each bot thinks, at a human pace, on its view only.

The bots themselves are the bots package's, run through its driver's `decide`
(observe the seat's view and news, then choose), so a bot here knows exactly
what a bot of `trusis play` or the balance lab knows. What this module adds is
time: each bot thinks at its own moment, spread over the phase so that votes
take shape over the day instead of in one second; a bot that is done holds its
pass until every person has passed (R12: at night, waiting must reveal no
roles), and then all the bots pass in seat order. The timer passes everybody
anyway, so a bot never holds a phase up; with every living person away, a seat
kept for its player holds the phase to its timer (D43).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from trusis.bots.base import Bot
from trusis.bots.driver import MAX_ACTIONS_PER_PHASE, BotDriver
from trusis.rules.actions import PASS, Action
from trusis.table.table import Table

PATIENCE = 6
"""Times a bot may answer "not yet" in one phase before it is taken as done."""


@dataclass
class BotPlay:
    """The bots of one table and their schedule."""

    table: Table
    pace: float = 1.0
    """Seconds scale: 1 is a human pace; 0 lets every bot act at once (tests)."""
    phase_seconds: float = 120.0
    rng: random.Random = field(default_factory=random.Random)
    driver: BotDriver = field(init=False)
    due: dict[int, float] = field(default_factory=dict)
    ready: set[int] = field(default_factory=set)
    acted: dict[int, int] = field(default_factory=dict)
    waits: dict[int, int] = field(default_factory=dict)
    settle_at: float | None = None
    awaited: Callable[[int], bool] = lambda seat: False
    """Whether a bot plays `seat` for its player, who may come back (D29): the room says."""

    def __post_init__(self) -> None:
        self.driver = BotDriver(self.table, {})

    @property
    def seats(self) -> list[int]:
        return sorted(self.driver.bots)

    def seat(self, seat: int, bot: Bot, now: float) -> None:
        """A bot takes `seat` (at the start, or after its person left: R53)."""
        self.driver.take_over(seat, bot)
        self.due[seat] = now + self._think(1.0, 4.0)

    def unseat(self, seat: int) -> None:
        bots = dict(self.driver.bots)
        bots.pop(seat, None)
        self.driver.bots = bots
        self.due.pop(seat, None)

    def new_phase(self, now: float, phase_seconds: float) -> None:
        """Spread the bots' first thoughts over the start of the phase."""
        self.phase_seconds = phase_seconds
        self.ready, self.acted, self.waits, self.settle_at = set(), {}, {}, None
        for seat in self.seats:
            self.due[seat] = now + self._think(2.0, 10.0)

    def _think(self, low: float, high: float) -> float:
        """A thinking time, shorter in short phases, never the same for two bots."""
        scale = min(1.0, self.phase_seconds / 120.0) * self.pace
        return self.rng.uniform(low, high) * scale

    def _open(self, seat: int) -> bool:
        state = self.table.state
        return bool(state.running and state.alive[seat] and not state.passed[seat]
                    and not state.left[seat])

    def people_done(self) -> bool:
        """Every alive, present seat without a bot has passed (R11, R52) — and a person
        plays. With every living person away, a seat kept for its player, who may come
        back (D29) — a bot plays it for them, or it passes by itself since their grace
        period ran out —, holds the phase to its timer (D43): otherwise the bots, waiting
        for nobody, passed at once, phase after phase, and ended the game in seconds."""
        bots = self.driver.bots
        state = self.table.state
        seats = range(1, state.n + 1)
        if any(self._open(s) for s in seats if s not in bots):
            return False
        if any(state.alive[s] and not state.left[s] for s in seats if s not in bots):
            return True  # the living people have passed
        # Here every living seat without a bot has departed (R52).
        return not any(state.alive[s] and self.awaited(s) for s in seats)

    def next_due(self) -> float | None:
        """When `step` next has something to do (None: nothing until an event)."""
        times = [self.due[s] for s in self.seats
                 if self._open(s) and s not in self.ready and s in self.due]
        if self.settle_at is not None:
            times.append(self.settle_at)
        return min(times) if times else None

    def step(self, now: float) -> Iterator[Action]:
        """The bot actions to play now, in order; the caller plays each before the next.

        Pulled one at a time, so each bot decides on the game as it is after the
        previous action was played.
        """
        for seat in self.seats:
            if not self._open(seat) or seat in self.ready or self.due.get(seat, now) > now:
                continue
            action = self.driver.decide(seat)
            if action is None:
                self.waits[seat] = self.waits.get(seat, 0) + 1
                if self.waits[seat] >= PATIENCE:
                    self.ready.add(seat)
                self.due[seat] = now + self._think(4.0, 14.0)
            elif action.do == PASS or not self.driver.allowed(seat, action):
                self.ready.add(seat)
            else:
                self.acted[seat] = self.acted.get(seat, 0) + 1
                if self.acted[seat] >= MAX_ACTIONS_PER_PHASE:
                    self.ready.add(seat)
                self.due[seat] = now + self._think(4.0, 16.0)
                yield action
        if not self.people_done():
            self.settle_at = None
            return
        if self.settle_at is None:  # the people are done: the bots finish soon, together
            self.settle_at = now + self._think(0.5, 2.0)
        if self.settle_at > now:
            return
        yield from self._settle()

    def _settle(self) -> Iterator[Action]:
        """Last choices of the bots not yet done, then every bot passes in seat order."""
        for seat in self.seats:
            for _ in range(3):
                if not self._open(seat) or seat in self.ready:
                    break
                action = self.driver.decide(seat)
                if action is None or action.do == PASS or not self.driver.allowed(seat, action):
                    break
                yield action
            self.ready.add(seat)
        for seat in self.seats:
            if self._open(seat):
                yield Action(PASS, seat)
