"""Events: what happened, each with the audience decided when it was made.

The engine returns events; it never delivers them. An event's audience is
fixed at birth — everyone, a list of seats (one seat, a private conversation,
the TRUSIS), or nobody (internal facts kept for statistics and records) — so
delivery is a lookup, never a judgement made later (docs/architecture.md, "Audiences").

`Event.seq` numbers every event of the game, hidden ones included, so it is
for the server's log only: a client that saw gaps in it would learn that
something it cannot see happened (a whisper, a sweep, a TRUSIS vote — R50).
Each seat gets its own stream numbering instead: `stream` below, and the
`seq` of `views.view`, count only the events that seat may see.
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

    def visible_to(self, seat: int | None) -> bool:
        """Whether `seat` (None for a spectator) may receive this event."""
        if self.audience == PUBLIC:
            return True
        return self.audience == SEATS and seat is not None and seat in self.seats

    def as_dict(self) -> dict[str, Any]:
        """The event's content for a client: code and parameters, never the global seq."""
        return {"code": self.code, "params": self.params}


def stream(events: list[Event], seat: int | None, start: int) -> list[dict[str, Any]]:
    """The events `seat` may see, numbered in that seat's own stream after `start`.

    `start` is the seat's stream position before these events (the `seq` of its
    last view), so a reconnecting client can ask for what follows its number.
    """
    visible = [e.as_dict() for e in events if e.visible_to(seat)]
    for number, data in enumerate(visible, start + 1):
        data["seq"] = number
    return visible
