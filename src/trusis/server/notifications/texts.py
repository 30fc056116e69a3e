"""A notice in words: its subject, its lines and its link, in the player's language.

Only the notice's facts are read (facts.py: the seat's own view and stream), and the
game's events are worded by the engine's own catalogue (`trusis.rules.i18n.render`), so a
notification says what the page would say to that seat, and nothing more.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any, TypedDict

from trusis.rules.i18n import catalogue, render
from trusis.server.notifications.prefs import LANGS, Prefs


class Words(TypedDict):
    """A notification as every channel reads it (stored as a delivery's `content`)."""

    subject: str
    lines: list[str]
    url: str
    tag: str


@cache
def words_of(lang: str) -> dict[str, str]:
    """The notifications' own catalogue of one language (English for any other)."""
    lang = lang if lang in LANGS else "en"
    text = resources.files("trusis.server.notifications.locales").joinpath(
        f"{lang}.json").read_text("utf-8")
    data: dict[str, str] = json.loads(text)
    return data


def say(lang: str, key: str, **values: Any) -> str:
    template = words_of(lang).get(key) or words_of("en")[key]
    return template.format(**values)


def phase_name(lang: str, phase: dict[str, Any]) -> str:
    kind = catalogue(lang).get(f"phase.{phase['kind']}", str(phase["kind"]))
    return say(lang, "phase", kind=kind, number=phase["number"])


def time_left(lang: str, seconds: float) -> str:
    minutes = max(0, int(seconds // 60))
    if minutes < 60:
        return say(lang, "minutes", minutes=minutes)
    return say(lang, "hours", hours=minutes // 60, minutes=minutes % 60)


def table_url(base: str, table_id: str) -> str:
    return f"{base.rstrip('/')}/t/{table_id}"


def words(kind: str, facts: dict[str, Any], prefs: Prefs, base: str, now: float) -> Words:
    """A notice's words for its player, by their preferences (language, time zone)."""
    lang = prefs.lang
    table = facts["table"]
    name = str(table["name"])
    phase = phase_name(lang, facts["phase"])
    names: dict[str, str] = facts.get("names", {})

    def named(seat: int) -> str:
        return names.get(str(seat)) or catalogue(lang).get(
            "seat.label", "seat {number}").format(number=seat)

    lines: list[str] = []
    sender = ""
    for line in facts.get("lines", []):
        if line["code"] == "whispered":
            sender = named(int(line["params"].get("seat", 0)))
        lines.append(render(f"event.{line['code']}", line["params"], lang, named))
    deadline = facts.get("deadline")
    left = time_left(lang, (deadline or now) - now)
    if kind in ("started", "phase", "reminder"):
        if not facts.get("alive", True):
            lines.append(say(lang, "line.dead"))
        elif facts.get("can"):
            powers = ", ".join(catalogue(lang).get(f"power.{p}", p) for p in facts["can"])
            lines.append(say(lang, "line.can", powers=powers))
        else:
            lines.append(say(lang, "line.pass_only"))
        if deadline is not None:
            when = datetime.fromtimestamp(deadline, prefs.zone()).strftime("%Y-%m-%d %H:%M")
            lines.append(say(lang, "line.deadline", when=when, zone=prefs.tz))
        else:
            lines.append(say(lang, "line.no_deadline"))
    if kind == "ended":
        won = facts.get("won")
        lines.append(say(lang, "line.draw" if won is None or facts.get("winner") == "DRAW"
                         else "line.won" if won else "line.lost"))
    url = table_url(base, str(table["id"]))
    subject = say(lang, f"subject.{kind}", table=name, phase=phase, left=left, sender=sender)
    return {"subject": subject, "lines": lines, "url": url,
            "tag": f"{table['id']}:{kind}"}


def confirm_words(lang: str, player_name: str, url: str, hours: int) -> Words:
    return {"subject": say(lang, "subject.confirm"),
            "lines": [say(lang, "confirm.body", name=player_name, url=url, hours=hours)],
            "url": url, "tag": "confirm"}


def digest_subject(lang: str, count: int) -> str:
    return say(lang, "subject.digest", count=count)
