"""The statistics API for game code: init / set / inc by name (R62).

Mistakes are refused loudly, never coerced: an unknown name, a value of the wrong
type, or an `inc` on a statistic that was never initialised raises `StatsError`,
because a wrong number on the end screen is worse than a crash in a test. A
statistic never initialised stays unset and shows as "-" (R62); rows come out in
declaration order, not id order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from trusis.stats.declaration import PLAYER, TABLE, Declaration, StatDef, Value
from trusis.stats.display import labelled, text


class StatsError(ValueError):
    """Game code misused a statistic (unknown name, wrong type, not initialised)."""


class UnknownStatistic(StatsError):
    """The name is not declared in this group."""


class StatTypeError(StatsError, TypeError):
    """The value does not fit the declared type."""


class NotInitialised(StatsError):
    """`inc` on a statistic that was never initialised: init it first (R62)."""


def _checked(stat: StatDef, value: Any, what: str = "value") -> Value:
    """`value` as the declared type, or StatTypeError. Bools are never numbers here."""
    if stat.type == "bool":
        if isinstance(value, bool):
            return value
    elif not isinstance(value, bool):
        if stat.type == "int" and isinstance(value, int):
            return value
        if stat.type == "float" and isinstance(value, int | float):
            return float(value)
    raise StatTypeError(
        f"{stat.group} statistic {stat.name!r} is {stat.type}; "
        f"{what} {value!r} ({type(value).__name__}) does not fit"
    )


@dataclass(frozen=True, slots=True)
class Row:
    """One statistic as shown: id, name, translated label, value (labelled or "-")."""

    id: int
    name: str
    label: str
    value: Value | str
    text: str
    limited: bool

    def as_json(self) -> dict[str, Any]:
        """The `--json` form: id, name, label and value."""
        return {"id": self.id, "name": self.name, "label": self.label, "value": self.value}


class Sheet:
    """The values of one group for one game (the table) or for one seat (a player)."""

    def __init__(self, decl: Declaration, group: str) -> None:
        if group not in (TABLE, PLAYER):
            raise StatsError(f"unknown statistics group {group!r}")
        self.decl = decl
        self.group = group
        self._values: dict[str, Value] = {}

    def stat(self, name: str) -> StatDef:
        """The declaration of `name`, or UnknownStatistic."""
        stat = self.decl.find(self.group, name)
        if stat is None:
            raise UnknownStatistic(f"no {self.group} statistic is called {name!r}")
        return stat

    def init(self, name: str, value: Value) -> None:
        """Give `name` its starting value: from now on it shows, even if 0 (R62)."""
        self._values[name] = _checked(self.stat(name), value)

    def set(self, name: str, value: Value) -> None:
        """Set `name` to `value` (initialising it if needed)."""
        self._values[name] = _checked(self.stat(name), value)

    def inc(self, name: str, delta: int | float = 1) -> None:
        """Add `delta` to an initialised int or float statistic."""
        stat = self.stat(name)
        if stat.type == "bool":
            raise StatTypeError(f"{self.group} statistic {name!r} is bool and cannot be inc'd")
        step = _checked(stat, delta, "delta")
        if name not in self._values:
            raise NotInitialised(
                f"{self.group} statistic {name!r} was never initialised; init it before inc"
            )
        self._values[name] = self._values[name] + step

    def get(self, name: str) -> Value | None:
        """The value of `name`, or None while it is unset."""
        self.stat(name)
        return self._values.get(name)

    def is_set(self, name: str) -> bool:
        """Whether `name` was initialised or set."""
        self.stat(name)
        return name in self._values

    def by_id(self) -> dict[int, Value]:
        """The set values keyed by id: the form kept across games (R63)."""
        return {stat.id: self._values[stat.name]
                for stat in self.decl.group(self.group) if stat.name in self._values}

    def rows(self, lang: str = "en", limited: bool = True) -> list[Row]:
        """Every statistic in declaration order; `limited=False` hides limited ones."""
        return list(self._rows(self.decl.group(self.group), lang, limited))

    def _rows(self, stats: Iterable[StatDef], lang: str, limited: bool) -> Iterable[Row]:
        for stat in stats:
            if stat.limited and not limited:
                continue
            value = self._values.get(stat.name)
            yield Row(stat.id, stat.name, stat.display_name(lang),
                      labelled(self.decl, stat, value, lang),
                      text(self.decl, stat, value, lang), stat.limited)


class GameStats:
    """All statistics of one game: the table sheet and one sheet per seat."""

    def __init__(self, decl: Declaration, names: list[str]) -> None:
        self.decl = decl
        self.names = list(names)  # seat s is names[s - 1]
        self.table = Sheet(decl, TABLE)
        self.players: dict[int, Sheet] = {
            seat: Sheet(decl, PLAYER) for seat in range(1, len(names) + 1)
        }

    def player(self, seat: int) -> Sheet:
        """The sheet of `seat` (1-based)."""
        try:
            return self.players[seat]
        except KeyError:
            raise StatsError(f"there is no seat {seat} at this table") from None

    def init_players(self, name: str, value: Value) -> None:
        """Initialise `name` to `value` for every seat (BGA's initStat for all players)."""
        for sheet in self.players.values():
            sheet.init(name, value)

    def stored(self) -> dict[str, Any]:
        """The game's statistics keyed by id, as kept for aggregation (R63)."""
        return {
            "table": {str(k): v for k, v in self.table.by_id().items()},
            "players": [
                {"seat": seat, "name": self.names[seat - 1],
                 "stats": {str(k): v for k, v in sheet.by_id().items()}}
                for seat, sheet in self.players.items()
            ],
        }

    def as_json(self, lang: str = "en") -> dict[str, Any]:
        """The `trusis stats --json` document of one game, limited statistics included."""
        return {
            "table": [row.as_json() for row in self.table.rows(lang)],
            "players": {str(seat): [row.as_json() for row in sheet.rows(lang)]
                        for seat, sheet in self.players.items()},
        }
