"""What `normal` and `easy` bots say beyond claims: why they vote, and answers to questions.

The bots' own message catalogue for conversation, in English, French and Italian,
beside `trusis.bots.chat`'s (claims, results, whispers), which it does not touch:
the `heuristic` bot never says these lines and reads none of them. Every kind has
several wordings, so a bot never says the same line twice in a row
(`trusis.bots.talk`). `{name}` is the seat the line is about, `{other}` a second
seat, `{role}` a role's name in the line's language.

A bot reads these lines back with `read` — exactly, as it reads its own claims —
so a reason ("Basil voted for Clara, who is clear") counts as what it is, an
accusation of Basil, and never passes for a claim of the speaker's.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Final

from trusis.bots.chat import SUSPECT, Claim
from trusis.rules.roles import ROLE_IDS, ROLES

# Why a bot votes `{name}` (true for the Humans; a public fact or a hunch for the Trusis).
WHY_SWEPT: Final = "why_swept"  # {other} published a sweep: {name} is a Trusis
WHY_LIAR: Final = "why_liar"  # {name}'s claim cannot be true
WHY_CONTESTED: Final = "why_contested"  # {name} and someone else claim the same {role}
WHY_VOTED_CLEAR: Final = "why_voted_clear"  # {name} voted for {other}, who is clear
WHY_VOTED_ME: Final = "why_voted_me"  # {name} voted for me, and I know what I am
WHY_VOTED_VICTIM: Final = "why_voted_victim"  # {name} voted for {other}, later killed at night
WHY_AGAINST_CLAIMER: Final = "why_against_claimer"  # {name} votes against a trusted {other}
WHY_ACCUSED: Final = "why_accused"  # others accused {name} too
WHY_CROWD: Final = "why_crowd"  # {name} leads the vote, and a split vote kills nobody
WHY_HUNCH: Final = "why_hunch"  # nothing solid
WHY_LOT: Final = "why_lot"  # D70: no evidence on anyone yet, {name} is the bots' lot
REASONS: Final = (WHY_SWEPT, WHY_LIAR, WHY_CONTESTED, WHY_VOTED_CLEAR, WHY_VOTED_ME,
                  WHY_VOTED_VICTIM, WHY_AGAINST_CLAIMER, WHY_ACCUSED, WHY_CROWD, WHY_HUNCH,
                  WHY_LOT)
# Asking, instead of answering a vote with a vote.
ASK_WHY_ME: Final = "ask_why_me"  # to {name}, who voted for this bot
# Answers to a direct question.
NOT_VOTING: Final = "not_voting"  # "why {name}?" of a bot that does not vote {name}
SUSPECT_NAME: Final = "suspect_name"  # "who do you suspect?": {name} (a reason follows)
SUSPECT_NOBODY: Final = "suspect_nobody"
ROLE_YES: Final = "role_yes"  # "are you the {role}?"
ROLE_NO: Final = "role_no"
ROLE_COY: Final = "role_coy"  # a power role nobody may learn it holds
NOT_TRUSIS: Final = "not_trusis"  # "are you a Trusis?"
ON_HUMAN_SIDE: Final = "on_human_side"  # "are you a Human?"

# What a listening bot reads in these lines: an accusation, when the reason is evidence.
# A hunch or the crowd is none: read as one, every explained hunch added suspicion to its
# seat, and the seat on everyone's list (a person's: no bot votes for itself) drew more.
ACCUSING: Final = frozenset({WHY_SWEPT, WHY_LIAR, WHY_CONTESTED, WHY_VOTED_CLEAR, WHY_VOTED_ME,
                             WHY_VOTED_VICTIM, WHY_AGAINST_CLAIMER, WHY_ACCUSED})

LINES: Final[Mapping[str, Mapping[str, Sequence[str]]]] = {
    "en": {
        WHY_SWEPT: ("{other} swept {name} and found a Trusis; nobody has shown otherwise.",
                    "{name} was found out by {other}'s sweep, and that still stands."),
        WHY_LIAR: ("{name}'s claim cannot be true.", "What {name} claimed does not hold up."),
        WHY_CONTESTED: ("{name} claims the {role}, and so does someone else: one of them lies.",
                        "Two of us claim the {role}, {name} among them. I don't buy it."),
        WHY_VOTED_CLEAR: ("{name} voted for {other}, who is clear.",
                          "{name} went after {other}, and {other} is not a Trusis."),
        WHY_VOTED_ME: ("{name} voted for me, and I know I'm not a Trusis.",
                       "{name} is after me, and I know what I am."),
        WHY_VOTED_VICTIM: ("{name} voted for {other}, and the Trusis killed {other} that night.",
                           "{name} was on {other} the day before {other} was killed."),
        WHY_AGAINST_CLAIMER: ("{name} votes against {other}, whose results nobody contests.",
                              "{name} keeps going after {other}, who has been useful."),
        WHY_ACCUSED: ("I'm not the only one who doubts {name}.",
                      "Others have their doubts about {name} as well."),
        WHY_CROWD: ("{name} has the most votes, and a split vote kills nobody.",
                    "Most of us are on {name}; splitting the vote saves everyone."),
        WHY_HUNCH: ("Nothing solid on {name}, just a hunch. Change my mind.",
                    "Only a hunch about {name}; I can still change my vote.",
                    "{name} for now, but I'm open to better ideas."),
        WHY_LOT: ("No evidence on anyone yet, so we bots vote together by lot: it drew "
                  "{name}. Not an accusation; talk, and we follow the evidence.",
                  "It's a lot, not a suspicion: with nothing to go on, the bots agree on one "
                  "seat, {name} this time. Give us a reason to change.",
                  "Nobody has shown anything yet. The bots' lot fell on {name}: nothing "
                  "personal, and any evidence beats it."),
        ASK_WHY_ME: ("{name}, why me?", "Why me, {name}? What did I do?",
                     "{name}, what makes you vote for me?"),
        NOT_VOTING: ("I'm not voting {name}.", "I'm not on {name}."),
        SUSPECT_NAME: ("{name}, for now.", "I'd say {name}."),
        SUSPECT_NOBODY: ("Nobody yet: I'm listening.", "Too early to say; I'm watching the votes."),
        ROLE_YES: ("Yes, I'm the {role}.", "I am the {role}, yes."),
        ROLE_NO: ("No, I'm not the {role}.", "Not me: no {role} here."),
        ROLE_COY: ("I won't say: the Trusis would know whom to kill tonight.",
                   "Better not to answer that in public."),
        NOT_TRUSIS: ("No, I'm not a Trusis.", "Of course not."),
        ON_HUMAN_SIDE: ("Yes, I'm with the Humans.", "I'm on the Humans' side."),
    },
    "fr": {
        WHY_SWEPT: ("{other} a balayé {name} et trouvé un Trusis ; personne n'a prouvé le "
                    "contraire.", "{name} a été démasqué par le balayage de {other}, et ça "
                    "tient toujours."),
        WHY_LIAR: ("Ce que {name} affirme ne peut pas être vrai.",
                   "L'annonce de {name} ne tient pas."),
        WHY_CONTESTED: ("{name} dit être {role}, et quelqu'un d'autre aussi : l'un des deux ment.",
                        "Deux d'entre nous disent être {role}, dont {name}. Je n'y crois pas."),
        WHY_VOTED_CLEAR: ("{name} a voté contre {other}, qui est propre.",
                          "{name} s'en est pris à {other}, et {other} n'est pas un Trusis."),
        WHY_VOTED_ME: ("{name} a voté contre moi, et je sais que je ne suis pas un Trusis.",
                       "{name} me vise, et je sais ce que je suis."),
        WHY_VOTED_VICTIM: ("{name} a voté contre {other}, et les Trusis ont tué {other} cette "
                           "nuit-là.", "{name} visait {other} la veille de sa mort."),
        WHY_AGAINST_CLAIMER: ("{name} vote contre {other}, dont personne ne conteste les "
                              "résultats.", "{name} s'acharne sur {other}, qui nous a été utile."),
        WHY_ACCUSED: ("Je ne suis pas le seul à douter de {name}.",
                      "D'autres doutent aussi de {name}."),
        WHY_CROWD: ("{name} a le plus de voix, et un vote partagé ne tue personne.",
                    "La plupart d'entre nous sont sur {name} ; diviser le vote sauve tout le "
                    "monde."),
        WHY_HUNCH: ("Rien de solide contre {name}, juste une intuition. Convainquez-moi.",
                    "Une simple intuition sur {name} ; je peux encore changer mon vote.",
                    "{name} pour l'instant, mais je suis ouvert à mieux."),
        WHY_LOT: ("Aucune preuve contre personne pour l'instant, alors nous, les bots, "
                  "votons ensemble par tirage au sort : il a désigné {name}. Ce n'est pas une "
                  "accusation ; parlez, et nous suivrons les preuves.",
                  "C'est un tirage au sort, pas un soupçon : sans rien de solide, les bots "
                  "s'accordent sur une place, celle de {name} cette fois. Donnez-nous une "
                  "raison de changer.",
                  "Personne n'a rien montré encore. Le tirage des bots est tombé sur {name} : "
                  "rien de personnel, et la moindre preuve passe avant."),
        ASK_WHY_ME: ("{name}, pourquoi moi ?", "Pourquoi moi, {name} ? Qu'est-ce que j'ai fait ?",
                     "{name}, qu'est-ce qui te fait voter contre moi ?"),
        NOT_VOTING: ("Je ne vote pas contre {name}.", "Je ne suis pas sur {name}."),
        SUSPECT_NAME: ("{name}, pour l'instant.", "Je dirais {name}."),
        SUSPECT_NOBODY: ("Personne encore : j'écoute.", "Trop tôt pour le dire ; je regarde "
                         "les votes."),
        ROLE_YES: ("Oui, je suis {role}.", "Je suis bien {role}, oui."),
        ROLE_NO: ("Non, je ne suis pas {role}.", "Pas moi : pas de {role} ici."),
        ROLE_COY: ("Je ne le dirai pas : les Trusis sauraient qui tuer cette nuit.",
                   "Mieux vaut ne pas répondre à ça en public."),
        NOT_TRUSIS: ("Non, je ne suis pas un Trusis.", "Bien sûr que non."),
        ON_HUMAN_SIDE: ("Oui, je suis avec les Humains.", "Je suis du côté des Humains."),
    },
    "it": {
        WHY_SWEPT: ("{other} ha spazzato {name} e ha trovato un Trusis; nessuno ha dimostrato il "
                    "contrario.", "{name} è stato scoperto dalla spazzata di {other}, e vale "
                    "ancora."),
        WHY_LIAR: ("Quello che dice {name} non può essere vero.",
                   "La dichiarazione di {name} non regge."),
        WHY_CONTESTED: ("{name} dice di essere {role}, e anche qualcun altro: uno dei due mente.",
                        "In due diciamo di essere {role}, tra cui {name}. Non ci credo."),
        WHY_VOTED_CLEAR: ("{name} ha votato {other}, che è pulito.",
                          "{name} se l'è presa con {other}, e {other} non è un Trusis."),
        WHY_VOTED_ME: ("{name} ha votato me, e so di non essere un Trusis.",
                       "{name} ce l'ha con me, e io so cosa sono."),
        WHY_VOTED_VICTIM: ("{name} ha votato {other}, e quella notte i Trusis hanno ucciso "
                           "{other}.", "{name} era su {other} il giorno prima che morisse."),
        WHY_AGAINST_CLAIMER: ("{name} vota contro {other}, i cui risultati nessuno contesta.",
                              "{name} continua ad attaccare {other}, che ci è stato utile."),
        WHY_ACCUSED: ("Non sono l'unico a dubitare di {name}.",
                      "Anche altri hanno dubbi su {name}."),
        WHY_CROWD: ("{name} ha più voti di tutti, e un voto diviso non uccide nessuno.",
                    "Quasi tutti siamo su {name}; dividere il voto salva tutti."),
        WHY_HUNCH: ("Niente di solido su {name}, solo un'intuizione. Convincetemi.",
                    "Solo un'intuizione su {name}; posso ancora cambiare voto.",
                    "{name} per ora, ma sono aperto a idee migliori."),
        WHY_LOT: ("Ancora nessuna prova su nessuno, quindi noi bot votiamo insieme a "
                  "sorte: è uscito {name}. Non è un'accusa; parlate, e seguiremo le prove.",
                  "È un sorteggio, non un sospetto: senza niente in mano, i bot si accordano su "
                  "un posto, quello di {name} stavolta. Dateci un motivo per cambiare.",
                  "Nessuno ha mostrato ancora niente. Il sorteggio dei bot è caduto su {name}: "
                  "niente di personale, e qualsiasi prova conta di più."),
        ASK_WHY_ME: ("{name}, perché io?", "Perché io, {name}? Cosa ho fatto?",
                     "{name}, cosa ti fa votare contro di me?"),
        NOT_VOTING: ("Non voto {name}.", "Non sono su {name}."),
        SUSPECT_NAME: ("{name}, per ora.", "Direi {name}."),
        SUSPECT_NOBODY: ("Nessuno ancora: ascolto.", "Troppo presto per dirlo; guardo i voti."),
        ROLE_YES: ("Sì, sono {role}.", "Sono proprio {role}, sì."),
        ROLE_NO: ("No, non sono {role}.", "Non io: niente {role} qui."),
        ROLE_COY: ("Non lo dico: i Trusis saprebbero chi uccidere stanotte.",
                   "Meglio non rispondere in pubblico."),
        NOT_TRUSIS: ("No, non sono un Trusis.", "Certo che no."),
        ON_HUMAN_SIDE: ("Sì, sto con gli Umani.", "Sono dalla parte degli Umani."),
    },
}


def line(lang: str, kind: str, pick: int, name: str = "", other: str = "", role: str = "") -> str:
    """The `pick`-th wording (modulo their number) of `kind` in `lang`, filled in."""
    options = LINES.get(lang, LINES["en"])[kind]
    role_name = ROLES[role].name(lang) if role in ROLES else role
    return options[pick % len(options)].format(name=name, other=other, role=role_name)


def wordings(lang: str, kind: str) -> int:
    """How many wordings `kind` has in `lang`."""
    return len(LINES.get(lang, LINES["en"])[kind])


@cache
def _patterns(lang: str | None) -> tuple[tuple[re.Pattern[str], str], ...]:
    out: list[tuple[re.Pattern[str], str]] = []
    for name, table in LINES.items():
        if lang is not None and name != lang:
            continue
        for kind, options in table.items():
            for template in options:
                rx = re.escape(template)
                for field in ("name", "other"):
                    rx = rx.replace(re.escape("{" + field + "}"), f"(?P<{field}>.+?)", 1)
                    rx = rx.replace(re.escape("{" + field + "}"), f"(?P={field})")
                rx = rx.replace(re.escape("{role}"), "(?P<role>.+?)")
                out.append((re.compile(f"^(?:{rx})", re.IGNORECASE), kind))
    return tuple(out)


def read(text: str, seats_by_name: Mapping[str, int], lang: str | None = None,
         ) -> tuple[str, list[Claim]] | None:
    """(kind, claims) of a bot line of this catalogue (of `lang` only, if given), or None
    for any other text.

    A reason is an accusation of the seat it names; a "yes, I'm the {role}" is a
    role claim (`trusis.bots.listen.ROLE`) of the speaker (about 0: the caller knows
    the speaker); everything else claims nothing.
    """
    for pattern, kind in _patterns(lang):
        match = pattern.match(text)
        if match is None:
            continue
        groups = match.groupdict()
        about = seats_by_name.get(groups.get("name") or "", 0)
        role = _ROLES.get((groups.get("role") or "").casefold(), "")
        if ("name" in groups and not about) or ("role" in groups and not role):
            continue  # not this line: another wording may fit ("pas un Trusis")
        if kind in ACCUSING:
            return kind, [Claim(SUSPECT, about)]
        if kind == ROLE_YES:
            return kind, [Claim("role", 0, role)]
        return kind, []
    return None


_ROLES: Final = {ROLES[r].name(lang).casefold(): r for r in ROLE_IDS for lang in LINES}
