"""The statistics declaration (`stats.json`, R60): load it and validate it (R61).

Statistics are data, not code, in the shape Board Game Arena uses: a `table` group
(one value per game), a `player` group (one value per seat) and `value_labels` by
id. Validation runs when the program starts, and every violation stops it with a
message naming the statistic and the rule, because a silently wrong declaration
corrupts every game's history, which is keyed by id (R63).

Translations live inline: each display name and label is `{"en": …, "fr": …, "it": …}`.
BGA marks English strings for an external catalogue; here one entry holds everything
about a statistic, so a statistic cannot be added without its three translations —
the validator checks that at start — and nobody has to keep four files in step.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from trusis.rules.i18n import LANGUAGES

TABLE: Final = "table"
PLAYER: Final = "player"
GROUPS: Final = (TABLE, PLAYER)
TYPES: Final = frozenset({"int", "float", "bool"})
MIN_ID: Final = 10
LIMITED: Final = "limited"

_NAME = re.compile(r"[A-Za-z0-9_]+")
_STAT_KEYS: Final = frozenset({"id", "name", "type", "display"})
_TOP_KEYS: Final = frozenset({TABLE, PLAYER, "value_labels"})

Value = int | float | bool
Translations = dict[str, str]


class StatsDeclarationError(ValueError):
    """A declaration that breaks R60/R61; the message names the statistic and the rule."""


@dataclass(frozen=True, slots=True)
class StatDef:
    """One declared statistic."""

    group: str
    name: str
    id: int
    label: Translations
    type: str
    limited: bool = False

    def display_name(self, lang: str = "en") -> str:
        """The translated display name (English when `lang` is unknown)."""
        return self.label.get(lang, self.label["en"])


@dataclass(frozen=True, slots=True)
class Declaration:
    """A validated declaration: both groups in declaration order, and the labels."""

    table: tuple[StatDef, ...]
    player: tuple[StatDef, ...]
    value_labels: dict[int, dict[int, Translations]]

    def group(self, group: str) -> tuple[StatDef, ...]:
        """The statistics of `group` ("table" or "player"), in declaration order."""
        return self.table if group == TABLE else self.player

    def find(self, group: str, name: str) -> StatDef | None:
        """The statistic called `name` in `group`, or None."""
        for stat in self.group(group):
            if stat.name == name:
                return stat
        return None

    def by_id(self, group: str, stat_id: int) -> StatDef | None:
        """The statistic with `stat_id` in `group`, or None (R63: history is keyed by id)."""
        for stat in self.group(group):
            if stat.id == stat_id:
                return stat
        return None

    def value_label(self, stat: StatDef, value: Value, lang: str = "en") -> str | None:
        """The label of an int value of `stat`, or None when it has no label."""
        if stat.type != "int" or isinstance(value, bool) or not isinstance(value, int):
            return None
        labels = self.value_labels.get(stat.id, {}).get(value)
        if labels is None:
            return None
        return labels.get(lang, labels["en"])


def _where(group: str, name: str, stat_id: Any = None) -> str:
    suffix = f" (id {stat_id})" if isinstance(stat_id, int) else ""
    return f"stats.json: {group} statistic {name!r}{suffix}"


def _translations(value: Any, where: str, what: str) -> Translations:
    """Check a `{"en", "fr", "it"}` object of non-empty strings."""
    if not isinstance(value, dict):
        raise StatsDeclarationError(
            f"{where}: {what} must be an object with {', '.join(LANGUAGES)} texts"
        )
    for lang in LANGUAGES:
        text = value.get(lang)
        if not isinstance(text, str) or not text.strip():
            raise StatsDeclarationError(
                f"{where}: {what} must have a non-empty {lang!r} translation"
            )
    extra = sorted(set(value) - set(LANGUAGES))
    if extra:
        raise StatsDeclarationError(f"{where}: {what} has unknown language {extra[0]!r}")
    return {lang: value[lang] for lang in LANGUAGES}


def _stat(group: str, name: Any, body: Any) -> StatDef:
    """Check one statistic of a group (every rule that concerns it alone)."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise StatsDeclarationError(
            f"{_where(group, str(name))}: a name must be letters, digits and '_' only (R60)"
        )
    if not isinstance(body, dict):
        raise StatsDeclarationError(f"{_where(group, name)}: must be an object")
    stat_id = body.get("id")
    where = _where(group, name, stat_id)
    unknown = sorted(set(body) - _STAT_KEYS)
    if unknown:
        raise StatsDeclarationError(f"{where}: unknown key {unknown[0]!r}")
    if isinstance(stat_id, bool) or not isinstance(stat_id, int):
        raise StatsDeclarationError(f"{where}: the id must be an integer (R60)")
    if stat_id < MIN_ID:
        raise StatsDeclarationError(f"{where}: ids must be {MIN_ID} or more (R60)")
    stat_type = body.get("type")
    if stat_type not in TYPES:
        raise StatsDeclarationError(
            f"{where}: unknown type {stat_type!r}; the types are bool, float and int (R60)"
        )
    display = body.get("display")
    if display is not None and display != LIMITED:
        raise StatsDeclarationError(f"{where}: display must be {LIMITED!r} when present (R60)")
    label = _translations(body.get("name"), where, "the display name")
    return StatDef(group, name, stat_id, label, str(stat_type), display == LIMITED)


def _group(data: dict[str, Any], group: str) -> tuple[StatDef, ...]:
    body = data.get(group)
    if not isinstance(body, dict):
        raise StatsDeclarationError(f"stats.json: the {group!r} group must be an object")
    stats: list[StatDef] = []
    seen: dict[int, str] = {}
    for name, entry in body.items():
        stat = _stat(group, name, entry)
        if stat.id in seen:
            raise StatsDeclarationError(
                f"{_where(group, name, stat.id)}: id {stat.id} is already used by "
                f"{group} statistic {seen[stat.id]!r}; ids are unique in a group (R60)"
            )
        seen[stat.id] = name
        stats.append(stat)
    return tuple(stats)


def _check_shared_ids(table: tuple[StatDef, ...], player: tuple[StatDef, ...]) -> None:
    """R60: a table and a player statistic share an id only when they are the same one."""
    by_id = {stat.id: stat for stat in table}
    for stat in player:
        other = by_id.get(stat.id)
        if other is not None and other.name != stat.name:
            raise StatsDeclarationError(
                f"{_where(PLAYER, stat.name, stat.id)}: shares id {stat.id} with table "
                f"statistic {other.name!r}; a shared id needs the same name (R60)"
            )


def _int_key(key: str) -> int | None:
    return int(key) if re.fullmatch(r"-?[0-9]+", key) else None


def _value_labels(
    raw: Any, table: tuple[StatDef, ...], player: tuple[StatDef, ...]
) -> dict[int, dict[int, Translations]]:
    """R60: labels are keyed by an existing id whose statistics are all of type int."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise StatsDeclarationError("stats.json: value_labels must be an object keyed by id")
    out: dict[int, dict[int, Translations]] = {}
    for key, labels in raw.items():
        stat_id = _int_key(key)
        stats = [s for s in (*table, *player) if s.id == stat_id]
        if stat_id is None or not stats:
            raise StatsDeclarationError(
                f"stats.json: value_labels {key!r}: no statistic has this id (R60)"
            )
        for stat in stats:
            if stat.type != "int":
                raise StatsDeclarationError(
                    f"{_where(stat.group, stat.name, stat.id)}: value_labels apply only to "
                    f"int statistics, and this one is {stat.type} (R60)"
                )
        if not isinstance(labels, dict) or not labels:
            raise StatsDeclarationError(
                f"stats.json: value_labels {key!r} must map integer values to labels"
            )
        values: dict[int, Translations] = {}
        for raw_value, text in labels.items():
            value = _int_key(raw_value)
            where = f"stats.json: value_labels {key!r} value {raw_value!r}"
            if value is None:
                raise StatsDeclarationError(f"{where}: labelled values must be integers (R60)")
            values[value] = _translations(text, where, "the label")
        out[stat_id] = values
    return out


def parse_declaration(data: Any) -> Declaration:
    """Validate decoded declaration data; raise `StatsDeclarationError` on the first fault."""
    if not isinstance(data, dict):
        raise StatsDeclarationError("stats.json: the declaration must be a JSON object")
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise StatsDeclarationError(f"stats.json: unknown top-level key {unknown[0]!r}")
    table = _group(data, TABLE)
    player = _group(data, PLAYER)
    _check_shared_ids(table, player)
    labels = _value_labels(data.get("value_labels"), table, player)
    return Declaration(table, player, labels)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """JSON silently keeps the last of two equal keys; a declaration must not."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise StatsDeclarationError(
                f"stats.json: {key!r} is declared twice in one object; names are unique (R60)"
            )
        out[key] = value
    return out


def load_declaration(text: str) -> Declaration:
    """Parse and validate declaration text (JSON)."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as err:
        raise StatsDeclarationError(
            f"stats.json: not valid JSON ({err.msg} at line {err.lineno})"
        ) from None
    return parse_declaration(data)


def shipped_text() -> str:
    """The text of the declaration shipped with the package."""
    return resources.files("trusis.stats").joinpath("stats.json").read_text("utf-8")


@functools.cache
def shipped_declaration() -> Declaration:
    """The shipped declaration, validated (R61). Raises `StatsDeclarationError`.

    Read and parsed once a process (issue 39: every finished game read the file and
    parsed it again when it scored the game); a failed read is not kept."""
    return load_declaration(shipped_text())
