"""Messages as codes with parameters, rendered in English, French or Italian.

The engine never builds sentences: every refusal and event carries a stable
code and parameters, and this module turns them into text. The same JSON
catalogues are meant for the browser, so the server can send codes and each
client renders them in its player's language (docs/ux.md, "Languages").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

from trusis.rules.roles import ROLES

LANGUAGES = ("en", "fr", "it")

# Parameters that hold a seat number, rendered through the caller's naming function.
SEAT_PARAMS = frozenset({"seat", "target", "shown", "to", "voter"})

SeatNamer = Callable[[int], str]


def seat_label(seat: int) -> str:
    """The neutral name of a seat, as records and `trusis replay` print it."""
    return f"seat {seat}"


@cache
def catalogue(lang: str) -> Mapping[str, str]:
    """The message catalogue of one language (unknown languages fall back to English)."""
    if lang not in LANGUAGES:
        lang = "en"
    text = resources.files("trusis.rules.locales").joinpath(f"{lang}.json").read_text("utf-8")
    data: dict[str, str] = json.loads(text)
    return data


def until_text(until: float | None, cat: Mapping[str, str]) -> str:
    """A sanction's end as the server says it, "until 2027-01-15 08:00 UTC" or "for good":
    the server knows no reader's time zone (a page says it in its own, web/i18n.js)."""
    if until is None:
        return cat.get("until.never", "for good")
    when = datetime.fromtimestamp(float(until), UTC).strftime("%Y-%m-%d %H:%M UTC")
    return cat.get("until.date", "until {date}").format(date=when)


def render(
    code: str,
    params: Mapping[str, Any],
    lang: str = "en",
    name: SeatNamer | None = None,
) -> str:
    """Render message `code` (e.g. "refusal.actor_dead") with `params`, naming seats
    with `name` — by default "seat 5" in the message's language."""
    cat = catalogue(lang)
    if name is None:
        label = cat.get("seat.label", "seat {number}")

        def name(seat: int) -> str:
            return label.format(number=seat)

    template = cat.get(code) or catalogue("en").get(code, code)
    values: dict[str, Any] = {}
    for key, value in params.items():
        if key in SEAT_PARAMS:
            values[key] = "—" if value is None else name(value)
        elif key == "role":
            values[key] = ROLES[value].name(lang) if value in ROLES else value
        elif key == "holders":
            values[key] = " / ".join(ROLES[r].name(lang) for r in value)
        elif key == "power":
            values[key] = cat.get(f"power.{value}", value)
            values["power_on"] = cat.get(f"power_on.{value}", value)
        elif key == "kind":
            values[key] = cat.get(f"phase.{value}", value)
        elif key == "result":
            values[key] = cat.get(f"fact.{value}", value)
        elif key == "winner":
            values[key] = cat.get(f"winner.{value}", value)
        elif key == "team":
            values[key] = cat.get(f"team.{value}", value)
        elif key == "by":  # `replace`: a name, or "bot" (said as "a bot")
            values[key] = cat.get(f"by.{value}", value) if value == "bot" else value
        elif key == "until":  # a sanction's end (None: never), for whoever reads `message`
            values[key] = until_text(value, cat)
        else:
            values[key] = value
    try:
        return template.format(**values)
    except (KeyError, IndexError):
        return template
