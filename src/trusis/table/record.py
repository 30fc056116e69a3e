"""Game records (`trusis-record/1`, docs/record.md): parse, validate and write them.

A record is the whole game as data — table, deal and every action in order —
so the deterministic engine replays it to the same game. Anything malformed
raises `RecordError` naming the field; rule refusals are not malformations.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, field
from typing import Any

from trusis.rules.actions import Action, clean_name
from trusis.rules.errors import RecordError, SetupError, escaped, quoted
from trusis.rules.roles import HUMAN, MAX_PLAYERS, MIN_PLAYERS, ROLES
from trusis.rules.setup import check_custom_set, check_explicit_deal, check_player_count, deal_roles

RECORD_FORMAT = "trusis-record/1"
MAX_INT_DIGITS = 4300  # Python's default limit for int <-> str, whatever this interpreter's is
_INT_BOUND = 10 ** MAX_INT_DIGITS


def seconds(value: Any) -> float | None:
    """A record's clock value (`t`, `started_at`) as seconds, or None — no clock —
    when it is not a finite number (these fields are this project's additions,
    so an unusable value is ignored rather than making the record malformed)."""
    if type(value) is int:
        try:
            value = float(value)
        except OverflowError:  # 10**400: no float holds it
            return None
    return value if type(value) is float and math.isfinite(value) else None


@dataclass
class Record:
    """A parsed, well-formed record."""

    players: list[str]
    seed: int = 0
    custom: dict[str, int] | None = None
    deal: list[str] | None = None
    actions: list[Action] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    # When each action was taken (seconds, any epoch), where the record says so:
    # an optional `t` on each action, kept for statistics such as time to pass.
    times: list[float | None] = field(default_factory=list)

    def roles(self) -> list[str]:
        """The role of each seat: the explicit deal, or the seeded deal of the set."""
        if self.deal is not None:
            return list(self.deal)
        return deal_roles(len(self.players), self.seed, self.custom)

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON data; exported records always carry `deal`."""
        data: dict[str, Any] = {"format": RECORD_FORMAT, "players": list(self.players)}
        data["deal"] = self.roles()
        data["set"] = {"standard": True} if self.custom is None else {"custom": dict(self.custom)}
        data["seed"] = self.seed
        data["actions"] = [a.to_dict() for a in self.actions]
        for entry, t in zip(data["actions"], self.times, strict=False):
            if t is not None:
                entry["t"] = t
        for key, value in self.extra.items():
            data.setdefault(key, value)
        return data


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_record(data: Any) -> Record:
    """Check a decoded JSON record against docs/record.md; raise `RecordError` if malformed."""
    if not isinstance(data, dict):
        raise RecordError("record", "must be a JSON object")
    if data.get("format") != RECORD_FORMAT:
        raise RecordError("format", f"must be {RECORD_FORMAT!r}")
    players = data.get("players")
    if not isinstance(players, list) or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError("players", f"must be a list of {MIN_PLAYERS} to {MAX_PLAYERS} names")
    names = []
    for i, raw in enumerate(players):
        name = clean_name(raw)  # D9: names are cleaned as chat is
        if name is None:
            raise RecordError(f"players[{i}]", "must be a non-empty string")
        names.append(name)
    seed = data.get("seed", 0)
    if not _int(seed) or not -_INT_BOUND < seed < _INT_BOUND:
        raise RecordError("seed", f"must be an integer of at most {MAX_INT_DIGITS} digits")
    custom = _parse_set(data.get("set", {"standard": True}), len(players))
    deal = _parse_deal(data.get("deal"), len(players))
    if deal is None:
        try:
            deal_roles(len(players), seed, custom)
        except SetupError as err:
            raise RecordError("set", str(err)) from None
    raw_actions = data.get("actions", [])
    if not isinstance(raw_actions, list):
        raise RecordError("actions", "must be a list")
    actions = [
        Action.from_dict(a, len(players), f"actions[{i}]") for i, a in enumerate(raw_actions)
    ]
    # `t` is this project's own addition, so a value that is not a finite number of
    # seconds is ignored rather than making the record malformed (docs/record.md allows
    # added fields and lists what is malformed).
    times = [seconds(raw.get("t")) for raw in raw_actions]
    known = {"format", "players", "seed", "set", "deal", "actions"}
    extra = {k: v for k, v in data.items() if k not in known}
    return Record(names, seed, custom, deal, actions, extra, times)


def _parse_set(value: Any, players: int) -> dict[str, int] | None:
    if not isinstance(value, dict):
        raise RecordError("set", 'must be {"standard": true} or {"custom": {...}}')
    if set(value) == {"standard"} and value["standard"] is True:
        return None
    if set(value) != {"custom"} or not isinstance(value["custom"], dict):
        raise RecordError("set", 'must be {"standard": true} or {"custom": {...}}')
    counts: dict[str, int] = {}
    for role, count in value["custom"].items():
        # JSON object keys are always strings, but any string: quote an odd one.
        where = f"set.custom.{role}" if role.isidentifier() else f"set.custom[{role!r}]"
        if role not in ROLES or role == HUMAN:
            raise RecordError(where, "is not a special role id")
        if not _int(count) or count < 0:
            raise RecordError(where, "must be an integer of 0 or more")
        counts[role] = count
    try:
        check_player_count(players)
        check_custom_set(players, counts)
    except SetupError as err:
        raise RecordError("set", str(err)) from None
    return counts


def _parse_deal(value: Any, players: int) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise RecordError("deal", "must be a list of role ids, one per seat")
    for i, role in enumerate(value):
        if not isinstance(role, str) or role not in ROLES:
            raise RecordError(f"deal[{i}]", f"unknown role {quoted(role)}")
    try:
        check_explicit_deal(players, value)
    except SetupError as err:
        raise RecordError("deal", str(err)) from None
    return list(value)


class _HugeInt:
    """Stands, while decoding, for an integer with too many digits to convert."""

    __slots__ = ()


_HUGE = _HugeInt()


def _huge_field(data: Any, where: str) -> str | None:
    """The field (`actions[3].target`, `x`) of the first `_HUGE` in `data`, if any."""
    if data is _HUGE:
        return where
    items: Any = ()
    if isinstance(data, dict):
        items = ((f"{where}.{k}" if where else k, v) for k, v in data.items())
    elif isinstance(data, list):
        items = ((f"{where}[{i}]", v) for i, v in enumerate(data))
    for name, value in items:
        found = _huge_field(value, name)
        if found is not None:
            return found
    return None


def load_record(text: str) -> Record:
    """Parse record text (JSON); raise `RecordError` if it is not a well-formed record.

    An integer of more than 4300 digits makes the record malformed, naming its
    field, whatever this interpreter's `sys.set_int_max_str_digits` allows: no
    record field needs one, and the same record must load everywhere.
    """
    limit = sys.get_int_max_str_digits()
    limit = MAX_INT_DIGITS if limit == 0 else min(limit, MAX_INT_DIGITS)
    huge = False

    def parse_int(digits: str) -> Any:
        nonlocal huge
        if len(digits) - digits.startswith("-") > limit:
            huge = True
            return _HUGE
        return int(digits)

    try:
        data = json.loads(text, parse_int=parse_int)
    except json.JSONDecodeError as err:
        raise RecordError("record", f"not valid JSON ({err.msg} at line {err.lineno})") from None
    except RecursionError:
        raise RecordError("record", "not valid JSON (nested too deeply)") from None
    except ValueError as err:  # any other conversion the decoder could refuse
        raise RecordError("record", f"not valid JSON ({escaped(str(err))})") from None
    if huge:
        try:
            where = _huge_field(data, "")
        except RecursionError:
            where = None
        raise RecordError(where or "record", f"is an integer of more than {limit} digits")
    return parse_record(data)
