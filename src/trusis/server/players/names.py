"""Names that cannot pass for someone else: table names, program seats and players.

Every name is cleaned as D9 says (rules/actions.clean_line: control and format
characters — right-to-left overrides, zero-width characters, line breaks — become
spaces). Then the server refuses what D9's cleaning lets through but a person
cannot see or tell apart (D20 in docs/rules.md):

- invisible fillers, letters that render as nothing (U+3164 HANGUL FILLER, U+2800
  BRAILLE PATTERN BLANK, …), and a name with no visible character at all;
- a player's name that looks like a seat's label ("seat 3", "Siège 3");
- at one table, a name confusable with another seat's ("Воb" in Cyrillic beside
  "Bob", "BOB" beside "Bob"): compared by their Unicode confusable skeletons
  (UTS #39, from the data of `confusable_homoglyphs`), case folded, the data's folding
  taken both before and after NFKC (`skeletons`): either order alone lets some through.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache

from confusable_homoglyphs.confusables import confusables_data

from trusis.rules.actions import clean_line
from trusis.server.errors import LobbyError

PLAYER_NAME = 32
TABLE_NAME = 80

FILLERS = frozenset(
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers: letters that show nothing
    "\u2800"  # BRAILLE PATTERN BLANK
    "\u034f\u17b4\u17b5"  # the combining grapheme joiner, Khmer inherent vowels
    "\u180b\u180c\u180d\u180f" + "".join(chr(c) for c in range(0xFE00, 0xFE10))  # selectors
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0))
)
"""Characters that D9's cleaning keeps (they count as printable) but that show nothing:
Unicode's default-ignorable letters and marks, and the blank braille cell."""

SEAT_WORDS = ("seat", "siège", "posto", "sedia", "place")
"""The words the clients and records name a seat by, in every language (seat_label)."""


DRAWN_AS = {
    "\u0660": ".", "\u0661": "l", "\u0665": "o", "\u0667": "V", "\u0668": "\u0245",  # ٠١٥٧٨
    "\u25cb": "o", "\u25ef": "o", "\u26aa": "o",  # white circles, drawn as an "o"
    "\u10bd": "S", "\u2d1d": "s",  # GEORGIAN CAPITAL LETTER SAN and its small letter
}
"""Look-alikes the library's confusables data misses or folds to a sign: the Arabic-Indic
digits drawn as the Persian ones it has (U+06F0…), circles it makes a degree sign, a
Georgian capital with several entries (an attacker's third trial, D20)."""
DOUBLE_LETTERS = (("vv", "w"),)
"""Letters drawn as one (the data folds "m" to "rn" but not "w" to "vv"). Not "cl" for
"d": "Clara" and "Dara" would then be alike, and Clive could not sit beside Dive."""


def _strip(text: str) -> str:
    return text.strip("\u200e\u200f")  # the data wraps right-to-left letters in marks


@cache
def prototype(char: str) -> str:
    """The character `char` is confusable with, as UTS #39 names the group's prototype
    (the data maps a member to its prototype, and a prototype to its members)."""
    if char in DRAWN_AS:
        return DRAWN_AS[char]
    entries = confusables_data.get(char)
    if not entries or len(entries) != 1:
        return char
    target = _strip(entries[0]["c"])
    back = confusables_data.get(target, [])
    if len(back) == 1 and _strip(back[0]["c"]) == char:  # two-member group: one for both
        return min(char, target)
    return target


def _mapped(text: str) -> str:
    return unicodedata.normalize("NFD", "".join(
        prototype(c) for c in unicodedata.normalize("NFD", text)))


def skeleton(name: str, data_first: bool = True) -> str:
    """What a name looks like: compatibility forms unfolded (full-width "Ｂｏｂ"), confusable
    characters folded to one, accents and other combining marks, small capitals, case,
    spaces and punctuation dropped ("Boḅ", "ʙob", "B o b.", "BOB").

    `data_first` folds UTS #39's confusables before NFKC: NFKC alone turns "ϲ" (U+03F2,
    drawn as "c") into a sigma and "ſ" into "s", which the data then no longer finds
    like "c" and "f" (D20). The other order is kept too (`skeletons`): "ⓒ" is "C" to NFKC
    but "©" to the data, and a name must not slip between the two."""
    text = _mapped(name) if data_first else name
    text = _mapped(unicodedata.normalize("NFKC", text))
    text = "".join(_small_capital(c) for c in text if unicodedata.category(c) != "Mn")
    kept = "".join(c for c in _mapped(text.casefold())
                   if unicodedata.category(c)[0] in "LN" and unicodedata.category(c) != "Mn")
    # "I" is drawn like "l" (the data folds it there) while "i" is not: one letter for the
    # three, so that "WIM" is "Wim" and "AIice" is "Alice".
    kept = kept.replace("i", "l")
    for double, single in DOUBLE_LETTERS:
        kept = kept.replace(double, single)
    return kept or name.casefold()  # signs only ("???"): its own look


@lru_cache(maxsize=4096)  # the bots' names are looked at for every bot seated
def skeletons(name: str) -> frozenset[str]:
    """A name's skeletons, the confusables folded before NFKC and after (`skeleton`)."""
    return frozenset((skeleton(name), skeleton(name, data_first=False)))


def look_alike(name: str, other: str) -> bool:
    """D20: two names look alike when any of their skeletons is the same."""
    return not skeletons(name).isdisjoint(skeletons(other))


@cache
def _small_capital(char: str) -> str:
    """ʙ (LATIN LETTER SMALL CAPITAL B) reads as b: the data does not fold small capitals."""
    described = unicodedata.name(char, "")
    if described.startswith("LATIN LETTER SMALL CAPITAL ") and len(described) == 28:
        return described[-1].lower()
    return char


@cache
def _seat_labels() -> frozenset[str]:
    return frozenset(k for word in SEAT_WORDS for n in range(1, 101)
                     for k in skeletons(f"{word} {n}"))


def _visible(name: str, field: str) -> None:
    hidden = next((c for c in name if c in FILLERS), None)
    if hidden is not None:
        raise LobbyError(422, "invisible_name", "a name cannot hold characters that show "
                         f"nothing (U+{ord(hidden):04X})", field=field,
                         character=f"U+{ord(hidden):04X}")
    if not any(unicodedata.category(c)[0] in "LNPS" for c in name):
        raise LobbyError(422, "invisible_name", "a name needs at least one visible letter, "
                         "digit or sign", field=field)


def clean(raw: object, limit: int, field: str) -> str:
    """A name cleaned as D9 says, 1 to `limit` characters, with something visible in it."""
    if type(raw) is not str:
        raise LobbyError(422, "bad_name", "a name is text", field=field)
    name = clean_line(raw, limit)
    if name is None:
        raise LobbyError(422, "name_too_long", f"a name has at most {limit} characters",
                         limit=limit, field=field)
    if not name:
        raise LobbyError(422, "empty_name", "choose a name", field=field)
    _visible(name, field)
    return name


def player_name(raw: object, field: str = "name") -> str:
    """A player's or a program seat's name: cleaned, visible, and not a seat's label."""
    name = clean(raw, PLAYER_NAME, field)
    if not skeletons(name).isdisjoint(_seat_labels()):
        raise LobbyError(422, "name_like_seat", f"{name!r} looks like a seat's label: "
                         "choose another name", field=field, name=name)
    return name


def table_name(raw: object) -> str:
    return clean(raw, TABLE_NAME, "name")


def refuse_lookalike(name: str, others: Iterable[str]) -> None:
    """At one table: a name that looks like another seat's is refused (D20)."""
    for other in others:
        if look_alike(name, other):
            raise LobbyError(409, "name_confusable", f"{name!r} looks too much like "
                             f"{other!r}, who is already at this table: to sit here, "
                             "choose another name", name=name, other=other)
