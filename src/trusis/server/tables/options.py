"""A table's options, checked with the engine's own setup rules (R1, R3–R6)."""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, fields
from typing import Any

from trusis.rules.i18n import LANGUAGES
from trusis.rules.roles import MAX_PLAYERS, MIN_PLAYERS
from trusis.rules.setup import check_custom_set, check_player_count, deal_roles
from trusis.rules.state import COMPOSITION_ORDER

DAY_SECONDS = (30, 3600)
NIGHT_SECONDS = (15, 1800)
GRACE_SECONDS = (5, 600)
SLOW_DAY_SECONDS = (3600, 2 * 86400)
"""A slow table's day (D62): one hour to two days."""
SLOW_NIGHT_SECONDS = (3600, 86400)
"""A slow table's night (D62): one hour to a day."""
SLOW_GRACE_AT_LEAST = 86400
"""A slow table's grace period (R52) is never shorter than a day (D63): nobody is
replaced for sleeping, nor for a day at work."""
COMPOSITIONS_KEPT = 1024
"""Sets whose composition is kept made (standard ones at every size, and custom ones)."""


@dataclass(frozen=True)
class TableOptions:
    """What the host chose. `custom` None is the standard set (R2)."""

    seats: int = 8
    custom: dict[str, int] | None = None
    day_seconds: int = 180
    night_seconds: int = 90
    private: bool = False
    bots_take_over: bool = True
    grace_seconds: int = 60
    lang: str = "en"
    """The table's language: the one its host's page had. Its bots speak it (docs/bots.md),
    and the lobby shows it."""
    slow: bool = False
    """A slow game (D62): phases of hours and days, played by dropping in. A table
    option, not another server: every other rule stays as it is."""

    def day_bounds(self) -> tuple[int, int]:
        return SLOW_DAY_SECONDS if self.slow else DAY_SECONDS

    def night_bounds(self) -> tuple[int, int]:
        return SLOW_NIGHT_SECONDS if self.slow else NIGHT_SECONDS

    def grace(self) -> float:
        """R52's grace period, in seconds: the host's at a real-time table; at a slow one
        (D63) a day, or a whole day and night of the table when that is longer, so that a
        player who drops in once a phase never meets it (`grace_seconds` is not used)."""
        if not self.slow:
            return float(self.grace_seconds)
        return float(max(SLOW_GRACE_AT_LEAST, self.day_seconds + self.night_seconds))

    def check(self) -> None:
        """Raise `SetupError` (R1, R4–R6: the engine's codes) for a table that cannot start."""
        check_player_count(self.seats)
        if self.custom is not None:
            check_custom_set(self.seats, self.custom)
        self.deal(0)  # R6 is checked on a deal: its composition does not depend on the seed

    def deal(self, seed: int) -> list[str]:
        return deal_roles(self.seats, seed, self.custom)

    def composition(self) -> dict[str, int]:
        """The roles this table will deal, by count (public, like every composition)."""
        custom = None if self.custom is None else tuple(sorted(self.custom.items()))
        return dict(_composition(self.seats, custom))

    def set_json(self) -> dict[str, Any]:
        return {"standard": True} if self.custom is None else {"custom": dict(self.custom)}

    def public(self) -> dict[str, Any]:
        """The options as the API shows them: `set` in place of `custom`. Not `asdict`,
        which copies deeply: every table's options are in every listing."""
        data = {name: getattr(self, name) for name in _PUBLIC_FIELDS}
        data["set"] = self.set_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TableOptions:
        custom = data.get("set", {}).get("custom")
        return cls(seats=int(data["seats"]), custom=dict(custom) if custom is not None else None,
                   day_seconds=int(data["day_seconds"]), night_seconds=int(data["night_seconds"]),
                   private=bool(data["private"]), bots_take_over=bool(data["bots_take_over"]),
                   grace_seconds=int(data["grace_seconds"]),
                   lang=_language(data.get("lang")),  # tables made before it: English
                   slow=bool(data.get("slow", False)))  # and real-time (D62)



def _language(value: Any) -> str:
    return value if isinstance(value, str) and value in LANGUAGES else "en"


_PUBLIC_FIELDS = tuple(item.name for item in fields(TableOptions) if item.name != "custom")


@functools.lru_cache(maxsize=COMPOSITIONS_KEPT)
def _composition(seats: int, custom: tuple[tuple[str, int], ...] | None
                 ) -> tuple[tuple[str, int], ...]:
    """A set's composition, by a deal (R6 is checked on one), made once per set: every
    table of the lobby's listing and every `table` message shows it, and a deal seeds and
    shuffles (two thirds of a listing's CPU at 200 open tables)."""
    try:
        counts = Counter(deal_roles(seats, 0, dict(custom) if custom is not None else None))
    except ValueError:
        return ()
    return tuple((role, counts[role]) for role in COMPOSITION_ORDER if counts[role])


__all__ = ["MAX_PLAYERS", "MIN_PLAYERS", "TableOptions"]
