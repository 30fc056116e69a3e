"""How bots read what people write: free text in English, French and Italian.

People do not write in templates. A message is read in four steps, with the
standard library only:

1. **Words.** Lower case, accents taken off (`unicodedata`: "Prêtre" is "pretre"),
   "n't" read as "not", "#3" as "seat 3"; everything that is not a letter or a digit
   separates words, and `, . ; : ! ?` and "but/mais/ma" also separate *clauses*.
2. **Concepts.** Each word is looked up in a small lexicon (`LEXICON`: "swept",
   "balayé", "spazzato" are all SWEEP; "Trusis", "evil", "traître" are all TRUSIS);
   a word that is not there but close to one of at least five letters is read as
   that one (`difflib`, for typos: "sweper", "Trussis"). Role names of every
   language, one or two words ("croque-mort", "paladino bianco"), become ROLE.
3. **Seats.** A player's name (whole, its first word, a prefix of three letters or
   more that fits one player only, or a close typo of four letters or more), a seat
   number ("seat 3", "#3", "posto 3", or a bare number after a vote or a sweep),
   or a pronoun ("him", "lui", "lo") for the last seat named.
4. **Claims**, found clause by clause (`parse`); see docs/bots.md for the grammar.

The result is a list of `chat.Claim`: a message can make several ("I'm the Sweeper,
I swept Basil: Trusis! Vote Basil" is a role claim, a sweep result and a call to
vote). What a claim is worth is not decided here: `trusis.bots.deliberate` weighs
it by who made it and whether it fits what the bot knows.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from typing import Final

from trusis.bots import chat
from trusis.bots.chat import Claim
from trusis.bots.grammar import help_text as help_text
from trusis.rules.roles import (
    CASTAWAY,
    GRAVEKEEPER,
    HUMAN,
    ORACLE,
    ROLE_IDS,
    ROLES,
    SWEEPER,
    TRUSIS,
)

ROLE: Final = "role"  # "I'm the Sweeper" (about: the speaker) or "Bob is the Priest"
FORESEE: Final = "foresee"  # "I foresaw Bob: the Priest" (role: what was seen)
VOUCH: Final = "vouch"  # "Bob is innocent", "trust Bob", "don't vote Bob"
VOTE_CALL: Final = "vote_call"  # "vote Bob", "votez Bob", "eliminiamo Bob"
ACCUSE: Final = chat.SUSPECT  # "Bob is suspicious", "Bob is a Trusis", "Bob ment"
DEFEND: Final = chat.DEFEND  # "it's not me", "ce n'est pas moi", "non sono io" (about: the speaker)

KINDS: Final = (ROLE, chat.SWEEP_TRUSIS, chat.SWEEP_CASTAWAY, chat.SWEEP_CLEAR, FORESEE,
                chat.GRAVE_TRUSIS, chat.GRAVE_CLEAR, ACCUSE, VOUCH, DEFEND, VOTE_CALL)
"""Every kind of claim `parse` returns, in the order of docs/bots.md."""

_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "SWEEP": ("swept", "sweep", "sweeped", "sweeping", "swiped", "checked", "check", "scanned",
              "inspected", "investigated", "balaye", "balayee", "balayer", "balai", "verifie",
              "spazzato", "spazzata", "spazzare", "spazzo", "controllato", "controllata"),
    "FORESEE": ("foresaw", "foresee", "foreseen", "vision", "prevu", "previsto", "prevista",
                "visto", "vu", "saw", "seen"),
    "WAS": ("was", "were", "etait", "etaient", "era", "erano", "fu", "died", "dead", "mort",
            "morto", "morta", "grave", "tombe", "tomba"),
    "BE1": ("am", "m", "im", "suis", "sono"),
    "BE": ("is", "s", "est", "e", "are", "sont", "sei", "be", "c"),
    "SELF": ("i", "me", "moi", "je", "j", "io", "mi", "myself", "my"),
    "NOT": ("not", "no", "never", "neither", "nor", "pas", "ni", "jamais", "non", "ne", "n",
            "mai", "nobody", "personne", "nessuno"),
    "TRUSIS": ("trusis", "evil", "bad", "traitor", "traitors", "wolf", "mafia", "mechant",
               "traitre", "cattivo", "traditore", "guilty", "coupable", "colpevole"),
    "CASTAWAY": ("castaway", "castaways", "naufrage", "naufragee", "naufrago", "naufraga"),
    "CLEAR": ("innocent", "innocente", "innocents", "clean", "clear", "cleared", "safe", "good",
              "town", "propre", "gentil", "pulito", "pulita", "buono", "onesto", "honest",
              "honnete", "sain"),
    "SUSPECT": ("suspicious", "suspect", "sus", "sussy", "shady", "fishy", "louche", "suspecte",
                "sospetto", "sospetta", "sospettoso", "accuse", "liar", "lying", "lies", "lie",
                "menteur", "menteuse", "ment", "mente", "mentito", "bugiardo", "bugiarda",
                "imposteur", "impostore", "fake", "faux", "falso"),
    "TRUST": ("trust", "confiance", "fido", "fiducia", "believe", "crois", "credo"),
    "VOTE": ("vote", "votez", "votons", "voter", "votate", "votiamo", "vota", "lynch",
             "eliminate", "eliminez", "eliminons", "eliminer", "eliminiamo", "elimina",
             "kill", "tuez", "tuons", "uccidete", "hang", "out", "fuori", "dehors"),
    "SEATWORD": ("seat", "siege", "place", "posto", "sedia", "numero", "num", "nr", "player",
                 "joueur", "giocatore", "number"),
    "PRONOUN": ("him", "her", "them", "lui", "elle", "lo", "gli", "they", "he", "she"),
    "LIKE": ("like", "comme", "come"),
    "AS": ("as", "tant", "quale"),
}
_ROLE_SYNONYMS: Final[dict[str, str]] = {
    "seer": ORACLE, "undertaker": GRAVEKEEPER, "cop": SWEEPER, "detective": SWEEPER,
    "doctor": "PRIEST", "doc": "PRIEST", "medic": "PRIEST", "cure": "PRIEST", "prete": "PRIEST",
    "villager": HUMAN, "humano": HUMAN, "humans": HUMAN, "humains": HUMAN, "umani": HUMAN,
}
_STOP: Final = frozenset({
    "the", "a", "an", "and", "or", "to", "of", "in", "on", "at", "it", "its", "this", "that",
    "what", "who", "why", "how", "for", "with", "you", "your", "we", "our", "le", "la", "les",
    "un", "une", "des", "et", "ou", "de", "du", "en", "au", "aux", "ce", "cet", "cette", "qui",
    "que", "quoi", "pour", "avec", "tu", "tes", "vous", "nous", "il", "lo", "gli", "uno", "una",
    "di", "da", "per", "con", "che", "chi", "noi", "voi", "ti", "si", "del", "della", "all",
    "alla", "yes", "oui", "ok", "last", "night", "nuit", "stanotte", "notte",
    "hier", "ieri", "today", "aujourd", "oggi", "think", "pense", "penso", "maybe", "peut",
    "forse", "sure", "really", "vraiment", "davvero", "tous", "tutti", "lets", "let",
    "say", "said", "dit", "detto", "may", "can", "will", "just", "also", "then", "now", "here",
    "there", "they", "them", "one", "ami", "bas", "han", "ver", "ils", "mon", "ton", "son", "mes",
    "ses", "dans", "sur", "par", "mio", "tuo", "suo", "sul", "nel", "cosa", "quando", "dove",
    "anche", "ancora", "poi", "gia", "ici",
})
_AFTER: Final = frozenset({"out", "fuori", "dehors"})  # "Basil out!"
_ENDS: Final = re.compile(r"[,.;:!?]+|\b(?:but|mais|ma|however|pero)\b")
_TOKEN: Final = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """Lower case without accents: how every word and name is compared."""
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in text if not unicodedata.combining(c))


def _role_phrases() -> dict[tuple[str, ...], str]:
    phrases: dict[tuple[str, ...], str] = {}
    for role in ROLE_IDS:
        for lang in ("en", "fr", "it"):
            phrases[tuple(_TOKEN.findall(fold(ROLES[role].name(lang))))] = role
    for word, role in _ROLE_SYNONYMS.items():
        phrases[(word,)] = role
    phrases[("trusis",)] = TRUSIS
    return phrases


ROLE_PHRASES: Final = _role_phrases()
LEXICON: Final[dict[str, str]] = {w: c for c, words in _WORDS.items() for w in words}
_SPELLED: Final = tuple(sorted({w for w in LEXICON if len(w) >= 5}
                               | {p[0] for p in ROLE_PHRASES if len(p) == 1 and len(p[0]) >= 5}))


@lru_cache(maxsize=8192)
def _spell(word: str) -> str:
    """The lexicon word `word` is a typo of, or `word` itself."""
    if word in LEXICON or len(word) < 5 or word.isdigit():
        return word
    close = difflib.get_close_matches(word, _SPELLED, n=1, cutoff=0.82)
    return close[0] if close else word


class _Word:
    __slots__ = ("clause", "concept", "role", "seat", "text")

    def __init__(self, text: str, clause: int) -> None:
        self.text = text
        self.clause = clause
        self.concept = ""
        self.role = ""
        self.seat = 0


def _names_index(names: Sequence[str]) -> list[tuple[int, tuple[str, ...]]]:
    return [(seat, tuple(_TOKEN.findall(fold(name)))) for seat, name in enumerate(names, 1)]


def _seat_of(word: str, index: list[tuple[int, tuple[str, ...]]]) -> int:
    """The seat whose name `word` is (its first word, a unique prefix, a close typo), or 0."""
    whole = [s for s, parts in index if parts and (word == "".join(parts) or word == parts[0])]
    if len(whole) == 1:
        return whole[0]
    if whole or word in _STOP or word in LEXICON or len(word) < 3:
        return 0
    prefix = [s for s, parts in index if parts and parts[0].startswith(word)]
    if len(prefix) == 1:
        return prefix[0]
    if len(word) >= 4 and not prefix:
        firsts = {parts[0]: s for s, parts in index if parts}
        close = difflib.get_close_matches(word, list(firsts), n=2, cutoff=0.8)
        ratios = [difflib.SequenceMatcher(None, word, c).ratio() for c in close]
        if len(close) == 1 or (len(close) == 2 and ratios[0] > ratios[1]):
            return firsts[close[0]]
    return 0


def words(text: str, names: Sequence[str]) -> list[_Word]:
    """Steps 1 to 3: the message's words with their concepts, roles and seats."""
    text = re.sub(r"(?<=\w)n['’]t\b", " not", text.casefold())
    text = re.sub(r"#\s*(\d+)", r" seat \1 ", text)
    text = re.sub(r"(?<!\w)è(?!\w)", " e ", text)  # Italian "is", not "and"
    out: list[_Word] = []
    index = _names_index(names)
    n = len(names)
    for clause, part in enumerate(_ENDS.split(fold(text))):
        raw = _TOKEN.findall(part or "")
        i = 0
        while i < len(raw):
            # Multi-word player names first ("Bob Smith"), then role names ("wise woman").
            for seat, parts in index:
                if len(parts) > 1 and tuple(raw[i:i + len(parts)]) == parts:
                    w = _Word(" ".join(parts), clause)
                    w.seat = seat
                    out.append(w)
                    i += len(parts)
                    break
            else:
                for size in (2, 1):
                    phrase = tuple(_spell(x) for x in raw[i:i + size])
                    if len(phrase) == size and phrase in ROLE_PHRASES and not (
                            size == 1 and _seat_exact(raw[i], index)):
                        w = _Word(" ".join(phrase), clause)
                        w.concept, w.role = "ROLE", ROLE_PHRASES[phrase]
                        out.append(w)
                        i += size
                        break
                else:
                    out.append(_one(raw[i], clause, index, n, out))
                    i += 1
    return out


def _seat_exact(word: str, index: list[tuple[int, tuple[str, ...]]]) -> bool:
    return any(parts and word == parts[0] for _s, parts in index)


def _one(raw: str, clause: int, index: list[tuple[int, tuple[str, ...]]], n: int,
         before: list[_Word]) -> _Word:
    w = _Word(raw, clause)
    prev = before[-1] if before and before[-1].clause == clause else None
    if raw.isdigit() or (raw[0] == "p" and raw[1:].isdigit()):
        number = int(raw.lstrip("p"))
        after = prev is not None and prev.concept in ("SEATWORD", "VOTE", "SWEEP", "FORESEE")
        if 1 <= number <= n and (after or raw[0] == "p"):
            w.seat = number
        return w
    if raw in LEXICON and not _seat_exact(raw, index):
        w.concept = LEXICON[raw]
        return w
    seat = _seat_of(raw, index)
    if seat:
        w.seat = seat
        return w
    spelled = _spell(raw)
    w.concept = LEXICON.get(spelled, "")
    return w


def parse(text: str, names: Sequence[str], speaker: int = 0) -> list[Claim]:
    """Every claim the message `text` of seat `speaker` makes; `names[s - 1]` is seat s."""
    return list(_parse(text, tuple(names), speaker))


@lru_cache(maxsize=4096)
def _parse(text: str, names: tuple[str, ...], speaker: int) -> tuple[Claim, ...]:
    ws = words(text[:500], names)
    if not ws:
        return ()
    concepts = {w.concept for w in ws}
    sweep, foresee = "SWEEP" in concepts, "FORESEE" in concepts
    grave = "WAS" in concepts or any(w.role == GRAVEKEEPER for w in ws)
    out: list[Claim] = []
    last = 0  # the last seat named, for pronouns and verdicts without a name
    clauses: dict[int, list[_Word]] = {}
    for w in ws:
        clauses.setdefault(w.clause, []).append(w)
    pending: list[tuple[str, str]] = []  # verdicts waiting for a seat named later
    for _, cl in sorted(clauses.items()):
        seats = [w.seat for w in cl if w.seat and w.seat != speaker]
        for w in cl:
            if w.concept == "PRONOUN" and last and not seats:
                seats = [last]
        target = seats[-1] if seats else 0
        cs = [w.concept for w in cl]
        neg = "NOT" in cs
        first = "BE1" in cs or "SELF" in cs or "AS" in cs
        verdict = _verdict(cl)
        if target and pending and not verdict:
            for v, role in pending:
                out.append(_result(v, role, target, sweep, foresee, grave))
            pending = []
        # Self claims: "I'm the Sweeper", "je suis le Balayeur", "sono il Parroco".
        for i, w in enumerate(cl):
            if w.concept == "ROLE" and w.role != TRUSIS and first and not target \
                    and "NOT" not in cs[max(0, i - 3):i]:
                out.append(Claim(ROLE, speaker, w.role))
        # Defences: "it's not me", "I am innocent", "je ne suis pas un Trusis".
        if first and not target and (verdict == "CLEAR" or (
                verdict != "TRUSIS" and _near(cs, "NOT", "SELF"))):
            out.append(Claim(DEFEND, speaker))
        if target:
            vote = _index(cs, "VOTE")
            named = next(i for i, w in enumerate(cl) if w.seat == target or (
                w.concept == "PRONOUN"))
            if vote is not None and (vote < named or cl[vote].text in _AFTER):
                out.append(Claim(VOUCH if "NOT" in cs[:vote + 1][-3:] else VOTE_CALL, target))
            elif verdict:
                out.append(_result(verdict, _role_in(cl), target, sweep, foresee, grave))
            elif "SUSPECT" in cs and not _near(cs, "NOT", "SUSPECT"):
                out.append(Claim(ACCUSE, target))
            elif "TRUST" in cs:
                out.append(Claim(ACCUSE if neg else VOUCH, target))
            elif "ROLE" in cs and ("BE" in cs or "WAS" in cs or foresee) and not neg:
                out.append(_result("ROLE", _role_in(cl), target, sweep, foresee, grave))
            last = target
        elif not verdict and foresee and _role_in(cl) and last and not first:
            out.append(_result("ROLE", _role_in(cl), last, sweep, foresee, grave))
        elif verdict and not first:
            if last:
                out.append(_result(verdict, _role_in(cl), last, sweep, foresee, grave))
            else:
                pending.append((verdict, _role_in(cl)))
    return tuple(dict.fromkeys(out))


def _index(cs: list[str], concept: str) -> int | None:
    return cs.index(concept) if concept in cs else None


def _near(cs: list[str], a: str, b: str, span: int = 3) -> bool:
    """Whether concept `a` comes at most `span` words before concept `b`."""
    return any(c == a and b in cs[i + 1:i + 1 + span] for i, c in enumerate(cs))


def _role_in(cl: list[_Word]) -> str:
    return next((w.role for w in cl if w.concept == "ROLE" and w.role != TRUSIS), "")


def _verdict(cl: list[_Word]) -> str:
    """TRUSIS, CASTAWAY or CLEAR for what the clause says a seat is (or was), else ""."""
    cs = [w.concept for w in cl]
    for i, w in enumerate(cl):
        negated = "NOT" in cs[max(0, i - 3):i]
        if w.concept == "TRUSIS" or (w.concept == "ROLE" and w.role == TRUSIS):
            if negated:
                return "CLEAR"
            return "TRUSIS"
        if w.concept == "CASTAWAY" or (w.concept == "ROLE" and w.role == CASTAWAY):
            return "CLEAR" if negated else "CASTAWAY"
        if w.concept == "CLEAR" or (w.concept == "ROLE" and w.role == HUMAN):
            return "TRUSIS" if negated and w.concept == "CLEAR" else "CLEAR"
    return ""


def _result(verdict: str, role: str, about: int, sweep: bool, foresee: bool,
            grave: bool) -> Claim:
    """The claim that `about` is `verdict`, by the power the message speaks of."""
    if foresee and (role or verdict == "TRUSIS"):
        return Claim(FORESEE, about, role or TRUSIS)
    if verdict == "ROLE":
        return Claim(ROLE, about, role)
    if sweep:
        kind = {"TRUSIS": chat.SWEEP_TRUSIS, "CASTAWAY": chat.SWEEP_CASTAWAY}.get(
            verdict, chat.SWEEP_CLEAR)
        return Claim(kind, about)
    if grave and verdict != "CASTAWAY":
        return Claim(chat.GRAVE_TRUSIS if verdict == "TRUSIS" else chat.GRAVE_CLEAR, about)
    if verdict == "TRUSIS" or verdict == "CASTAWAY":
        return Claim(ACCUSE, about)
    return Claim(VOUCH, about)
