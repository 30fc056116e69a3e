"""Who has won, if anyone (R31–R35).

Kept apart from the phase resolution because the same test runs at setup (R6),
at the end of every phase (R30 step 3), and in the statistics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from trusis.rules.roles import CASTAWAY, TEAM_CASTAWAY, TEAM_HUMAN, TEAM_OF, TEAM_TRUSIS, TRUSIS

DRAW: Final = "DRAW"
STALEMATE_PHASES: Final = 6  # R34
PHASE_LIMIT: Final = 100  # D15: a game that reaches the end of Night 50 without a winner is a draw


def winner_of(roles: Sequence[str], alive: Sequence[bool]) -> str | None:
    """The winning team (or DRAW) for the living seats, or None if the game goes on.

    `roles` and `alive` are indexed by seat with index 0 unused, as in GameState.
    """
    trusis = living = others = castaways = 0
    for seat in range(1, len(roles)):
        if not alive[seat]:
            continue
        role = roles[seat]
        living += 1
        if role == TRUSIS:
            trusis += 1
        elif role == CASTAWAY:
            castaways += 1
            others += 1
        elif TEAM_OF[role] == TEAM_HUMAN:
            others += 1
    human_met = trusis == 0  # R31
    trusis_met = 2 * trusis > living or others == 0
    if not (human_met or trusis_met):
        return None
    if castaways:  # R32
        return TEAM_CASTAWAY
    if human_met and trusis_met:  # R33 (decision)
        return TEAM_TRUSIS if living else DRAW
    return TEAM_HUMAN if human_met else TEAM_TRUSIS


def winning_seats(roles: Sequence[str], winner: str) -> list[int]:
    """R35: every seat of the winning team, alive or dead; nobody for a draw."""
    if winner == DRAW:
        return []
    return [s for s in range(1, len(roles)) if TEAM_OF[roles[s]] == winner]
