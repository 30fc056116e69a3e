"""Events: what happened, each with the audience decided when it was made.

The engine returns events; it never delivers them. An event's audience is
fixed at birth — everyone, a list of seats (one seat, a private conversation,
the TRUSIS), or nobody (internal facts kept for statistics and records) — so
delivery is a lookup, never a judgement made later (DESIGN.md, "Audiences").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

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
    audience: str = PUBLIC
    seats: tuple[int, ...] = ()

    def visible_to(self, seat: int | None) -> bool:
        """Whether `seat` (None for a spectator) may receive this event."""
        if self.audience == PUBLIC:
            return True
        return self.audience == SEATS and seat is not None and seat in self.seats

    def as_dict(self) -> dict[str, Any]:
        """The event as a client receives it (audience and internals left out)."""
        return {"seq": self.seq, "code": self.code, "params": self.params}


def visible_events(events: list[Event], seat: int | None) -> list[dict[str, Any]]:
    """The events of `events` that `seat` may see, as client dictionaries."""
    return [e.as_dict() for e in events if e.visible_to(seat)]
