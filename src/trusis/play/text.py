"""Everything the player reads, in the player's language.

UI strings live in the shared catalogues (`src/trusis/locales/*.json`) under
`play.*`; event and refusal codes are rendered by `trusis.rules.i18n.render`, with
seats named "seat 4 (Dee)" in the player's language. Role names come from the
role table (docs/rules.md §2), never from English text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from trusis.rules.errors import TrusisError
from trusis.rules.i18n import LANGUAGES, catalogue, render
from trusis.rules.roles import ROLES


class Texts:
    """The player's language, and the names of the table's seats."""

    def __init__(self, lang: str, names: Sequence[str]) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language {lang!r}")
        self.lang = lang
        self.names = list(names)  # seat s is names[s - 1]

    def __call__(self, key: str, **params: Any) -> str:
        """The UI string `play.<key>` with `params` (seats named, roles translated)."""
        return render(f"play.{key}", params, self.lang, self.seat)

    def has(self, key: str) -> bool:
        return f"play.{key}" in catalogue(self.lang)

    def seat(self, seat: int) -> str:
        """A seat as sentences name it: "seat 4 (Dee)"."""
        if not 1 <= seat <= len(self.names):
            return str(seat)  # "there is no seat 99": the refusal says "seat" itself
        return render("play.seat_name", {"number": seat, "name": self.names[seat - 1]},
                      self.lang)

    def short(self, seat: int) -> str:
        """A seat in a table cell or a chat line: "4 Dee"."""
        return f"{seat} {self.names[seat - 1]}"

    def role(self, role: str) -> str:
        """A role id, or a fact id (NEITHER, NOT_TRUSIS), as the player's language says it."""
        if role in ROLES:
            return ROLES[role].name(self.lang)
        return render(f"fact.{role}", {}, self.lang)

    def event(self, code: str, params: Mapping[str, Any]) -> str:
        """An engine event, rendered like the rest of the screen."""
        return capital(render(f"event.{code}", params, self.lang, self.seat))

    def refusal(self, error: TrusisError) -> str:
        """An engine refusal in the player's language, seats named."""
        return capital(error.message(self.lang, self.seat))

    def phase(self, kind: str, number: int) -> str:
        return render("play.phase", {"kind": kind, "number": number}, self.lang)

    def words(self, key: str) -> list[str]:
        """A comma-separated list of words (`play.<key>`), lower-cased."""
        return [w.strip().lower() for w in self(key).split(",") if w.strip()]


def capital(text: str) -> str:
    """The text with its first letter in upper case (rendered codes start lower-case)."""
    return text[:1].upper() + text[1:]


def sentence(text: str) -> str:
    """The text as a sentence: a capital first, a full stop last (unless it ends in one)."""
    text = capital(text.strip())
    return text if text.endswith((".", "!", "?", "…")) else text + "."
