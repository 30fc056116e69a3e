"""R63: statistics aggregated across games by id; a renamed statistic keeps its history."""

from __future__ import annotations

import json
from typing import Any

from trusis import parse_record
from trusis.stats import aggregate, load_declaration, score, shipped_declaration
from trusis.stats.declaration import shipped_text

PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve"]
DEAL = ["HUMAN", "TRUSIS", "HUMAN", "HUMAN", "HUMAN"]


def vote(seat: int, target: int) -> dict[str, Any]:
    return {"seat": seat, "do": "vote", "target": target}


def game(actions: list[dict[str, Any]], players: list[str] = PLAYERS) -> dict[str, Any]:
    record = parse_record({"format": "trusis-record/1", "players": players, "deal": DEAL,
                           "actions": actions})
    return score(record).stored()


# Game A: Day 1, Ann, Cid and Dee vote Bob (the only TRUSIS) → Human wins.
#   votes_cast: Ann 1, Bob 0, Cid 1, Dee 1, Eve 0.
GAME_A = [vote(1, 2), vote(3, 2), vote(4, 2), {"do": "timeout"}]
# Game B: Day 1, Bob, Cid and Dee vote Ann → Ann dies; Night 1 Bob kills Cid; Day 2
#   Bob and Dee vote Eve → Eve dies (alive Bob, Dee: 2·1 > 2 is false, play on);
#   Night 2 Bob kills Dee → the Trusis team wins.
#   votes_cast: Ann 0, Bob 2, Cid 1, Dee 2, Eve 0.
GAME_B = [vote(2, 1), vote(3, 1), vote(4, 1), {"do": "timeout"},
          vote(2, 3), {"do": "timeout"},
          vote(2, 5), vote(4, 5), {"do": "timeout"},
          vote(2, 4), {"do": "timeout"}]


def test_wins_and_rates_by_team_and_role() -> None:
    history = aggregate([game(GAME_A), game(GAME_B)], shipped_declaration())
    doc = history.as_json("en")
    assert doc["games"] == 2
    ann = doc["players"]["Ann"]
    assert (ann["games"], ann["wins"], ann["win_rate"]) == (2, 1, 0.5)
    assert ann["by_team"] == [{"team": "Human", "games": 2, "wins": 1, "win_rate": 0.5}]
    assert ann["by_role"] == [{"role": "Human", "games": 2, "wins": 1, "win_rate": 0.5}]
    bob = doc["players"]["Bob"]
    assert (bob["games"], bob["wins"]) == (2, 1)
    assert bob["by_role"] == [{"role": "Trusis", "games": 2, "wins": 1, "win_rate": 0.5}]
    means = {r["name"]: r["value"] for r in doc["players"]["Dee"]["averages"]}
    assert means["votes_cast"] == 1.5  # (1 + 2) / 2
    assert means["survived"] == 0.5  # alive in A, killed in B
    assert means["death_day"] == 2.0  # only game B sets it (Night 2)
    assert means["powers_used"] == "-"  # a Human never has it
    table = {r["name"]: r["value"] for r in doc["table"]}
    assert table["days_number"] == 1.5 and table["nights_number"] == 1.0
    assert "winning_team" not in table  # labelled: not averaged


def test_a_renamed_statistic_keeps_its_history() -> None:
    stored = [game(GAME_A), game(GAME_B)]  # kept under the old declaration, by id
    data = json.loads(shipped_text())
    player = data["player"]
    renamed: dict[str, Any] = {}
    for name, stat in player.items():  # rename votes_cast → day_votes, same id 45
        renamed["day_votes" if name == "votes_cast" else name] = stat
    renamed["day_votes"]["name"] = {"en": "Day votes", "fr": "Votes de jour",
                                    "it": "Voti diurni"}
    data["player"] = renamed
    new = load_declaration(json.dumps(data))
    doc = aggregate(stored, new).as_json("fr")
    rows = {r["id"]: r for r in doc["players"]["Dee"]["averages"]}
    assert rows[45] == {"id": 45, "name": "day_votes", "label": "Votes de jour", "value": 1.5}
    assert "votes_cast" not in {r["name"] for r in doc["players"]["Dee"]["averages"]}


def test_a_deleted_statistic_is_ignored_and_an_unknown_name_still_counts_games() -> None:
    stored = [game(GAME_A)]
    data = json.loads(shipped_text())
    del data["player"]["votes_cast"]
    doc = aggregate(stored, load_declaration(json.dumps(data))).as_json()
    assert 45 not in {r["id"] for r in doc["players"]["Ann"]["averages"]}
    assert doc["players"]["Ann"]["wins"] == 1


def test_an_unfinished_game_counts_as_played_but_not_in_win_rates() -> None:
    history = aggregate([game(GAME_A), game([vote(1, 2)])], shipped_declaration())
    ann = history.as_json()["players"]["Ann"]
    assert (ann["games"], ann["wins"], ann["win_rate"]) == (2, 1, 1.0)
