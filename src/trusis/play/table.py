"""The table: one person and bots around one `Game`.

`TableGame` is the table layer's `Table` (its event log is the journal), so the
screen can show the person what happened — filtered by the engine's own audiences
(`Event.visible_to`), never by this code's judgement. `TableDriver` is the
bots package's `BotDriver`, driven through its mixed-table API (`react`, then
`settle`), with `play_for` to feed the person's own actions to the bots.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from trusis.bots.base import Bot
from trusis.bots.driver import BotDriver
from trusis.bots.registry import create_bot
from trusis.rules.actions import Action
from trusis.rules.events import Event
from trusis.table.table import Table

ROUNDS_PER_COMMAND = 1
"""Bot rounds after each of the person's commands: the table moves at the person's pace,
so the bots' votes come in a few at a time instead of all before the person has typed."""


class TableGame(Table):
    """The terminal game's table: its event log is the journal the screen reads."""

    def __init__(self, players: Sequence[str], seed: int = 0,
                 custom: Mapping[str, int] | None = None, person: int = 0) -> None:
        # Every seat but the person's is a bot's, and the person knows it (D73).
        bots = [s for s in range(1, len(players) + 1) if s != person] if person else []
        super().__init__(players, seed, custom, started_at=time.time(), bot_seats=bots)

    @property
    def journal(self) -> list[Event]:
        return self.log


@dataclass
class TableDriver(BotDriver):
    """Runs the bot seats of a table where one seat is a person.

    Uses the driver's mixed-table API: `react` after each of the person's commands
    (bots answer without being passed), `settle` once the person has passed, died
    or left.
    """

    clock: Callable[[], float | None] = field(default=time.time)

    def play_for(self, action: Action) -> list[Event]:
        """Play the person's action; the bots will see its events at their next turn."""
        return self.game.play(action, time.time())


def seat_bots(kind: str, human: int, players: int, seed: int, lang: str) -> dict[int, Bot]:
    """A bot of `kind` in every seat but the person's; raises `UnknownBot`."""
    return {s: create_bot(kind, s, seed, lang) for s in range(1, players + 1) if s != human}
