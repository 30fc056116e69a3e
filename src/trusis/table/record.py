"""Game records (`trusis-record/1`, docs/record.md): parse, validate and write them.

A record is the whole game as data — table, deal and every action in order —
so the deterministic engine replays it to the same game. Anything malformed
raises `RecordError` naming the field; rule refusals are not malformations.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from trusis.rules.actions import Action
from trusis.rules.errors import RecordError, SetupError
from trusis.rules.roles import HUMAN, MAX_PLAYERS, MIN_PLAYERS, ROLES
from trusis.rules.setup import check_custom_set, check_explicit_deal, check_player_count, deal_roles

RECORD_FORMAT = "trusis-record/1"


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
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise RecordError(f"players[{i}]", "must be a non-empty string")
    seed = data.get("seed", 0)
    if not _int(seed):
        raise RecordError("seed", "must be an integer")
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
    times: list[float | None] = []
    for raw in raw_actions:
        t = raw.get("t")
        ok = isinstance(t, int | float) and not isinstance(t, bool) and math.isfinite(t)
        times.append(float(t) if ok else None)
    known = {"format", "players", "seed", "set", "deal", "actions"}
    extra = {k: v for k, v in data.items() if k not in known}
    return Record(list(players), seed, custom, deal, actions, extra, times)


def _parse_set(value: Any, players: int) -> dict[str, int] | None:
    if not isinstance(value, dict):
        raise RecordError("set", 'must be {"standard": true} or {"custom": {...}}')
    if set(value) == {"standard"} and value["standard"] is True:
        return None
    if set(value) != {"custom"} or not isinstance(value["custom"], dict):
        raise RecordError("set", 'must be {"standard": true} or {"custom": {...}}')
    counts: dict[str, int] = {}
    for role, count in value["custom"].items():
        if role not in ROLES or role == HUMAN:  # JSON object keys are always strings
            raise RecordError(f"set.custom.{role}", "is not a special role id")
        if not _int(count) or count < 0:
            raise RecordError(f"set.custom.{role}", "must be an integer of 0 or more")
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
            raise RecordError(f"deal[{i}]", f"unknown role {role!r}")
    try:
        check_explicit_deal(players, value)
    except SetupError as err:
        raise RecordError("deal", str(err)) from None
    return list(value)


def load_record(text: str) -> Record:
    """Parse record text (JSON); raise `RecordError` if it is not a well-formed record."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordError("record", f"not valid JSON ({err.msg} at line {err.lineno})") from None
    except RecursionError:
        raise RecordError("record", "not valid JSON (nested too deeply)") from None
    return parse_record(data)
