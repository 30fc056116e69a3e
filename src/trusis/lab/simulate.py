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
from trusis.rules.actions import Action
from trusis.rules.events import PUBLIC, Event
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
    votes: DayVotes | None = None


QUARTERS = ("quarter", "half", "all")
"""The points of a day at which vote concentration is measured (share of its actions)."""


@dataclass
class DayVotes:
    """How one game's day votes took shape (see `VoteLog`), summed over its days.

    `kill_days`: days whose vote killed someone; `first_voted`: of those, the days whose
    victim was the first seat anyone visibly voted for that day. `concentration[k]` sums,
    over the `measured[k]` days that had a visible vote at that point, the largest share
    of the visible votes on one seat after a quarter, a half and all of the day's actions.
    """

    kill_days: int = 0
    first_voted: int = 0
    concentration: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    measured: list[int] = field(default_factory=lambda: [0, 0, 0])

    def add(self, other: DayVotes) -> None:
        self.kill_days += other.kill_days
        self.first_voted += other.first_voted
        for k in range(3):
            self.concentration[k] += other.concentration[k]
            self.measured[k] += other.measured[k]

    def as_dict(self) -> dict[str, Any]:
        return {
            "kill_days": self.kill_days,
            "first_voted_victim": self.first_voted,
            "first_voted_share": round(self.first_voted / max(1, self.kill_days), 4),
            "concentration": {name: round(self.concentration[k] / max(1, self.measured[k]), 4)
                              for k, name in enumerate(QUARTERS)},
        }


class VoteLog(Table):
    """A table that notes, day by day, every accepted action and the visible votes it
    left, so the lab can tell how a day's vote took shape (who was voted first, how
    concentrated the votes were along the day) without the bots knowing anything."""

    def __init__(self, players: Sequence[str], seed: int = 0,
                 custom: Mapping[str, int] | None = None) -> None:
        super().__init__(players, seed, custom)
        self.days: list[list[dict[int, int]]] = []  # per day: visible votes after each action
        self.first: list[int] = []  # per day: the first seat voted for (0: none)
        self.victims: list[int] = []  # per day: the seat the vote killed (0: nobody)

    def play(self, action: Action, t: float | None = None) -> list[Event]:
        state = self.state
        day = state.running and state.kind == "day"
        if day and len(self.days) < state.number:
            self.days.append([])
            self.first.append(0)
            self.victims.append(0)
        events = super().play(action, t)
        if day:
            index = len(self.days) - 1
            steps = self.days[index]
            votes = dict(steps[-1]) if steps else {}
            for event in events:
                code, params = event.code, event.params
                if code == "vote_cast" and event.audience == PUBLIC:
                    votes[params["voter"]] = params["target"]
                    if not self.first[index]:
                        self.first[index] = params["target"]
                elif code == "vote_withdrawn" and event.audience == PUBLIC:
                    votes.pop(params["voter"], None)
                elif code == "vote_killed":
                    self.victims[index] = params["seat"]
            steps.append(votes)
        return events

    def measure(self) -> DayVotes:
        out = DayVotes()
        for steps, first, victim in zip(self.days, self.first, self.victims, strict=True):
            if victim:
                out.kill_days += 1
                out.first_voted += victim == first
            for k, share in enumerate((0.25, 0.5, 1.0)):
                at = max(1, math.ceil(share * len(steps))) - 1
                votes = steps[at] if steps else {}
                if votes:
                    counts: dict[int, int] = {}
                    for target in votes.values():
                        counts[target] = counts.get(target, 0) + 1
                    out.concentration[k] += max(counts.values()) / len(votes)
                    out.measured[k] += 1
        return out


def game_seed(base: int, players: int, index: int) -> int:
    """The seed of game `index` at `players` seats: stable and independent of scheduling."""
    return random.Random(f"trusis-simulate:{base}:{players}:{index}").getrandbits(31)


def play_one(players: int, seed: int, custom: Mapping[str, int] | None,
             bots: Mapping[str, str], lang: str = "en", index: int = 0,
             keep_record: bool = False) -> GameResult:
    """Play one game with bot kind `bots[team]` in every seat of that team."""
    game = VoteLog(NAMES[:players], seed, custom)
    state = game.state
    seated = {s: create_bot(bots[TEAM_OF[state.roles[s]]], s, seed, lang)
              for s in range(1, players + 1)}
    driver = BotDriver(game, seated)
    driver.run_game()
    winner = state.winner or "DRAW"
    return GameResult(
        players, index, seed, winner, state.number, len(state.history), driver.actions,
        len(driver.refused), len(driver.capped),
        game.record.to_dict() if keep_record else None, ending_of(state), game.measure(),
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
    votes: DayVotes = field(default_factory=DayVotes)

    def add(self, result: GameResult) -> None:
        self.games += 1
        if result.votes is not None:
            self.votes.add(result.votes)
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
            "votes": self.votes.as_dict(),
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
