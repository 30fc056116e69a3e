"""The table: one person and bots around one `Game`.

`TableGame` is a `Game` that also keeps every event in a journal, so the screen
can show the person what happened — filtered by the engine's own audiences
(`Event.visible_to`), never by this code's judgement. `TableDriver` is the
bots package's `BotDriver` with one more move: `react`, a few rounds in which
the bots may answer the person's latest vote without being passed, so that
they can still change their minds until the person passes too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from trusis.actions import Action
from trusis.bots.base import Bot
from trusis.bots.driver import BotDriver
from trusis.bots.registry import create_bot
from trusis.events import Event
from trusis.game import Game

MAX_ROUNDS = 30
"""Rounds of one `react` call at most (each bot has a per-phase cap as well)."""


class TableGame(Game):
    """A game whose every event is also kept, in order, in `journal`."""

    def __init__(self, players: Sequence[str], seed: int = 0,
                 custom: Mapping[str, int] | None = None) -> None:
        super().__init__(players, seed, custom)
        self.journal: list[Event] = []

    def play(self, action: Action) -> list[Event]:
        events = super().play(action)
        self.journal.extend(events)
        return events


@dataclass
class TableDriver(BotDriver):
    """Runs the bot seats of a table where one seat is a person.

    `run_phase` (inherited) settles the phase: it is called once the person
    has passed (or is dead, or has left). `react` lets the bots answer while
    the person is still deciding.
    """

    _acted: dict[int, int] = field(default_factory=dict)
    _acted_phase: tuple[str, int] = ("", 0)

    def play_for(self, action: Action) -> list[Event]:
        """Play the person's action; the bots will see its events at their next turn."""
        events = self.game.play(action)
        self.feed(events)
        return events

    def react(self) -> None:
        """Bot rounds until no bot changes anything; a waiting bot is not passed."""
        state = self.game.state
        phase = (state.kind, state.number)
        if phase != self._acted_phase:
            self._acted_phase = phase
            self._acted = {}
        for _ in range(MAX_ROUNDS):
            changed = False
            for seat in sorted(self.bots):
                if not (state.running and state.alive[seat] and not state.passed[seat]
                        and not state.left[seat]):
                    continue
                if self._acted.get(seat, 0) >= self.max_actions:
                    continue  # enough for this phase: it waits for the others
                if self._turn(seat, self.bots[seat]):
                    self._acted[seat] = self._acted.get(seat, 0) + 1
                    changed = True
                if not state.running or (state.kind, state.number) != phase:
                    return
            if not changed:
                return


def seat_bots(kind: str, human: int, players: int, seed: int, lang: str) -> dict[int, Bot]:
    """A bot of `kind` in every seat but the person's; raises `UnknownBot`."""
    return {s: create_bot(kind, s, seed, lang) for s in range(1, players + 1) if s != human}
