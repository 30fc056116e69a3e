"""The fourteen roles of Trusis as one data table (docs/rules.md §2).

Everything the engine needs to know about a role — its team, its names in three
languages, and which powers it has in which phase — lives here, so that adding
or auditing a role means reading one table, not hunting through the rules code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# Role ids (docs/rules.md §2). Plain strings: they are what records and views carry.
HUMAN: Final = "HUMAN"
SWEEPER: Final = "SWEEPER"
GRAVEKEEPER: Final = "GRAVEKEEPER"
PRIEST: Final = "PRIEST"
WISE_WOMAN: Final = "WISE_WOMAN"
WHITE_KNIGHT: Final = "WHITE_KNIGHT"
TRUSIS: Final = "TRUSIS"
BUTCHER: Final = "BUTCHER"
ILLUSIONIST: Final = "ILLUSIONIST"
ORACLE: Final = "ORACLE"
BLACK_KNIGHT: Final = "BLACK_KNIGHT"
KAMIKAZE: Final = "KAMIKAZE"
GRAVEDIGGER: Final = "GRAVEDIGGER"
CASTAWAY: Final = "CASTAWAY"

# Teams. A team is fixed by the role and never changes.
TEAM_HUMAN: Final = "HUMAN"
TEAM_TRUSIS: Final = "TRUSIS"
TEAM_CASTAWAY: Final = "CASTAWAY"
TEAMS: Final = (TEAM_HUMAN, TEAM_TRUSIS, TEAM_CASTAWAY)

# Phase kinds.
DAY: Final = "day"
NIGHT: Final = "night"

# Power (action) names, as records spell them in `do`.
VOTE: Final = "vote"
ILLUSION: Final = "illusion"
PROTECT: Final = "protect"
EXTRA_VOTE: Final = "extra_vote"
KAMIKAZE_STRIKE: Final = "kamikaze"
REVIVE: Final = "revive"
SWEEP: Final = "sweep"
FORESEE: Final = "foresee"


@dataclass(frozen=True, slots=True)
class Role:
    """One row of the role table: what a role is and what it may do when."""

    id: str
    team: str
    en: str
    fr: str
    it: str
    day_powers: tuple[str, ...] = ()
    night_powers: tuple[str, ...] = ()

    def name(self, lang: str = "en") -> str:
        """The role's name in `lang` (en, fr or it), English when unknown."""
        return {"en": self.en, "fr": self.fr, "it": self.it}.get(lang, self.en)


_KNIGHT = (REVIVE,)

# The table of §2, in its order: R3 builds custom sets in exactly this order.
ROLE_TABLE: Final[tuple[Role, ...]] = (
    Role(HUMAN, TEAM_HUMAN, "Human", "Humain", "Umano"),
    Role(SWEEPER, TEAM_HUMAN, "Sweeper", "Balayeur", "Spazzino", night_powers=(SWEEP,)),
    Role(GRAVEKEEPER, TEAM_HUMAN, "Gravekeeper", "Croque-mort", "Becchino"),
    Role(PRIEST, TEAM_HUMAN, "Priest", "Prêtre", "Parroco", night_powers=(PROTECT,)),
    Role(WISE_WOMAN, TEAM_HUMAN, "Wise Woman", "Commère", "Suocera",
         night_powers=(EXTRA_VOTE,)),
    Role(WHITE_KNIGHT, TEAM_HUMAN, "White Knight", "Paladin blanc", "Paladino bianco",
         day_powers=_KNIGHT, night_powers=_KNIGHT),
    Role(TRUSIS, TEAM_TRUSIS, "Trusis", "Trusis", "Trusis", night_powers=(VOTE,)),
    Role(BUTCHER, TEAM_TRUSIS, "Butcher", "Boucher", "Macellaio"),
    Role(ILLUSIONIST, TEAM_TRUSIS, "Illusionist", "Illusionniste", "Illusionista",
         day_powers=(ILLUSION,)),
    Role(ORACLE, TEAM_TRUSIS, "Oracle", "Oracle", "Oracolo", night_powers=(FORESEE,)),
    Role(BLACK_KNIGHT, TEAM_TRUSIS, "Black Knight", "Paladin noir", "Paladino nero",
         day_powers=_KNIGHT, night_powers=_KNIGHT),
    Role(KAMIKAZE, TEAM_TRUSIS, "Kamikaze", "Kamikaze", "Kamikaze",
         night_powers=(KAMIKAZE_STRIKE,)),
    Role(GRAVEDIGGER, TEAM_TRUSIS, "Gravedigger", "Profanatrice", "Profanatrice"),
    Role(CASTAWAY, TEAM_CASTAWAY, "Castaway", "Naufragé", "Naufrago"),
)

ROLES: Final[dict[str, Role]] = {role.id: role for role in ROLE_TABLE}
ROLE_IDS: Final[tuple[str, ...]] = tuple(ROLES)
SPECIAL_ROLE_IDS: Final[tuple[str, ...]] = tuple(r for r in ROLE_IDS if r != HUMAN)
TEAM_OF: Final[dict[str, str]] = {role.id: role.team for role in ROLE_TABLE}

# R2: the standard list; a table of N players takes its first N entries.
STANDARD_LIST: Final[tuple[str, ...]] = (
    HUMAN, HUMAN, TRUSIS, SWEEPER, BUTCHER, PRIEST, HUMAN, TRUSIS, GRAVEKEEPER,
    ILLUSIONIST, WISE_WOMAN, ORACLE, WHITE_KNIGHT, BLACK_KNIGHT, CASTAWAY, KAMIKAZE,
    SWEEPER, GRAVEDIGGER, PRIEST, TRUSIS, GRAVEKEEPER, ORACLE, CASTAWAY, WISE_WOMAN,
    KAMIKAZE, WHITE_KNIGHT, BLACK_KNIGHT, HUMAN, HUMAN, CASTAWAY,
)

MIN_PLAYERS: Final = 5
MAX_PLAYERS: Final = 30

# Powers resolved at the end of the phase: they can be changed or withdrawn until
# the seat passes (R13). `sweep` and `foresee` are answered at once instead.
CHOICE_POWERS: Final = frozenset({VOTE, ILLUSION, PROTECT, EXTRA_VOTE, KAMIKAZE_STRIKE, REVIVE})
INSTANT_POWERS: Final = frozenset({SWEEP, FORESEE})
ALL_POWERS: Final = CHOICE_POWERS | INSTANT_POWERS

# Who may use each power, for the refusal "only the Sweeper can sweep".
POWER_HOLDERS: Final[dict[str, tuple[str, ...]]] = {
    ILLUSION: (ILLUSIONIST,),
    PROTECT: (PRIEST,),
    EXTRA_VOTE: (WISE_WOMAN,),
    KAMIKAZE_STRIKE: (KAMIKAZE,),
    REVIVE: (WHITE_KNIGHT, BLACK_KNIGHT),
    SWEEP: (SWEEPER,),
    FORESEE: (ORACLE,),
}


def powers(role_id: str, phase_kind: str) -> tuple[str, ...]:
    """The powers `role_id` has in a phase: everyone votes by day (R20)."""
    role = ROLES[role_id]
    if phase_kind == DAY:
        return (VOTE, *role.day_powers)
    return role.night_powers


# Precomputed for the hot path: (role, phase kind) -> powers.
POWERS_BY_PHASE: Final[dict[tuple[str, str], tuple[str, ...]]] = {
    (r, k): powers(r, k) for r in ROLE_IDS for k in (DAY, NIGHT)
}
