"""A game together with its record: the unit the server, bots and CLI work with.

`GameState` is the position; `Game` adds the log of accepted actions, so any
game can be exported as a record and replayed to the same position.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from trusis.rules.actions import Action
from trusis.rules.engine import apply, new_game
from trusis.rules.errors import IllegalAction
from trusis.rules.events import Event
from trusis.rules.state import GameState
from trusis.table.record import Record


def bot_seats_of(raw: object, n: int) -> tuple[int, ...]:
    """The seats a bot holds from the start (D73), from a caller or a record's optional
    `bot_seats`: seat numbers of this table, in order; anything else is left out (an
    optional field of a record never keeps it from loading, as `started_at`)."""
    if not isinstance(raw, list | tuple):
        return ()
    return tuple(sorted({s for s in raw if type(s) is int and 1 <= s <= n}))


class Game:
    """A running or finished game and the record that produced it."""

    def __init__(self, players: Sequence[str], seed: int = 0,
                 custom: Mapping[str, int] | None = None,
                 deal: Sequence[str] | None = None, bot_seats: Sequence[int] = ()) -> None:
        self.state: GameState = new_game(players, seed, custom, deal)
        self.record = Record(
            # The names as new_game cleaned them (D9), so the record holds what was played.
            self.state.names[1:], seed, dict(custom) if custom is not None else None,
            list(self.state.roles[1:]), [],
        )
        seats = bot_seats_of(bot_seats, self.state.n)
        if seats:
            self.state.bot_seats = seats
            self.record.extra["bot_seats"] = list(seats)

    @classmethod
    def from_record(cls, record: Record) -> Game:
        """A game at the start of `record` (its actions are not played)."""
        return cls(record.players, record.seed, record.custom, record.roles(),
                   record.extra.get("bot_seats", ()))

    def play(self, action: Action) -> list[Event]:
        """Apply `action` and log it; raises `IllegalAction` (and logs nothing) if refused."""
        events = apply(self.state, action)
        self.record.actions.append(action)
        return events


@dataclass
class Refusal:
    """An action of a record that the rules refused, by its 0-based index."""

    index: int
    seat: int | None
    error: IllegalAction


@dataclass
class Replay:
    """The outcome of playing a record: the final state, refusals and every event."""

    record: Record
    state: GameState
    refused: list[Refusal] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def replay(record: Record) -> Replay:
    """Play every action of `record` in order; refused actions are noted, not fatal."""
    state = new_game(record.players, record.seed, record.custom, record.roles())
    result = Replay(record, state)
    for index, action in enumerate(record.actions):
        try:
            result.events.extend(apply(state, action))
        except IllegalAction as err:
            result.refused.append(Refusal(index, action.seat, err))
    return result


def replay_events(record: Record) -> list[Event]:
    """Every event of the game, internal ones included (for statistics)."""
    return replay(record).events

