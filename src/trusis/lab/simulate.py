"""The balance lab's engine: play many bot-only games and count who wins.

Every game is fully determined by (base seed, player count, game index): the
game seed is derived from them, and every bot's seed from the game seed, so
results do not depend on how games are spread over processes (`jobs`) or in
what order they finish. Each game is played by a `BotDriver` with no timer,
so its record replays to the same result.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trusis.bots.driver import BotDriver
from trusis.bots.registry import create_bot
from trusis.rules.roles import TEAM_OF, TEAMS
from trusis.rules.state import GameState
from trusis.rules.victory import DRAW, PHASE_LIMIT, STALEMATE_PHASES
from trusis.table.table import Table

OUTCOMES = (*TEAMS, "DRAW")
NAMES = tuple(f"P{i}" for i in range(1, 31))


@dataclass(frozen=True)
class GameResult:
    """The outcome of one simulated game."""

    players: int
    index: int
    seed: int
    winner: str
    days: int
    phases: int
    actions: int
    refused: int
    capped: int
    record: dict[str, Any] | None = None
    ending: str = "team_win"  # or how a draw came: stalemate, phase_limit, no_survivors


def game_seed(base: int, players: int, index: int) -> int:
    """The seed of game `index` at `players` seats: stable and independent of scheduling."""
    return random.Random(f"trusis-simulate:{base}:{players}:{index}").getrandbits(31)


def play_one(players: int, seed: int, custom: Mapping[str, int] | None,
             bots: Mapping[str, str], lang: str = "en", index: int = 0,
             keep_record: bool = False) -> GameResult:
    """Play one game with bot kind `bots[team]` in every seat of that team."""
    game = Table(NAMES[:players], seed, custom)
    state = game.state
    seated = {s: create_bot(bots[TEAM_OF[state.roles[s]]], s, seed, lang)
              for s in range(1, players + 1)}
    driver = BotDriver(game, seated)
    driver.run_game()
    winner = state.winner or "DRAW"
    return GameResult(
        players, index, seed, winner, state.number, len(state.history), driver.actions,
        len(driver.refused), len(driver.capped),
        game.record.to_dict() if keep_record else None, ending_of(state),
    )


def ending_of(state: GameState) -> str:
    """How a game ended: a team's win, or which rule made it a draw."""
    if state.winner != DRAW:
        return "team_win"
    if state.quiet >= STALEMATE_PHASES:
        return "stalemate"  # R34
    if len(state.history) >= PHASE_LIMIT:
        return "phase_limit"  # D15
    return "no_survivors"  # R33: nobody alive


ENDINGS = ("team_win", "stalemate", "phase_limit", "no_survivors")


@dataclass
class Tally:
    """Results at one player count."""

    players: int
    games: int = 0
    wins: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    days: int = 0
    phases: int = 0
    actions: int = 0
    refused: int = 0
    capped: int = 0
    endings: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ENDINGS, 0))

    def add(self, result: GameResult) -> None:
        self.games += 1
        self.endings[result.ending] += 1
        self.wins[result.winner] += 1
        self.days += result.days
        self.phases += result.phases
        self.actions += result.actions
        self.refused += result.refused
        self.capped += result.capped

    def as_dict(self) -> dict[str, Any]:
        games = max(1, self.games)
        return {
            "players": self.players,
            "games": self.games,
            "wins": dict(self.wins),
            "win_rate": {k: round(v / games, 4) for k, v in self.wins.items()},
            "ci95": {k: [round(x, 4) for x in wilson(v, self.games)]
                     for k, v in self.wins.items()},
            "avg_days": round(self.days / games, 3),
            "avg_phases": round(self.phases / games, 3),
            "avg_actions": round(self.actions / games, 1),
            "endings": dict(self.endings),
            "refused_actions": self.refused,
            "capped_turns": self.capped,
        }


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True)
class Job:
    """A batch of games, the unit sent to a worker process."""

    players: int
    indices: tuple[int, ...]
    base_seed: int
    custom: Mapping[str, int] | None
    bots: Mapping[str, str]
    lang: str
    records: bool


def run_job(job: Job) -> list[GameResult]:
    """Play the games of one batch (in a worker process or in this one)."""
    return [
        play_one(job.players, game_seed(job.base_seed, job.players, i), job.custom, job.bots,
                 job.lang, i, job.records)
        for i in job.indices
    ]


def plan(player_counts: Sequence[int], games: int, base_seed: int,
         custom: Mapping[str, int] | None, bots: Mapping[str, str], lang: str = "en",
         records: bool = False, batch: int = 10) -> list[Job]:
    """Split the sweep into batches, big tables first so that workers finish together."""
    jobs = [
        Job(p, tuple(range(start, min(games, start + batch))), base_seed,
            dict(custom) if custom is not None else None, dict(bots), lang, records)
        for p in sorted(player_counts, reverse=True)
        for start in range(0, games, batch)
    ]
    return jobs


def run(jobs: Sequence[Job], workers: int = 1,
        progress: Callable[[int], None] | None = None) -> Iterator[GameResult]:
    """Play every batch, in this process or `workers` processes; yields results as they come."""
    if workers <= 1:
        for job in jobs:
            results = run_job(job)
            if progress is not None:
                progress(len(results))
            yield from results
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for results in pool.map(run_job, jobs, chunksize=1):
            if progress is not None:
                progress(len(results))
            yield from results


def tally(results: Iterable[GameResult], records_dir: Path | None = None) -> list[Tally]:
    """Aggregate results per player count (in player order), writing records if asked."""
    tallies: dict[int, Tally] = {}
    for result in results:
        tallies.setdefault(result.players, Tally(result.players)).add(result)
        if records_dir is not None and result.record is not None:
            path = records_dir / f"game-{result.players:02d}p-{result.index:05d}.json"
            path.write_text(json.dumps(result.record, ensure_ascii=False), "utf-8")
    return [tallies[p] for p in sorted(tallies)]
