"""A ladder: every bot kind against every other, on each side, on the same seeds.

`trusis simulate --ladder normal,expert` plays, for each ordered pair of kinds (the
Human team's, the Trusis team's; a kind against itself included), the same games —
the same player counts and seeds, so the deals are the same — and reports each kind's
win rate per side against each other kind, with Wilson 95% intervals, and the
two-proportion z of each kind against the first one on the same opponents. Castaways
play the Human team's kind (they are dealt from 15 players on).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from trusis.lab.simulate import plan, run, tally, wilson


@dataclass(frozen=True)
class Rung:
    """One pairing's games, pooled over the player counts."""

    human: str
    trusis: str
    games: int
    human_wins: int
    trusis_wins: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "human": self.human, "trusis": self.trusis, "games": self.games,
            "wins": {"HUMAN": self.human_wins, "TRUSIS": self.trusis_wins},
            "ci95": {"HUMAN": list(wilson(self.human_wins, self.games)),
                     "TRUSIS": list(wilson(self.trusis_wins, self.games))},
        }


def climb(kinds: Sequence[str], counts: Sequence[int], games: int, seed: int,
          custom: Mapping[str, int] | None, lang: str, jobs: int,
          progress: Callable[[int], None] | None = None) -> list[Rung]:
    """Play every ordered pairing of `kinds` on the same seeds."""
    rungs = []
    for human in kinds:
        for trusis in kinds:
            bots = {"HUMAN": human, "TRUSIS": trusis, "CASTAWAY": human}
            tallies = tally(run(plan(counts, games, seed, custom, bots, lang), jobs, progress))
            rungs.append(Rung(human, trusis, sum(t.games for t in tallies),
                              sum(t.wins["HUMAN"] for t in tallies),
                              sum(t.wins["TRUSIS"] for t in tallies)))
    return rungs


def z_score(wins: int, base: int, games: int) -> float:
    """Two-proportion z of `wins` against `base`, both out of `games`."""
    pooled = (wins + base) / (2 * games)
    se = math.sqrt(max(1e-12, pooled * (1 - pooled) * 2 / games))
    return (wins - base) / games / se


def cell(wins: int, games: int) -> str:
    """A win rate and its 95% interval, in whole percent: "45 (35–55)"."""
    low, high = wilson(wins, games)
    return f"{100 * wins / max(1, games):.0f} ({100 * low:.0f}–{100 * high:.0f})"
