"""Bots at a server table: when each bot thinks, at a human pace, on its view only.

The bots themselves are the bots package's, run through its driver's `decide`
(observe the seat's view and news, then choose), so a bot here knows exactly
what a bot of `trusis play` or the balance lab knows. What this module adds is
time: each bot thinks at its own moment, spread over the phase so that votes
take shape over the day instead of in one second, and before each turn it is
told where the phase stands (`Bot.tick`), so it can pace itself as people do. A
bot that is done holds its pass until every person has passed (R12: at night,
waiting must reveal no roles), and then all the bots pass in seat order — but not
in a blink: when the people are done early, the bots still take a while to talk
and vote (`READABLE`), so the person who passed reads a discussion, not a result.
A bot that keeps waiting rests until something new happens at the table. The
timer passes everybody anyway, so a bot never holds a phase up; with every living
person away, a seat kept for its player holds the phase to its timer (D43).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from trusis.bots.base import Bot
from trusis.bots.driver import MAX_ACTIONS_PER_PHASE, BotDriver
from trusis.bots.expert import ExpertBot
from trusis.rules.actions import PASS, Action
from trusis.table.table import Table

PATIENCE = 6
"""Times in a row a bot may answer "not yet" before it thinks less often (it rests), until
something new happens at the table."""
READABLE = {"day": (0.25, 10.0, 45.0), "night": (0.1, 3.0, 10.0)}
"""When the people are done early, the phase still lasts this share of its length, within
these bounds (seconds at a person's pace): what the bots say and do stays readable."""
SLOW_FIRST = (0.05, 0.4)
"""At a slow table (D65) a bot first drops in at this share of the phase, each at its own."""
SLOW_AWAY = (0.03, 0.12)
"""... and between its visits stays away this share of the phase ..."""
SLOW_LAST = 0.8
"""... never coming by on its own after this share of it (the deadline is not its moment) ..."""
SLOW_NEWS = (120.0, 1200.0)
"""... but news at the table (a whisper, a vote on it) brings it back within 2 to 20 minutes,
as a notification brings a person."""


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
    started: float = 0.0
    seen: dict[int, int] = field(default_factory=dict)
    """The length of each bot's stream at its last turn: what is new to it since."""
    awaited: Callable[[int], bool] = lambda seat: False
    """Whether a bot plays `seat` for its player, who may come back (D29): the room says."""
    thought: dict[int, tuple[tuple[str, int], Action | None]] = field(default_factory=dict)
    """Decisions made off the event loop (thinking.py), by phase: used by `step` in their
    phase only (a thought of a phase that ended meanwhile is dropped)."""
    offloop: bool = False
    """Set by a server that thinks off its loop: a bot that looks ahead never does it here
    (it plays as `normal` when it has no thought ready: thinking.py)."""
    slow: bool = False
    """A slow table's bots (D62, D65) visit the phase at moments of their own, as its people
    do, instead of staying at it from its first seconds."""

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
        self.started = now
        self.ready, self.acted, self.waits, self.settle_at = set(), {}, {}, None
        for seat in self.seats:
            self.due[seat] = now + (self._share(*SLOW_FIRST) if self._visits()
                                    else self._think(2.0, 10.0))

    def _visits(self) -> bool:
        """Whether the bots visit the phase (D65): a slow table's, at a person's pace."""
        return self.slow and self.pace > 0

    def _share(self, low: float, high: float) -> float:
        """A moment of the phase, as a share of its length, at the bots' pace."""
        return self.rng.uniform(low, high) * self.phase_seconds * self.pace

    def _away(self, now: float, low: float, high: float) -> float:
        """When a visiting bot comes by again: `low`-`high` seconds from now, or only on
        news or when the people are done, once the phase's last stretch has begun (D65)."""
        back = now + self.rng.uniform(low, high) * self.pace
        return back if back < self.started + SLOW_LAST * self.phase_seconds else math.inf

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

    def _tick(self, seat: int, now: float) -> None:
        """Tell the bot where the phase stands, at a person's pace (none at pace 0: tests
        that want every bot at once get bots that play as in the lab)."""
        if self.pace <= 0:
            return
        end = self.started + self.phase_seconds
        if self.settle_at is not None:
            end = min(end, self.settle_at)
        self.driver.bots[seat].tick((now - self.started) / self.pace,
                                    max(0.0, end - self.started) / self.pace)

    def _readable(self) -> float:
        """Seconds after the phase's start before the bots may finish it for people who
        are done (scaled by the pace: 0 at pace 0)."""
        share, low, high = READABLE["day" if self.table.state.kind == "day" else "night"]
        return self.pace * min(high, max(low, share * self.phase_seconds))

    def _wake(self, now: float) -> None:
        """A resting bot whose seat saw something new thinks again soon."""
        visits = self._visits()
        for seat in self.seats:
            if (visits or self.waits.get(seat, 0) >= PATIENCE) and seat in self.due \
                    and self.table.stream_length(seat) > self.seen.get(seat, 0):
                if visits:  # only what would reach a person away: a whisper, a vote on it
                    if self._called(seat):
                        self.due[seat] = min(self.due[seat], self._away(now, *SLOW_NEWS))
                    continue
                self.waits[seat] = PATIENCE - 2
                self.due[seat] = min(self.due[seat], now + self._think(1.0, 5.0))

    def _called(self, seat: int) -> bool:
        """A whisper to `seat`, or a vote on it, since the bot's last turn (D65). Marks the
        stream as looked at, so the same news calls it once."""
        seen = self.seen.get(seat, 0)
        self.seen[seat] = self.table.stream_length(seat)
        return any((e["code"] == "whispered" and e["params"].get("to") == seat)
                   or (e["code"] == "vote_cast" and e["params"].get("target") == seat)
                   for e in self.table.events_after(seat, seen))

    def next_due(self) -> float | None:
        """When `step` next has something to do (None: nothing until an event)."""
        times = [self.due[s] for s in self.seats if self._open(s) and s not in self.ready
                 and self.due.get(s, math.inf) < math.inf]
        if self.settle_at is not None:
            times.append(self.settle_at)
        return min(times) if times else None

    def step(self, now: float) -> Iterator[Action]:
        """The bot actions to play now, in order; the caller plays each before the next.

        Pulled one at a time, so each bot decides on the game as it is after the
        previous action was played.
        """
        self._wake(now)
        for seat in self.seats:
            if not self._open(seat) or seat in self.ready or self.due.get(seat, now) > now:
                continue
            action = self._decide(seat, now)
            self.seen[seat] = self.table.stream_length(seat)
            if action is None:
                self.waits[seat] = self.waits.get(seat, 0) + 1
                if self._visits():  # nothing more to do on this visit: away until the next
                    self.due[seat] = self._away(now, *(share * self.phase_seconds
                                                       for share in SLOW_AWAY))
                elif self.waits[seat] < PATIENCE:
                    self.due[seat] = now + self._think(4.0, 14.0)
                elif self.pace > 0:  # resting: it thinks less often, or sooner on news
                    self.due[seat] = now + self._think(12.0, 30.0)
                else:  # at pace 0 only news wakes it (a timed rest would spin)
                    self.due[seat] = math.inf
            elif action.do == PASS or not self.driver.allowed(seat, action):
                self.ready.add(seat)
            else:
                self.waits[seat] = 0
                self.acted[seat] = self.acted.get(seat, 0) + 1
                if self.acted[seat] >= MAX_ACTIONS_PER_PHASE:
                    self.ready.add(seat)
                self.due[seat] = now + self._think(4.0, 16.0)
                yield action
        if not self.people_done():
            self.settle_at = None
            return
        if self.settle_at is None:  # the people are done: the bots finish soon, together,
            # but not before what they say and do could be read
            self.settle_at = max(now + self._think(0.5, 2.0), self.started + self._readable())
        if self.settle_at > now:
            return
        yield from self._settle()

    def phase_key(self) -> tuple[str, int]:
        state = self.table.state
        return state.kind, state.number

    def due_now(self, now: float) -> list[int]:
        """The seats `step(now)` would ask to decide (those with no thought ready)."""
        return [s for s in self.seats if self._open(s) and s not in self.ready
                and self.due.get(s, now) <= now and s not in self.thought]

    def prepare(self, seat: int, now: float) -> Bot:
        """The bot at `seat` told the time and its news, ready to `act` elsewhere."""
        self._tick(seat, now)
        return self.driver.prepare(seat)

    def _decide(self, seat: int, now: float) -> Action | None:
        kept = self.thought.pop(seat, None)
        if kept is not None and kept[0] == self.phase_key():
            return self.driver.own(seat, kept[1])
        self._tick(seat, now)
        bot = self.driver.bots[seat]
        if not (self.offloop and isinstance(bot, ExpertBot)):
            return self.driver.decide(seat)
        bot.think = False  # never on the loop: it plays as `normal` this once
        try:
            return self.driver.decide(seat)
        finally:
            bot.think = True

    def _settle(self) -> Iterator[Action]:
        """Last choices of the bots not yet done, then every bot passes in seat order."""
        for seat in self.seats:
            for _ in range(3):
                if not self._open(seat) or seat in self.ready:
                    break
                action = self._decide(seat, self.settle_at or self.started)
                if action is None or action.do == PASS or not self.driver.allowed(seat, action):
                    break
                yield action
            self.ready.add(seat)
        for seat in self.seats:
            if self._open(seat):
                yield Action(PASS, seat)
