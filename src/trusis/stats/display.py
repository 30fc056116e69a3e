"""How statistic values read on screen: "-" for unset (R62), labels, yes/no, decimals.

Kept apart from the values themselves so that the API, the CLI and (later) the end
screen of the web client format a value the same way in every language.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from trusis.rules.i18n import LANGUAGES
from trusis.stats.declaration import Declaration, StatDef, Value

UNSET = "-"  # R62: a statistic never initialised


@cache
def _words() -> dict[str, dict[str, str]]:
    text = resources.files("trusis.stats").joinpath("words.json").read_text("utf-8")
    data: dict[str, dict[str, str]] = json.loads(text)
    return data


def word(key: str, lang: str = "en") -> str:
    """A word of the statistics screens in `lang` (English when unknown)."""
    texts = _words()[key]
    return texts.get(lang if lang in LANGUAGES else "en", texts["en"])


def labelled(decl: Declaration, stat: StatDef, value: Value | None, lang: str) -> Value | str:
    """The value after value_labels, or "-" when unset: what `--json` prints."""
    if value is None:
        return UNSET
    label = decl.value_label(stat, value, lang)
    return value if label is None else label


def text(decl: Declaration, stat: StatDef, value: Value | None, lang: str) -> str:
    """The value as a person reads it: labels, yes/no, two decimals at most."""
    shown = labelled(decl, stat, value, lang)
    if isinstance(shown, bool):
        return word("yes" if shown else "no", lang)
    if isinstance(shown, float):
        return number(shown)
    return str(shown)


def number(value: float) -> str:
    """A float with at most two decimals and no trailing zeros."""
    out = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if out == "-0" else out


def percent(part: int, whole: int) -> str:
    """A rate as a whole percentage, or "-" when there is nothing to divide."""
    return UNSET if whole == 0 else f"{round(100 * part / whole)}%"
