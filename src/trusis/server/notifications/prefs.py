"""What a player wants to be told, on which channel, when, and in which language.

Stored as JSON (`schema.notify_prefs`); no row means the defaults. Quiet hours and the
daily digest are counted in the player's own time zone: a group spread over time zones
is why slow games exist (issue 37).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime, time, timedelta
from typing import Any, Literal, get_args
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Kind = Literal["started", "phase", "reminder", "whisper", "ended"]
"""What a notice is about: the game started; a phase began where you can act; a reminder
before the deadline while you have not passed; a private message to you; the end."""
KINDS: tuple[Kind, ...] = get_args(Kind)
ChannelName = Literal["email", "push"]
CHANNELS: tuple[ChannelName, ...] = get_args(ChannelName)
LANGS = ("en", "fr", "it")

DEFAULT_EMAIL: dict[str, bool] = {"started": True, "phase": True, "reminder": True,
                                  "whisper": False, "ended": True}
"""E-mail by default tells all but private messages (D57: a chat line is no mail's
business unless the player asks)."""
DEFAULT_PUSH: dict[str, bool] = dict.fromkeys(KINDS, True)


class PrefsError(ValueError):
    """Preferences that do not fit: `field` names the one at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass
class Prefs:
    email: dict[str, bool] = field(default_factory=lambda: dict(DEFAULT_EMAIL))
    push: dict[str, bool] = field(default_factory=lambda: dict(DEFAULT_PUSH))
    lang: str = "en"
    tz: str = "UTC"
    quiet_from: str | None = None  # "22:00": nothing is sent from then ...
    quiet_to: str | None = None  # ... until then ("08:00"), in `tz`
    digest: bool = False  # e-mail: one mail a day at `digest_hour` instead of each one
    digest_hour: int = 18

    def wants(self, channel: ChannelName, kind: str) -> bool:
        return bool((self.email if channel == "email" else self.push).get(kind, False))

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def zone(self) -> ZoneInfo:
        return zone(self.tz)

    def released(self, now: float) -> float:
        """When something due at `now` may be sent: at once, or at the end of quiet hours."""
        if not self.quiet_from or not self.quiet_to or self.quiet_from == self.quiet_to:
            return now
        here = datetime.fromtimestamp(now, self.zone())
        start, end = _clock(self.quiet_from), _clock(self.quiet_to)
        t = here.time()
        quiet = start <= t < end if start < end else (t >= start or t < end)
        if not quiet:
            return now
        until = datetime.combine(here.date(), end, tzinfo=here.tzinfo)
        if until <= here:
            until += timedelta(days=1)
        return until.timestamp()

    def next_digest(self, now: float) -> float:
        """The next daily digest's moment after `now` (then pushed past quiet hours)."""
        here = datetime.fromtimestamp(now, self.zone())
        at = datetime.combine(here.date(), time(self.digest_hour), tzinfo=here.tzinfo)
        if at <= here:
            at += timedelta(days=1)
        return self.released(at.timestamp())


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def _clock(text: str) -> time:
    hours, _, minutes = text.partition(":")
    return time(int(hours), int(minutes or 0))


def _check_clock(name: str, value: Any) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) != 5 or value[2] != ":":
        raise PrefsError(name, "a time of day as HH:MM, such as 22:00")
    try:
        _clock(value)
    except ValueError:
        raise PrefsError(name, "a time of day as HH:MM, such as 22:00") from None
    return value


def parse(data: Any) -> Prefs:
    """Preferences from a client (or the store), checked field by field: `PrefsError`
    names the first that does not fit and nothing is kept."""
    if not isinstance(data, dict):
        raise PrefsError("prefs", "an object")
    prefs = Prefs()
    known = {"email", "push", "lang", "tz", "quiet_from", "quiet_to", "digest",
             "digest_hour"}
    for key in data:
        if key not in known:
            raise PrefsError(str(key)[:40], "not a preference")
    for channel in CHANNELS:
        given = data.get(channel, {})
        if not isinstance(given, dict):
            raise PrefsError(channel, "an object of kinds, each true or false")
        for kind, wanted in given.items():
            if kind not in KINDS or not isinstance(wanted, bool):
                raise PrefsError(f"{channel}.{str(kind)[:40]}",
                                 f"one of {', '.join(KINDS)}, each true or false")
            getattr(prefs, channel)[kind] = wanted
    lang = data.get("lang", "en")
    if lang not in LANGS:
        raise PrefsError("lang", "en, fr or it")
    prefs.lang = lang
    tz = data.get("tz", "UTC")
    if not isinstance(tz, str) or len(tz) > 64:
        raise PrefsError("tz", "a time zone such as Europe/Rome")
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise PrefsError("tz", "a time zone such as Europe/Rome") from None
    prefs.tz = tz
    prefs.quiet_from = _check_clock("quiet_from", data.get("quiet_from"))
    prefs.quiet_to = _check_clock("quiet_to", data.get("quiet_to"))
    if (prefs.quiet_from is None) != (prefs.quiet_to is None):
        raise PrefsError("quiet_to", "quiet hours need both their start and their end")
    digest = data.get("digest", False)
    if not isinstance(digest, bool):
        raise PrefsError("digest", "true or false")
    prefs.digest = digest
    hour = data.get("digest_hour", 18)
    if isinstance(hour, bool) or not isinstance(hour, int) or not 0 <= hour <= 23:
        raise PrefsError("digest_hour", "a whole hour from 0 to 23")
    prefs.digest_hour = hour
    return prefs


def stored(text: str | None) -> Prefs:
    """A player's stored preferences (the defaults when none, or unreadable)."""
    if not text:
        return Prefs()
    try:
        return parse(json.loads(text))
    except (ValueError, TypeError):
        return Prefs()
