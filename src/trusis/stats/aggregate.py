"""Statistics across games, keyed by id (R63).

Each game is kept as `GameStats.stored()`: values by statistic id, never by name.
Aggregation reads those ids through the *current* declaration, so a statistic
renamed in `stats.json` (same id) keeps its whole history, and an id whose
statistic was deleted is simply ignored. Per player name it gives games, wins,
win rates by team and by role, and averages of the numeric statistics.

An unfinished game (no winning team yet) is named in `unfinished` and left out of
the wins and win rates: it counts as played, and in the averages, but not as decided.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from trusis.stats.declaration import PLAYER, TABLE, Declaration, StatDef, Value
from trusis.stats.display import UNSET, number, percent


@dataclass
class WinCount:
    """Games played, games decided (finished) and games won."""

    games: int = 0
    decided: int = 0
    wins: int = 0

    def add(self, won: Value | None) -> None:
        """Count one game; `won` is None while that game is unfinished."""
        self.games += 1
        if won is not None:
            self.decided += 1
            self.wins += int(bool(won))

    def rate(self) -> float | None:
        """Wins over finished games, or None when no game finished."""
        return None if self.decided == 0 else self.wins / self.decided

    def rate_text(self) -> str:
        return percent(self.wins, self.decided)

    def as_json(self) -> dict[str, Any]:
        return {"games": self.games, "wins": self.wins, "win_rate": self.rate()}


@dataclass
class Means:
    """Sums and counts of statistic values by id (unset values are not counted)."""

    sums: dict[int, float] = field(default_factory=dict)
    counts: dict[int, int] = field(default_factory=dict)

    def add(self, values: Mapping[int, Value]) -> None:
        for stat_id, value in values.items():
            self.sums[stat_id] = self.sums.get(stat_id, 0.0) + float(value)
            self.counts[stat_id] = self.counts.get(stat_id, 0) + 1

    def mean(self, stat_id: int) -> float | None:
        count = self.counts.get(stat_id, 0)
        return None if count == 0 else self.sums[stat_id] / count


@dataclass(frozen=True, slots=True)
class MeanRow:
    """One averaged statistic: id, current name, translated label, mean (or "-")."""

    id: int
    name: str
    label: str
    value: float | str
    text: str
    limited: bool

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "label": self.label, "value": self.value}


@dataclass
class PlayerHistory:
    """Everything aggregated for one player name."""

    name: str
    overall: WinCount = field(default_factory=WinCount)
    by_team: dict[int, WinCount] = field(default_factory=dict)
    by_role: dict[int, WinCount] = field(default_factory=dict)
    means: Means = field(default_factory=Means)


def numeric(decl: Declaration, stat: StatDef) -> bool:
    """Averaged statistics: floats, bools (as a rate) and ints without value labels."""
    return stat.type != "int" or stat.id not in decl.value_labels


def _ids(raw: Any) -> dict[int, Value]:
    """Stored `{"<id>": value}` as ints, dropping anything that is not a value."""
    out: dict[int, Value] = {}
    if isinstance(raw, Mapping):
        for key, value in raw.items():
            if isinstance(value, int | float) and str(key).isdigit():
                out[int(key)] = value
    return out


class Aggregate:
    """The history of many games, read through one declaration."""

    def __init__(self, decl: Declaration) -> None:
        self.decl = decl
        self.games = 0
        self.unfinished: list[str] = []
        """The games without a winner yet, by label (the record's path), in order."""
        self.table = Means()
        self.players: dict[str, PlayerHistory] = {}

    def _id(self, name: str) -> int | None:
        stat = self.decl.find(PLAYER, name)
        return None if stat is None else stat.id

    def _numeric_ids(self, group: str) -> set[int]:
        return {s.id for s in self.decl.group(group) if numeric(self.decl, s)}

    @property
    def finished(self) -> int:
        return self.games - len(self.unfinished)

    def add(self, game: Mapping[str, Any], label: str | None = None) -> None:
        """Add one stored game (`GameStats.stored()`), named `label` if it is unfinished."""
        self.games += 1
        table_ids = self._numeric_ids(TABLE)
        table_values = _ids(game.get("table"))
        winner = self.decl.find(TABLE, "winning_team")
        finished = winner is None or winner.id in table_values
        if not finished:
            self.unfinished.append(label or f"#{self.games}")
        self.table.add({k: v for k, v in table_values.items() if k in table_ids})
        player_ids = self._numeric_ids(PLAYER)
        role_id, team_id, won_id = self._id("role"), self._id("team"), self._id("won")
        for entry in game.get("players", []):
            values = _ids(entry.get("stats"))
            name = str(entry.get("name"))
            history = self.players.setdefault(name, PlayerHistory(name))
            won = values.get(won_id) if won_id is not None and finished else None
            history.overall.add(won)
            for key, split in ((team_id, history.by_team), (role_id, history.by_role)):
                value = values.get(key) if key is not None else None
                if isinstance(value, int) and not isinstance(value, bool):
                    split.setdefault(value, WinCount()).add(won)
            history.means.add({k: v for k, v in values.items() if k in player_ids})

    def label(self, name: str, value: int, lang: str) -> str:
        """The label of a team or role value (by the current declaration)."""
        stat = self.decl.find(PLAYER, name)
        label = None if stat is None else self.decl.value_label(stat, value, lang)
        return str(value) if label is None else label

    def mean_rows(self, group: str, means: Means, lang: str = "en",
                  limited: bool = True) -> list[MeanRow]:
        """Averages of the numeric statistics of `group`, in declaration order."""
        rows = []
        for stat in self.decl.group(group):
            if not numeric(self.decl, stat) or (stat.limited and not limited):
                continue
            mean = means.mean(stat.id)
            if mean is None:
                value: float | str = UNSET
                shown = UNSET
            elif stat.type == "bool":
                value = mean
                shown = f"{round(100 * mean)}%"
            else:
                value = mean
                shown = number(mean)
            rows.append(MeanRow(stat.id, stat.name, stat.display_name(lang), value, shown,
                                stat.limited))
        return rows

    def as_json(self, lang: str = "en") -> dict[str, Any]:
        """The `trusis stats --json` document for several records."""
        players: dict[str, Any] = {}
        for name, h in self.players.items():
            players[name] = {
                **h.overall.as_json(),
                "finished": h.overall.decided,
                "by_team": [{"team": self.label("team", k, lang), **c.as_json()}
                            for k, c in sorted(h.by_team.items())],
                "by_role": [{"role": self.label("role", k, lang), **c.as_json()}
                            for k, c in sorted(h.by_role.items())],
                "averages": [r.as_json() for r in self.mean_rows(PLAYER, h.means, lang)],
            }
        return {
            "games": self.games,
            "finished": self.finished,
            "unfinished": list(self.unfinished),
            "table": [r.as_json() for r in self.mean_rows(TABLE, self.table, lang)],
            "players": players,
        }


def aggregate(games: Iterable[Mapping[str, Any]], decl: Declaration,
              labels: Iterable[str] | None = None) -> Aggregate:
    """Aggregate stored games by statistic id through `decl` (R63); `labels` name the
    games (their records' paths) so that the unfinished ones can be listed."""
    result = Aggregate(decl)
    names = iter(labels) if labels is not None else None
    for game in games:
        result.add(game, next(names, None) if names is not None else None)
    return result
