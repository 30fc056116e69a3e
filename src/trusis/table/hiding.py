"""Chat lines a moderator hid, and how each reader reads them (issue 38, D71).

A hidden line stays in the game: its action stays in the record and its event in the log,
so the game replays exactly and every stream keeps its numbers. What changes is what a
reader is given of it, decided here and applied where every byte to a seat is built
(`Table.events_json`, `events_after`, `snapshot`; a record's copy, `masked_record`):

- everyone but staff and its writer reads the placeholder text, `hidden: true`, no reason;
- its writer reads their own text, `hidden: true` and the moderator's `reason`;
- staff read the text, `hidden: true` and the `reason`; a staff member who watches (no seat,
  so no hidden fact of the game is theirs to keep) also reads each line's `line`: the
  record's step just after it, which names it to the moderation API.

A line is named by that step (its `say` action's index in the record + 1), as a report's
excerpt names it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from trusis.rules.actions import SAY, Action
from trusis.table.record import Record

HIDDEN_TEXT: Final = "(hidden by a moderator)"
"""What a hidden line says to those who may not read it: a text, so that a record whose
lines are masked still replays (an empty message would be refused)."""


@dataclass(frozen=True, slots=True)
class Hide:
    """Why a line is hidden, and who wrote it (a player's id, or None: a bot's line)."""

    reason: str
    writer: str | None


@dataclass(slots=True)
class Hides:
    """The hidden lines of one place (a game's, by step; a waiting room's, by number)."""

    lines: dict[int, Hide] = field(default_factory=dict)

    def replace(self, lines: Iterable[tuple[int, Hide]]) -> None:
        self.lines = dict(lines)

    def set(self, number: int, hide: Hide | None) -> None:
        if hide is None:
            self.lines.pop(number, None)
        else:
            self.lines[number] = hide


@dataclass(frozen=True, slots=True)
class Reader:
    """Who reads a game's lines: `player` (their own hidden lines read as written),
    `staff` (every hidden line read as written), `ids` (each line's step: staff who
    watch)."""

    hides: Hides
    player: str | None = None
    staff: bool = False
    ids: bool = False

    @property
    def active(self) -> bool:
        """Whether any line reads otherwise than as written for everyone."""
        return self.ids or bool(self.hides.lines)

    def line(self, fields: Mapping[str, Any], number: int) -> dict[str, Any] | None:
        """A line's fields (an event's `params`, a view's chat line) as this reader reads
        them, or None when they read it as everyone does."""
        hide = self.hides.lines.get(number)
        if hide is None:
            return {**fields, "line": number} if self.ids else None
        if self.staff or (self.player is not None and self.player == hide.writer):
            out = {**fields, "hidden": True, "reason": hide.reason}
        else:
            out = {**fields, "text": HIDDEN_TEXT, "hidden": True}
        if self.ids:
            out["line"] = number
        return out


def masked_record(record: Record, hides: Mapping[int, Hide], viewer: str | None) -> Record:
    """A copy of `record` whose hidden lines say the placeholder, but those `viewer` wrote:
    the same actions in the same places, so it replays to the same game (docs/record.md)."""
    actions = list(record.actions)
    for step, hide in hides.items():
        if 0 < step <= len(actions) and actions[step - 1].do == SAY and \
                (viewer is None or viewer != hide.writer):
            said = actions[step - 1]
            actions[step - 1] = Action(SAY, said.seat, text=HIDDEN_TEXT, to=said.to, by=said.by)
    return Record(record.players, record.seed, record.custom, record.deal, actions,
                  dict(record.extra), list(record.times))
