"""The bot interface: a player that sees exactly what a human in its seat sees.

Shaped like PettingZoo's AEC loop (`observe(agent)` then `step(action)`): the
driver hands a bot the allow-list view of its own seat — `trusis.view(state,
seat)`, never the `GameState` — together with the events it may see that
happened since its last turn, and asks for one `trusis.Action`. A bot is
created for one seat with a seed and the table's language, and draws all its
chance from its own `random.Random`, so the same seed always plays the same
game (the balance lab depends on this to be reproducible across processes).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, cast

from trusis.rules.actions import PASS, SAY, Action
from trusis.rules.formats import EventData as EventData  # re-exported: the bot interface
from trusis.rules.formats import View as View

LANGUAGES: Final = ("en", "fr", "it")


@dataclass(frozen=True, slots=True)
class Clock:
    """How far the phase has gone, as `Bot.tick` last said: seconds since its start, and
    how long it lasts (the server may shorten it once the people are done)."""

    seconds: float
    length: float


class Bot(ABC):
    """One seat played by the computer.

    The driver calls `observe` then `act`, again and again within a phase,
    until the bot returns a `pass` (or the driver's per-phase cap forces one).
    `act` may also return None — "nothing to change for now, ask me again after
    the others" — which lets a bot react to later votes without cluttering the
    record; once a whole round brings no new action, the driver passes every
    waiting seat with its current choices (the table has settled). Subclasses
    implement `act`; they may override `observe` to fold events into their
    beliefs, but must call `super().observe`.
    """

    kind: ClassVar[str] = "bot"

    def __init__(self, seat: int, seed: int = 0, lang: str = "en") -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}; choose one of {', '.join(LANGUAGES)}")
        self.seat = seat
        self.seed = seed
        self.lang = lang
        # A string seed is hashed with SHA-512 by `random`: stable across runs and
        # processes, and distinct for every (kind, seed, seat).
        self.rng = random.Random(f"{self.kind}:{seed}:{seat}")
        # Empty until the first `observe` (the helpers below read it with .get).
        self.view: View = cast(View, {})
        self.clock: Clock | None = None

    def tick(self, seconds: float, length: float) -> None:
        """Where the phase stands in time: `seconds` since it began, out of `length`,
        both at a person's pace. A server's schedule (trusis.server.botplay) calls it
        before each turn, so a bot may pace itself as people do (not vote in the first
        seconds on a hunch, not answer a vote at once); the lab's driver never does — it
        has no clock — and `clock` stays None there, so a bot must play without it."""
        self.clock = Clock(seconds, length)

    def observe(self, view: View, events: Sequence[EventData]) -> None:
        """Receive this seat's current view and the events it saw since the last call."""
        self.view = view

    @abstractmethod
    def act(self) -> Action | None:
        """The next action of this seat (its `seat` may be left None); `pass` when done;
        None to wait for the others."""

    # -- helpers for subclasses, reading only the view ------------------------

    def legal(self, do: str) -> dict[str, Any] | None:
        """The entry of the view's `legal` list for action `do`, or None if not allowed now.

        A copy of the entry; its `targets` and `shown` are read-only (shared by every
        game in the process: docs/architecture.md, "Views are values")."""
        for entry in self.view.get("legal", ()):
            if entry["do"] == do:
                return dict(entry)
        return None

    def can(self, do: str) -> bool:
        """Whether `do` is in the view's legal list right now."""
        return self.legal(do) is not None

    def pass_(self) -> Action:
        """This seat's `pass`."""
        return Action(PASS, self.seat)

    def say(self, text: str, to: int | None = None) -> Action:
        """A public message, or a private one to seat `to`."""
        return Action(SAY, self.seat, text=text, to=to)


def concrete(view: View, seat: int) -> Iterator[Action]:
    """Every distinct game action the view allows (chat, leaving and withdrawals left out)."""
    for entry in view.get("legal", ()):
        do = entry["do"]
        if do in (SAY, "leave"):
            continue
        if do == PASS:
            yield Action(PASS, seat)
            continue
        for target in entry.get("targets", ()):
            if do == "illusion":
                for shown in entry.get("shown", ()):
                    yield Action(do, seat, target, shown)
            else:
                yield Action(do, seat, target)
