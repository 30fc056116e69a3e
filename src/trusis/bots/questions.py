"""Direct questions to a bot, in English, French and Italian: why, who, and which role.

People ask bots what they would ask a player: "why Quinn?", "Basil, why me?", "who do
you suspect?", "are you the Sweeper?" — and the same in French ("pourquoi Quinn ?",
"qui soupçonnes-tu ?", "es-tu le Balayeur ?") and Italian ("perché Quinn?", "chi
sospetti?", "sei lo Spazzino?"). `parse` reads one message with the words and seats of
`trusis.bots.listen` (accents, case, typos and seat numbers as there) and says what it
asks and of whom; `trusis.bots.talk` answers. A seat named before the question word is
the one asked ("Basil, why Quinn?"); one named after it is what the question is about.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from trusis.bots import listen
from trusis.rules.roles import HUMAN, TRUSIS

WHY: Final = "why"  # why do you vote `about`? (about 0: your vote, whatever it is)
WHO: Final = "who"  # whom do you suspect?
ROLE: Final = "role"  # are you the `role`?

_WHY: Final = frozenset({"why", "pourquoi", "perche", "percheee", "how come", "wieso"})
_WHO: Final = frozenset({"who", "whom", "qui", "chi"})
_SUSPECTING: Final = frozenset({
    "suspect", "suspects", "suspecting", "suspicious", "think", "vote", "voting", "votes",
    "soupconnes", "soupconnez", "soupconne", "suspectes", "votez", "penses",
    "pensez", "sospetti", "sospettate", "sospetto", "voti", "votate", "pensi", "pensate",
    "sus", "trust", "crois", "credi", "accuse", "accuses",
})
_YOU: Final = frozenset({"you", "u", "tu", "t", "vous", "sei", "siete", "es", "etes", "te",
                         "toi", "ya"})
_ARE: Final = frozenset({"are", "r", "es", "etes", "sei", "siete", "est"})
_ME: Final = frozenset({"me", "moi", "io", "mi", "myself"})


@dataclass(frozen=True, slots=True)
class Question:
    """What a message asks: `kind` (WHY, WHO, ROLE), the seat it is put to (0: nobody in
    particular), the seat it is about (WHY; 0: the vote of whoever is asked) and, for
    ROLE, the role asked about (TRUSIS and HUMAN included)."""

    kind: str
    to: int = 0
    about: int = 0
    role: str = ""


def parse(text: str, names: Sequence[str], speaker: int) -> Question | None:
    """The question `text` of seat `speaker` puts, or None when it asks none of these;
    `names[s - 1]` is seat s."""
    return _parse(text, tuple(names), speaker)


@lru_cache(maxsize=2048)
def _parse(text: str, names: tuple[str, ...], speaker: int) -> Question | None:
    folded = set(listen.fold(text[:300]).replace("'", " ").split())
    if "?" not in text and not folded & (_WHY | _WHO):
        return None  # most lines ask nothing: no need to read them word by word
    ws = listen.words(text[:300], names)
    if not ws:
        return None
    tokens = [w.text for w in ws]
    asked = "?" in text
    why = next((i for i, t in enumerate(tokens) if t in _WHY), None)
    who = next((i for i, t in enumerate(tokens) if t in _WHO), None)
    seats = [(i, w.seat) for i, w in enumerate(ws) if w.seat and w.seat != speaker]
    if why is not None:
        before = [s for i, s in seats if i < why]
        after = [s for i, s in seats if i > why]
        about = after[-1] if after else 0
        if not about and any(t in _ME for t in tokens[why + 1:]):
            about = speaker  # "why me?": about the asker
        return Question(WHY, before[0] if before else 0, about)
    if who is not None and (asked or who == 0) and any(t in _SUSPECTING for t in tokens):
        to = next((s for i, s in seats if i != who), 0)
        return Question(WHO, to)
    role = _role_asked(ws, tokens)
    if role and asked:
        return Question(ROLE, seats[0][1] if seats else 0, 0, role)
    return None


def _role_asked(ws: list[listen._Word], tokens: list[str]) -> str:
    """The role of "are you the Sweeper?" / "es-tu le Balayeur ?" / "sei lo Spazzino?"."""
    you = any(t in _YOU for t in tokens)
    be = any(t in _ARE for t in tokens)
    if not (you and be) and "sei" not in tokens:
        return ""
    for w in ws:
        if w.concept == "ROLE" and w.role:
            return w.role
        if w.concept == "TRUSIS":
            return TRUSIS
        if w.concept == "CLEAR" or w.text in ("human", "humain", "umano", "umana"):
            return HUMAN
    return ""
