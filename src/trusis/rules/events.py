"""Events: what happened, each with the audience decided when it was made.

The engine returns events; it never delivers them. An event's audience is
fixed at birth — everyone, a list of seats (one seat, a private conversation,
the TRUSIS), or nobody (internal facts kept for statistics and records) — so
delivery is a lookup, never a judgement made later (docs/architecture.md, "Audiences").

`Event.seq` numbers every event of the game, hidden ones included, so it is
for the server's log only: a client that saw gaps in it would learn that
something it cannot see happened (a whisper, a sweep, a TRUSIS vote — R50).
Each seat gets its own stream numbering instead, defined once: the count of
events that seat may see, `GameState.stream_position` (the `seq` of its view);
`Table.events_after` numbers the events of its stream 1, 2, … up to that count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from trusis.rules.formats import Audience

PUBLIC: Final = "public"
SEATS: Final = "seats"
INTERNAL: Final = "internal"


@dataclass(slots=True)
class Event:
    """One thing that happened, numbered in the game's sequence.

    Treat it as read-only; it is not frozen only because frozen dataclasses
    cost four times as much to create, and the engine makes millions of them.
    """

    seq: int
    code: str
    params: dict[str, Any]
    audience: Audience = PUBLIC
    seats: tuple[int, ...] = ()

    # Written out, not generated: mypyc compiles this one to C, while the dataclass's
    # own __init__ would run as Python code (the engine makes an event per action).
    def __init__(self, seq: int, code: str, params: dict[str, Any],
                 audience: Audience = PUBLIC, seats: tuple[int, ...] = ()) -> None:
        self.seq = seq
        self.code = code
        self.params = params
        self.audience = audience
        self.seats = seats

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Copies go through `__init__` (a compiled class has no argument-free one)."""
        return (Event, (self.seq, self.code, self.params, self.audience, self.seats))

    def visible_to(self, seat: int | None) -> bool:
        """Whether `seat` (None for a spectator) may receive this event."""
        if self.audience == PUBLIC:
            return True
        return self.audience == SEATS and seat is not None and seat in self.seats

