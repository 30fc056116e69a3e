"""Dealing roles and checking that a table can start (R1–R7).

A table is described by its players and either the standard set, a custom set
(counts of special roles), or an explicit deal. Chance comes only from the
game's seed (`random.Random(seed).shuffle`), so a record always deals the same.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence

from trusis.rules.errors import SetupError, quoted
from trusis.rules.roles import (
    CASTAWAY,
    HUMAN,
    MAX_PLAYERS,
    MIN_PLAYERS,
    ROLE_IDS,
    ROLES,
    SPECIAL_ROLE_IDS,
    STANDARD_LIST,
    TEAM_CASTAWAY,
    TEAM_HUMAN,
    TEAM_OF,
    TRUSIS,
)


def _shown(role: object) -> str:
    """A role id as a message names it: as is if it is one, quoted on one line if not."""
    return role if isinstance(role, str) and role.isidentifier() else quoted(role)


def check_player_count(players: int) -> None:
    """R1: 5 to 30 players."""
    if players < MIN_PLAYERS:
        raise SetupError("too_few_players", minimum=MIN_PLAYERS, players=players)
    if players > MAX_PLAYERS:
        raise SetupError("too_many_players", maximum=MAX_PLAYERS, players=players)


def min_players_for(role: str, count: int) -> int:
    """R5: the fewest players a table needs to hold `count` copies of `role`.

    The k-th copy needs min(4k+1, p) players, p being the position of the k-th
    copy in the standard list (infinite when the list has fewer copies).
    """
    if count <= 0:
        return 0
    positions = [i + 1 for i, r in enumerate(STANDARD_LIST) if r == role]
    p = positions[count - 1] if count <= len(positions) else math.inf
    return int(min(4 * count + 1, p))


def check_custom_set(players: int, counts: Mapping[str, int]) -> None:
    """R3–R5: a custom set names special roles with counts that fit the table."""
    for role, count in counts.items():
        if role == HUMAN:  # a role, but never counted: Humans fill the seats left over (R3, D24)
            raise SetupError("human_in_set")
        if not isinstance(role, str) or role not in ROLES:
            raise SetupError("unknown_role", role=_shown(role))
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise SetupError("bad_count", role=_shown(role))
    total = sum(counts.values())
    if total > players:
        raise SetupError("too_many_roles", roles=total, players=players)
    for role in SPECIAL_ROLE_IDS:
        count = counts.get(role, 0)
        minimum = min_players_for(role, count)
        if players < minimum:
            raise SetupError(
                "role_needs_players", role=role, count=count, minimum=minimum, players=players
            )


def check_deal(deal: Sequence[str]) -> None:
    """R6: at least one TRUSIS, and no victory condition met before anyone plays."""
    for role in deal:
        if not isinstance(role, str) or role not in ROLES:
            raise SetupError("unknown_role", role=_shown(role))
    counts = Counter(deal)
    trusis = counts[TRUSIS]
    if trusis == 0:
        raise SetupError("no_trusis")
    others = sum(1 for r in deal if TEAM_OF[r] in (TEAM_HUMAN, TEAM_CASTAWAY))
    if 2 * trusis > len(deal) or others == 0:
        team = CASTAWAY if counts[CASTAWAY] else TRUSIS
        raise SetupError("already_won", team=team)


def standard_roles(players: int) -> list[str]:
    """R2: the first `players` entries of the standard list, before the shuffle."""
    return list(STANDARD_LIST[:players])


def custom_roles(players: int, counts: Mapping[str, int]) -> list[str]:
    """R3: special roles in table order, each repeated by its count, then HUMANs."""
    roles = [r for r in ROLE_IDS if r != HUMAN for _ in range(counts.get(r, 0))]
    return roles + [HUMAN] * (players - len(roles))


def deal_roles(
    players: int,
    seed: int = 0,
    custom: Mapping[str, int] | None = None,
) -> list[str]:
    """Deal one role per seat, checking R1 and R3–R6; raises `SetupError`."""
    check_player_count(players)
    if custom is None:
        roles = list(STANDARD_LIST[:players])
        random.Random(seed).shuffle(roles)
        return roles  # R6 holds for every standard set (checked below, at import)
    check_custom_set(players, custom)
    roles = custom_roles(players, custom)
    random.Random(seed).shuffle(roles)
    check_deal(roles)
    return roles


def check_explicit_deal(players: int, deal: Sequence[str]) -> None:
    """An explicit deal satisfies R1 and R6 (R4/R5 apply to sets, not deals)."""
    check_player_count(players)
    if len(deal) != players:
        raise SetupError("deal_size", roles=len(deal), players=players)
    check_deal(deal)


# R6 depends only on how many of each role are dealt, which the shuffle keeps: every
# standard set passes it, so `deal_roles` need not check a standard deal again.
for _players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
    check_deal(STANDARD_LIST[:_players])
