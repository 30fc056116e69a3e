"""Running bots on a `Table`: the only code that turns game state into bot input.

The driver owns the boundary the design asks for: it builds each bot's input
with `trusis.view(state, seat)` and the visible events, never handing over the
`GameState`. It plays in rounds — every bot seat that has not passed gets one
turn per round, in seat order — so that bots can react to each other's votes
(the TRUSIS converge on one kill, a day vote can gather a majority). A bot
may wait (return None); when a whole round brings no action but passes and
waits, every waiting seat is passed with its choices — the table settled. A buggy
bot cannot hang or corrupt a game: an action the engine refuses is logged and
the seat passes, and a seat that keeps acting is passed after `max_actions`
actions in one phase. The driver never uses the timer (`timeout`), so every
game it plays is a record of ordinary seat actions.

At a mixed table (people and bots, e.g. `trusis play` or a server) the caller
uses `react` after each person's action — bot rounds that never pass anyone,
so bots can still answer a vote the person is about to change — and `settle`
once it may be over: it finishes the phase only when every seat that is not a
bot has passed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from trusis.bots.base import Bot
from trusis.rules.actions import LEAVE, PASS, REPLACE, STAFF_DRAW, TIMEOUT, Action
from trusis.rules.errors import IllegalAction
from trusis.rules.formats import EventData, View
from trusis.rules.views import view
from trusis.table.table import Table

log = logging.getLogger("trusis.bots")

MAX_ACTIONS_PER_PHASE = 12
"""Default cap on one seat's actions (chat included) in one phase."""

_FORBIDDEN = frozenset({TIMEOUT, STAFF_DRAW, LEAVE, REPLACE})


@dataclass(frozen=True)
class Refused:
    """A bot action the driver did not play, and why (the seat then passed)."""

    seat: int
    action: Action
    reason: str


@dataclass
class BotDriver:
    """Plays the seats in `bots` on `game`, one phase at a time.

    Every bot reads its seat's stream from the table (`Table.events_after`), so
    actions made by other callers (people, a server, timers) reach the bots with
    no extra bookkeeping; `clock` stamps the bots' own actions in the record.
    `refused` and `capped` keep what went wrong, for tests and
    for the balance lab's report.
    """

    game: Table
    bots: Mapping[int, Bot]
    max_actions: int = MAX_ACTIONS_PER_PHASE
    refused: list[Refused] = field(default_factory=list)
    capped: list[tuple[int, dict[str, object]]] = field(default_factory=list)
    actions: int = 0
    clock: Callable[[], float | None] = field(default=lambda: None)
    _cursor: dict[int, int] = field(default_factory=dict)
    _acted: dict[int, int] = field(default_factory=dict)
    _acted_phase: tuple[str, int] = ("", 0)
    _ready: set[int] = field(default_factory=set)  # bots whose pass waits for settle()

    def _news(self, seat: int, seen: View) -> list[EventData]:
        """The events `seat` may see since its last turn, read from the table's stream
        for that seat, so the last one carries the `seq` of the view it comes with."""
        news = self.game.events_after(seat, self._cursor.get(seat, 0))
        self._cursor[seat] = int(seen["seq"])
        return news

    def _play(self, action: Action) -> None:
        self.game.play(action, self.clock())
        self.actions += 1

    def decide(self, seat: int) -> Action | None:
        """One observe/act exchange with the bot at `seat`: its next action, unplayed.

        For a caller that applies actions itself (the server, which stores each
        action before the next): the bot sees its seat's view and news only. An
        action without a seat gets this one.
        """
        return self.own(seat, self.prepare(seat).act())

    def prepare(self, seat: int) -> Bot:
        """The first half of `decide`: the bot at `seat` observes its view and news.
        Its `act` may then run elsewhere (a server thinks off its event loop): a bot
        reads nothing but what it observed."""
        seen = view(self.game.state, seat)
        bot = self.bots[seat]
        bot.observe(seen, self._news(seat, seen))
        return bot

    @staticmethod
    def own(seat: int, action: Action | None) -> Action | None:
        """`action` as an action of `seat` (a bot may leave its seat out)."""
        if action is not None and action.seat is None:
            action = Action(action.do, seat, action.target, action.shown, action.text,
                            action.to, action.by)
        return action

    def allowed(self, seat: int, action: Action) -> bool:
        """Whether a bot may even ask for `action` (its own seat; no leave, replace, timeout)."""
        return action.seat == seat and action.do not in _FORBIDDEN

    def _turn(self, seat: int, bot: Bot, defer_pass: bool = False) -> bool:
        """One observe/act exchange with `bot`, and its action applied (or a pass).

        With `defer_pass`, a pass is not played but remembered for `settle`.
        Returns True when the bot did something other than waiting or passing.
        """
        action = self.decide(seat)
        if action is None:
            return False
        if defer_pass and action.do == PASS and action.seat == seat:
            self._ready.add(seat)
            return False
        if not self.allowed(seat, action):
            self._refuse(seat, action, "a bot may only act for its own seat, and not "
                         "leave, replace or time out")
            return False
        try:
            self._play(action)
        except IllegalAction as err:
            self._refuse(seat, action, str(err))
            return False
        return action.do != PASS

    def _refuse(self, seat: int, action: Action, reason: str) -> None:
        # Neither the action nor the reason is logged: they name a power, i.e. the bot's
        # role, which no log may hold before the end (docs/deploy.md, "Logs"); `refused`
        # keeps them for tests.
        log.debug("bot at seat %d: an action was refused; the seat passes", seat)
        self.refused.append(Refused(seat, action, reason))
        state = self.game.state
        if state.running and state.alive[seat] and not state.passed[seat] and not state.left[seat]:
            self._play(Action(PASS, seat))

    def run_phase(self) -> bool:
        """Let the bots act until the phase ends, the game ends, or every bot seat passed.

        Returns True when the phase (or the game) ended.
        """
        state = self.game.state
        if not state.running:
            return True
        phase = (state.kind, state.number)
        seats = sorted(self.bots)
        counts = dict.fromkeys(seats, 0)
        first = True
        while True:
            waiting = []
            changed = False
            for seat in seats:
                if not (state.alive[seat] and not state.passed[seat] and not state.left[seat]):
                    continue
                if counts[seat] >= self.max_actions:
                    self.capped.append((seat, state.phase()))
                    log.debug("bot at seat %d hit the cap of %d actions in %s %d; it passes",
                                seat, self.max_actions, *phase)
                    self._play(Action(PASS, seat))
                else:
                    counts[seat] += 1
                    changed = self._turn(seat, self.bots[seat]) or changed
                    waiting.append(seat)
                if not state.running or (state.kind, state.number) != phase:
                    return True
            if not waiting:
                return False
            if not changed and first:  # a first round of waits: let them see that
                first = False
                continue
            first = False
            if not changed:  # the table settled: everyone still waiting passes
                for seat in waiting:
                    if state.alive[seat] and not state.passed[seat] and not state.left[seat]:
                        self._play(Action(PASS, seat))
                        if not state.running or (state.kind, state.number) != phase:
                            return True
                return False

    def _open(self, seat: int) -> bool:
        state = self.game.state
        return bool(state.running and state.alive[seat] and not state.passed[seat]
                    and not state.left[seat])

    def react(self, rounds: int = 1) -> bool:
        """Up to `rounds` bot rounds in which no bot passes.

        For mixed tables: call it after each action of a person, so that bots answer
        while that person may still change their mind. A bot that wants to pass is
        held until `settle`: when bots passed as soon as they were done, the seats
        still deciding at night would be the ones with powers — the TRUSIS above all —
        and R12 asks that waiting reveal no roles. Stops early when a round brings no
        action; a bot that has made `max_actions` actions this phase only waits.
        Returns True when the phase (or the game) ended.
        """
        state = self.game.state
        phase = (state.kind, state.number)
        if phase != self._acted_phase:
            self._acted_phase = phase
            self._acted = {}
            self._ready = set()
        for _ in range(rounds):
            changed = False
            for seat in sorted(self.bots):
                if (not self._open(seat) or seat in self._ready
                        or self._acted.get(seat, 0) >= self.max_actions):
                    continue
                if self._turn(seat, self.bots[seat], defer_pass=True):
                    self._acted[seat] = self._acted.get(seat, 0) + 1
                    changed = True
                if not state.running or (state.kind, state.number) != phase:
                    return True
            if not changed:
                break
        return False

    def take_over(self, seat: int, bot: Bot) -> None:
        """Seat `bot` in `seat` after its player left and the seat was replaced (R53).

        The bot first observes everything that seat may see since the driver started,
        so it keeps the seat's knowledge as R53 asks.
        """
        self.bots = {**self.bots, seat: bot}
        self._cursor[seat] = 0

    def people_done(self) -> bool:
        """Whether every alive seat without a bot has passed or left (R11, R52)."""
        return not any(self._open(s) for s in range(1, self.game.state.n + 1)
                       if s not in self.bots)

    def settle(self) -> bool:
        """Once every non-bot seat has passed or left, let the bots finish their choices
        and pass them all together in seat order, so that the order of passes tells
        nothing (R12); until then do nothing. Returns True when the phase (or the game)
        ended."""
        state = self.game.state
        if not state.running:
            return True
        if not self.people_done():
            return False
        phase = (state.kind, state.number)
        if self.react(self.max_actions):
            return True
        for seat in sorted(self.bots):
            if self._open(seat):
                self._play(Action(PASS, seat))
                if not state.running or (state.kind, state.number) != phase:
                    return True
        return not state.running or (state.kind, state.number) != phase

    def run_game(self, max_phases: int = 1000) -> None:
        """Run phases until the game ends; stops early if the bots alone cannot end a phase."""
        for _ in range(max_phases):
            if not self.run_phase() or not self.game.state.running:
                return

    def finish(self) -> None:
        """Show every bot its final view and remaining events (e.g. the end of the game)."""
        for seat, bot in sorted(self.bots.items()):
            seen = view(self.game.state, seat)
            bot.observe(seen, self._news(seat, seen))


def run_phase(game: Table, bots: Mapping[int, Bot],
              max_actions: int = MAX_ACTIONS_PER_PHASE) -> BotDriver:
    """Run `bots` (seat -> bot) on `game` until the phase or the game ends; return the driver.

    For repeated phases keep one `BotDriver`, so that bots receive every event once.
    """
    driver = BotDriver(game, bots, max_actions)
    driver.run_phase()
    return driver


def play_game(game: Table, bots: Mapping[int, Bot],
              max_actions: int = MAX_ACTIONS_PER_PHASE) -> BotDriver:
    """Play `game` to its end with a bot in every seat given; return the driver."""
    driver = BotDriver(game, bots, max_actions)
    driver.run_game()
    return driver
