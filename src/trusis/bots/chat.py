"""What bots say, in English, French and Italian, and how bots read it back.

Bots talk so that people at a table with bots have something to read, and so
that bots can share what they learned the way people do: a Sweeper names the
Trusis it found, a Gravekeeper tells what the dead were, an Oracle whispers
tips to the Trusis. Every sentence comes from the templates below; a bot reads
a message by matching it against the templates of every language, so a claim
is understood whoever wrote it. Free text that matches nothing is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from trusis.rules.roles import ROLE_IDS, ROLES

# Claim kinds that carry a fact about `{name}`; the bool says whether others may parse it.
SWEEP_TRUSIS: Final = "sweep_trusis"
SWEEP_CASTAWAY: Final = "sweep_castaway"
SWEEP_CLEAR: Final = "sweep_clear"
GRAVE_TRUSIS: Final = "grave_trusis"
GRAVE_CLEAR: Final = "grave_clear"
SUSPECT: Final = "suspect"
ALLY: Final = "ally"  # a whisper: "I know who you are; I am on your side"
TIP: Final = "tip"  # a whisper: "{name} is the {role}"
DEFEND: Final = "defend"
FOLLOW: Final = "follow"
HELLO: Final = "hello"
# Said by the `easy`/`normal` bots only, and read back by `trusis.bots.listen` (not in PARSED,
# so the `heuristic` bot reads exactly what it always read).
CLAIM_ROLE: Final = "claim_role"  # "I am the {role}."
COUNTER: Final = "counter"  # "{name} is lying: I am the {role}."
PLAN: Final = "plan"  # a whisper among TRUSIS: "Let's all vote {name}."
BUS: Final = "bus"  # a whisper to a doomed ally: why this bot votes against it

TEMPLATES: Final[Mapping[str, Mapping[str, Sequence[str]]]] = {
    "en": {
        SWEEP_TRUSIS: ("I swept {name} last night: Trusis! Vote {name}.",),
        SWEEP_CASTAWAY: ("I swept {name}: a Castaway. They win if anyone wins; vote {name}.",),
        SWEEP_CLEAR: ("I swept {name}: neither Trusis nor Castaway.",),
        GRAVE_TRUSIS: ("I am the Gravekeeper: {name} was a Trusis.",),
        GRAVE_CLEAR: ("I am the Gravekeeper: {name} was not a Trusis.",),
        SUSPECT: ("I don't trust {name}.", "{name} votes like a Trusis.",
                  "Why is nobody looking at {name}?"),
        ALLY: ("I know who you are. I am on your side.",),
        TIP: ("{name} is the {role}.",),
        DEFEND: ("It's not me, I'm on the Humans' side!", "You are wasting your votes on me."),
        FOLLOW: ("Fine, I'll go with the majority.", "Let's not split the vote."),
        HELLO: ("Good luck, everyone.", "Let's find them."),
        CLAIM_ROLE: ("I am the {role}.",),
        COUNTER: ("{name} is lying: I am the {role}.",),
        PLAN: ("Let's all vote {name}.",),
        BUS: ("Sorry {name}: you are lost, I vote with them to stay hidden.",),
    },
    "fr": {
        SWEEP_TRUSIS: ("J'ai balayé {name} cette nuit : Trusis ! Votez {name}.",),
        SWEEP_CASTAWAY: ("J'ai balayé {name} : Naufragé. Il gagne si quelqu'un gagne ; "
                         "votez {name}.",),
        SWEEP_CLEAR: ("J'ai balayé {name} : ni Trusis ni Naufragé.",),
        GRAVE_TRUSIS: ("Je suis le Croque-mort : {name} était un Trusis.",),
        GRAVE_CLEAR: ("Je suis le Croque-mort : {name} n'était pas un Trusis.",),
        SUSPECT: ("Je ne fais pas confiance à {name}.", "{name} vote comme un Trusis.",
                  "Pourquoi personne ne regarde {name} ?"),
        ALLY: ("Je sais qui vous êtes. Je suis de votre côté.",),
        TIP: ("{name} est {role}.",),
        DEFEND: ("Ce n'est pas moi, je suis du côté des Humains !",
                 "Vous gaspillez vos votes sur moi."),
        FOLLOW: ("D'accord, je suis la majorité.", "Ne divisons pas le vote."),
        HELLO: ("Bonne chance à tous.", "Trouvons-les."),
        CLAIM_ROLE: ("Je suis {role}.",),
        COUNTER: ("{name} ment : je suis {role}.",),
        PLAN: ("Votons tous {name}.",),
        BUS: ("Désolé {name} : tu es perdu, je vote avec eux pour rester caché.",),
    },
    "it": {
        SWEEP_TRUSIS: ("Stanotte ho spazzato {name}: Trusis! Votate {name}.",),
        SWEEP_CASTAWAY: ("Ho spazzato {name}: Naufrago. Vince se qualcuno vince; "
                         "votate {name}.",),
        SWEEP_CLEAR: ("Ho spazzato {name}: né Trusis né Naufrago.",),
        GRAVE_TRUSIS: ("Sono il Becchino: {name} era un Trusis.",),
        GRAVE_CLEAR: ("Sono il Becchino: {name} non era un Trusis.",),
        SUSPECT: ("Non mi fido di {name}.", "{name} vota come un Trusis.",
                  "Perché nessuno guarda {name}?"),
        ALLY: ("So chi siete. Sono dalla vostra parte.",),
        TIP: ("{name} è {role}.",),
        DEFEND: ("Non sono io, sto con gli Umani!", "State sprecando i voti su di me."),
        FOLLOW: ("Va bene, seguo la maggioranza.", "Non dividiamo il voto."),
        HELLO: ("Buona fortuna a tutti.", "Troviamoli."),
        CLAIM_ROLE: ("Sono {role}.",),
        COUNTER: ("{name} mente: sono io {role}.",),
        PLAN: ("Votiamo tutti {name}.",),
        BUS: ("Scusa {name}: sei perso, voto con loro per restare nascosto.",),
    },
}

# Kinds whose messages carry information other bots act on.
PARSED: Final = (SWEEP_TRUSIS, SWEEP_CASTAWAY, SWEEP_CLEAR, GRAVE_TRUSIS, GRAVE_CLEAR,
                 SUSPECT, ALLY, TIP)


@dataclass(frozen=True, slots=True)
class Claim:
    """What a message said: its kind, the seat it names (0 if none) and a role (TIP)."""

    kind: str
    about: int = 0
    role: str = ""


def phrase(lang: str, kind: str, pick: int, name: str = "", role: str = "") -> str:
    """The `pick`-th template (modulo their number) of `kind` in `lang`, filled in."""
    options = TEMPLATES.get(lang, TEMPLATES["en"])[kind]
    template = options[pick % len(options)]
    role_name = ROLES[role].name(lang) if role in ROLES else role
    return template.format(name=name, role=role_name)


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    role_names: dict[str, str] = {}
    for role in ROLE_IDS:
        for lang in TEMPLATES:
            role_names[ROLES[role].name(lang).lower()] = role
    out: list[tuple[re.Pattern[str], str]] = []
    for table in TEMPLATES.values():
        for kind in PARSED:
            for template in table[kind]:
                rx = re.escape(template)
                rx = rx.replace(re.escape("{name}"), "(?P<name>.+?)", 1)
                rx = rx.replace(re.escape("{name}"), "(?P=name)")
                rx = rx.replace(re.escape("{role}"), "(?P<role>.+?)")
                out.append((re.compile(f"^{rx}$", re.IGNORECASE), kind))
    _ROLE_BY_NAME.update(role_names)
    return tuple(out)


_ROLE_BY_NAME: dict[str, str] = {}


def parse(text: str, seats_by_name: Mapping[str, int]) -> Claim | None:
    """The claim a bot template message makes, or None for any other text."""
    for pattern, kind in _patterns():
        match = pattern.match(text)
        if match is None:
            continue
        groups = match.groupdict()
        about = 0
        if "name" in groups:
            about = seats_by_name.get(groups["name"], 0)
            if not about:
                continue
        role = ""
        if "role" in groups:
            role = _ROLE_BY_NAME.get(groups["role"].lower(), "")
            if not role:
                continue
        return Claim(kind, about, role)
    return None
