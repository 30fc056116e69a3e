"""The `easy` and `normal` bots: they listen to people, deliberate, and beat the heuristic bot."""

from __future__ import annotations

import json
import math
import os
from collections import Counter
from pathlib import Path

import pytest

from trusis.bots import BotDriver, available_kinds, create_bot
from trusis.bots.deliberate import EasyBot, NormalBot
from trusis.lab.simulate import game_seed, play_one
from trusis.rules.actions import Action
from trusis.rules.roles import TEAM_OF
from trusis.table.game import replay
from trusis.table.record import load_record
from trusis.table.table import Table

NAMES = ["Ann", "Basil", "Clara", "Dario", "Elsa", "Felix", "Greta", "Hugo"]
DEAL = ["SWEEPER", "TRUSIS", "HUMAN", "HUMAN", "PRIEST", "TRUSIS", "BUTCHER", "HUMAN"]
TEMPLATE = "I swept Basil last night: Trusis! Vote Basil."  # what a bot Sweeper says
FREE = [
    "Basil is a Trusis, I swept him!",
    "basil est un trusis, je l'ai balayé !!",
    "Ho spazzato Basil stanotte: è Trusis",
    "im the sweeper. swept basi -> TRUSSIS",
]


def test_levels_are_registered_built_in_and_as_entry_points() -> None:
    assert {"easy", "normal", "heuristic", "random"} <= set(available_kinds())
    assert isinstance(create_bot("normal", 1), NormalBot)
    assert type(create_bot("easy", 1)) is EasyBot
    text = (Path(__file__).parents[1] / "pyproject.toml").read_text("utf-8")
    assert 'normal = "trusis.bots.deliberate:NormalBot"' in text
    assert 'easy = "trusis.bots.deliberate:EasyBot"' in text


def day_two(kind: str, seed: int) -> tuple[Table, BotDriver] | None:
    """Ann (seat 1, a person) is the Sweeper and sweeps Basil (a TRUSIS) in Night 1;
    the table at the start of Day 2, or None if Ann or Basil did not live to see it."""
    game = Table(NAMES, seed, deal=DEAL)
    bots = {s: create_bot(kind, s, seed) for s in range(2, 9)}
    driver = BotDriver(game, bots)
    game.play(Action("pass", 1))
    driver.settle()
    state = game.state
    if not (state.alive[1] and state.alive[2]) or state.kind != "night":
        return None
    game.play(Action("sweep", 1, 2))
    game.play(Action("pass", 1))
    driver.settle()
    if not (state.running and state.alive[1] and state.alive[2]) or state.kind != "day":
        return None
    return game, driver


def votes_on_basil(kind: str, seed: int, text: str) -> int | None:
    table = day_two(kind, seed)
    if table is None:
        return None
    game, driver = table
    game.play(Action("say", 1, text=text))
    driver.react(rounds=6)
    state = game.state
    return sum(1 for voter, target in state.votes.items()
               if target == 2 and TEAM_OF[state.roles[voter]] == "HUMAN")


def humans_alive(game: Table) -> int:
    state = game.state
    return sum(1 for s in range(2, 9) if state.alive[s] and TEAM_OF[state.roles[s]] == "HUMAN")


@pytest.mark.parametrize("kind", ["normal", "easy"])
def test_a_free_text_true_claim_moves_the_bots_as_their_own_sentence_does(kind: str) -> None:
    tried = 0
    for seed in range(40):
        table = day_two(kind, seed)
        if table is None:
            continue
        template = votes_on_basil(kind, seed, TEMPLATE)
        assert template is not None
        humans = humans_alive(table[0])
        assert template >= max(1, humans - 1), (seed, template, humans)
        for text in FREE:
            free = votes_on_basil(kind, seed, text)
            assert free is not None and free >= template - 1, (seed, text, free, template)
        tried += 1
        if tried == 3:
            break
    assert tried == 3


def test_the_heuristic_bot_still_reads_only_templates() -> None:
    """The baseline stays as it was, so progress is measured against the same bot."""
    for seed in range(40):
        if day_two("heuristic", seed) is None:
            continue
        template = votes_on_basil("heuristic", seed, TEMPLATE)
        free = votes_on_basil("heuristic", seed, FREE[0])
        assert template is not None and free is not None and template > free
        return
    pytest.fail("no table where Ann and Basil both saw Day 2")


NORMAL = dict.fromkeys(("HUMAN", "TRUSIS", "CASTAWAY"), "normal")


def test_trusis_vote_against_a_team_mate_only_after_saying_why() -> None:
    """A TRUSIS day vote on a fellow TRUSIS always follows a whisper that explains it."""
    trusis_votes = 0
    for players in (8, 12, 20):
        for i in range(6):
            result = play_one(players, game_seed(21, players, i), None, NORMAL, keep_record=True)
            assert result.record is not None and result.refused == 0
            played = replay(load_record(json.dumps(result.record)))
            roles = played.state.roles
            explained: set[tuple[int, int]] = set()
            for event in played.events:
                params = event.params
                if event.code == "phase_started":
                    explained = set()
                elif event.code == "whispered" and "lost" in params["text"]:
                    explained.add((params["seat"], params["to"]))
                elif event.code == "tally":
                    for voter, target in params["votes"].items():
                        if roles[int(voter)] == "TRUSIS":
                            trusis_votes += 1
                            if roles[target] == "TRUSIS":
                                assert (int(voter), target) in explained
    assert trusis_votes


def test_early_votes_spread_and_the_first_voted_seat_is_not_doomed() -> None:
    first = kills = 0
    for players in (7, 10, 14):
        for i in range(15):
            result = play_one(players, game_seed(4, players, i), None, NORMAL)
            assert result.votes is not None
            first += result.votes.first_voted
            kills += result.votes.kill_days
    assert kills and first / kills < 0.45  # the heuristic bots: about a half


def test_every_level_plays_whole_games_without_refusals() -> None:
    for kind in ("easy", "normal"):
        bots = dict.fromkeys(("HUMAN", "TRUSIS", "CASTAWAY"), kind)
        for players in (5, 9, 17, 30):
            result = play_one(players, game_seed(8, players, 0), None, bots, "fr")
            assert result.refused == 0 and result.capped == 0


SLOW = bool(os.environ.get("TRUSIS_SLOW"))
GAMES = 150 if SLOW else 25  # per size, sizes 7, 10 and 14


def wins(bots: dict[str, str], team: str) -> tuple[int, int]:
    won = Counter(play_one(p, game_seed(2026, p, i), None, bots).winner
                  for p in (7, 10, 14) for i in range(GAMES))
    return won[team], sum(won.values())


def z_score(w1: int, w0: int, n: int) -> float:
    pooled = (w1 + w0) / (2 * n)
    return (w1 - w0) / n / math.sqrt(pooled * (1 - pooled) * 2 / n)


@pytest.mark.parametrize("team", ["HUMAN", "TRUSIS"])
def test_normal_bots_beat_the_heuristic_bot_on_both_sides(team: str) -> None:
    """CI size: normal must do better; with TRUSIS_SLOW=1, significantly (z > 1.96).
    bench/bots.py measures it with 900 games a side."""
    heuristic = dict.fromkeys(("HUMAN", "TRUSIS", "CASTAWAY"), "heuristic")
    base, n = wins(heuristic, team)
    new, _n = wins({**heuristic, team: "normal"}, team)
    z = z_score(new, base, n)
    print(f"{team}: normal {new}/{n} vs heuristic {base}/{n}, z = {z:.1f}")
    assert z > (1.96 if SLOW else 0.0)
