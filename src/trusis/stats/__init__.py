"""End-of-game statistics declared as data (`stats.json`, R60–R63).

`declaration` loads and validates the declaration, `sheet` is the init/set/inc API,
`scoring` folds a record into the Trusis statistics, `aggregate` sums games by id,
`display` and `tables` put them on screen; the `trusis stats` command is `trusis.cli.stats`.
"""

from trusis.stats.aggregate import Aggregate, aggregate
from trusis.stats.declaration import (
    Declaration,
    StatDef,
    StatsDeclarationError,
    load_declaration,
    parse_declaration,
    shipped_declaration,
)
from trusis.stats.scoring import score
from trusis.stats.sheet import (
    GameStats,
    NotInitialised,
    Sheet,
    StatsError,
    StatTypeError,
    UnknownStatistic,
)

__all__ = [
    "Aggregate",
    "Declaration",
    "GameStats",
    "NotInitialised",
    "Sheet",
    "StatDef",
    "StatTypeError",
    "StatsDeclarationError",
    "StatsError",
    "UnknownStatistic",
    "aggregate",
    "load_declaration",
    "parse_declaration",
    "score",
    "shipped_declaration",
]
