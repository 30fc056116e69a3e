"""Game records (docs/record.md): malformed records name the field; records round-trip."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from trusis import Action, Game, IllegalAction, RecordError, load_record, parse_record, replay

PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve"]
DEAL = ["HUMAN", "TRUSIS", "SWEEPER", "BUTCHER", "HUMAN"]


def base(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"format": "trusis-record/1", "players": list(PLAYERS),
                              "deal": list(DEAL), "set": {"standard": True}, "seed": 7,
                              "actions": [{"seat": 1, "do": "vote", "target": 5}]}
    record.update(changes)
    return {k: v for k, v in record.items() if v is not ...}


def with_action(action: Any) -> dict[str, Any]:
    return base(actions=[{"seat": 1, "do": "pass"}, action])


def malformed(data: Any) -> RecordError:
    with pytest.raises(RecordError) as info:
        parse_record(data)
    err = info.value
    assert str(err).startswith(err.field)  # the one-line message names the field
    return err


def test_well_formed_base_record() -> None:
    record = parse_record(base())
    assert record.players == PLAYERS and record.deal == DEAL and record.seed == 7


def test_not_json() -> None:
    with pytest.raises(RecordError) as info:
        load_record('{"format": "trusis-record/1", ')
    assert info.value.field == "record"
    assert "JSON" in str(info.value)


@pytest.mark.parametrize("data", [[], "record", 3, None, [base()]])
def test_not_an_object(data: Any) -> None:
    assert malformed(data).field == "record"
    with pytest.raises(RecordError):
        load_record(json.dumps(data))


@pytest.mark.parametrize("fmt", [..., "trusis-record/2", "", None, 1, "TRUSIS-RECORD/1"])
def test_missing_or_wrong_format(fmt: Any) -> None:
    assert malformed(base(format=fmt)).field == "format"


@pytest.mark.parametrize(
    ("players", "field"),
    [(..., "players"), ("Ann,Bob", "players"), (PLAYERS[:4], "players"),
     ([f"P{i}" for i in range(31)], "players"), ({"1": "Ann"}, "players"),
     (["Ann", "Bob", "", "Dee", "Eve"], "players[2]"),
     (["Ann", "Bob", "Cid", "  ", "Eve"], "players[3]"),
     (["Ann", 2, "Cid", "Dee", "Eve"], "players[1]"),
     (["Ann", "Bob", "Cid", "Dee", None], "players[4]")],
)
def test_bad_players(players: Any, field: str) -> None:
    assert malformed(base(players=players)).field == field


@pytest.mark.parametrize(
    ("value", "field"),
    [("standard", "set"), ({"standard": False}, "set"), ({}, "set"),
     ({"custom": [["TRUSIS", 1]]}, "set"), ({"standard": True, "custom": {"TRUSIS": 1}}, "set"),
     ({"custom": {"TRUSIS": -1}}, "set.custom.TRUSIS"),
     ({"custom": {"TRUSIS": 1.5}}, "set.custom.TRUSIS"),
     ({"custom": {"TRUSIS": True}}, "set.custom.TRUSIS"),
     ({"custom": {"TRUSIS": "1"}}, "set.custom.TRUSIS"),
     ({"custom": {"TRUSIS": 1, "WIZARD": 1}}, "set.custom.WIZARD"),
     ({"custom": {"TRUSIS": 1, "HUMAN": 1}}, "set.custom.HUMAN")],
)
def test_bad_set(value: Any, field: str) -> None:
    assert malformed(base(set=value, deal=...)).field == field


@pytest.mark.parametrize(
    ("value", "field"),
    [("HUMAN,TRUSIS", "deal"), ({"1": "HUMAN"}, "deal"),
     (["HUMAN", "TRUSIS", "WIZARD", "BUTCHER", "HUMAN"], "deal[2]"),
     (["HUMAN", "TRUSIS", "SWEEPER", "BUTCHER", "human"], "deal[4]"),
     (["HUMAN", "TRUSIS", 3, "BUTCHER", "HUMAN"], "deal[2]")],
)
def test_bad_deal(value: Any, field: str) -> None:
    assert malformed(base(deal=value)).field == field


def test_deal_entry_that_is_a_list_is_malformed() -> None:
    assert malformed(base(deal=[["HUMAN"], "TRUSIS", "HUMAN", "HUMAN", "HUMAN"])).field == "deal[0]"


def test_R1_violations() -> None:
    assert malformed(base(players=PLAYERS[:4], deal=DEAL[:4])).field == "players"
    err = malformed(base(deal=[*DEAL, "HUMAN"]))
    assert err.field == "deal" and "6" in str(err) and "5" in str(err)


def test_R4_violation_names_both_numbers() -> None:
    custom = {"TRUSIS": 1, "SWEEPER": 1, "PRIEST": 1, "ORACLE": 1, "BUTCHER": 1, "CASTAWAY": 1}
    err = malformed(base(set={"custom": custom}, deal=...))
    assert err.field == "set"
    assert "6" in err.problem and "5" in err.problem


@pytest.mark.parametrize(
    ("players", "custom", "words"),
    [(8, {"ILLUSIONIST": 2, "TRUSIS": 1}, ("Illusionist", "2", "9")),
     (7, {"TRUSIS": 2}, ("Trusis", "2", "8")),
     (12, {"PRIEST": 3, "TRUSIS": 1}, ("Priest", "3", "13"))],
)
def test_R5_violation_names_role_count_minimum(players: int, custom: dict[str, int],
                                                words: tuple[str, ...]) -> None:
    names = [f"P{i}" for i in range(players)]
    err = malformed(base(players=names, set={"custom": custom}, deal=...))
    assert err.field == "set"
    for word in words:
        assert word in err.problem
    names.append("Last")
    parse_record(base(players=names, set={"custom": custom}, deal=...))


def test_R5_does_not_apply_to_explicit_deal() -> None:
    deal = ["ILLUSIONIST", "ILLUSIONIST", "TRUSIS", "HUMAN", "HUMAN"]
    assert parse_record(base(deal=deal)).deal == deal


def test_R6_violations() -> None:
    assert malformed(base(set={"custom": {"PRIEST": 1}}, deal=...)).field == "set"
    assert malformed(base(deal=["HUMAN"] * 5)).field == "deal"
    err = malformed(base(deal=["TRUSIS", "TRUSIS", "TRUSIS", "HUMAN", "HUMAN"]))
    assert err.field == "deal"
    err = malformed(base(deal=["TRUSIS", "BUTCHER", "ORACLE", "KAMIKAZE", "GRAVEDIGGER"]))
    assert err.field == "deal"


def test_bad_seed_and_actions_list() -> None:
    assert malformed(base(seed="7")).field == "seed"
    assert malformed(base(seed=True)).field == "seed"
    assert malformed(base(actions={"0": {"do": "pass", "seat": 1}})).field == "actions"


@pytest.mark.parametrize(
    ("action", "field"),
    [([1, "vote", 5], "actions[1]"), ("pass", "actions[1]"), (None, "actions[1]"),
     ({"seat": 1, "do": "shoot", "target": 2}, "actions[1].do"),
     ({"seat": 1}, "actions[1].do"),
     ({"seat": 1, "do": "VOTE", "target": 2}, "actions[1].do"),
     ({"seat": 1, "do": "vote"}, "actions[1].target"),
     ({"seat": 3, "do": "sweep"}, "actions[1].target"),
     ({"seat": 1, "do": "revive"}, "actions[1].target"),
     ({"seat": 1, "do": "illusion", "target": 2}, "actions[1].shown"),
     ({"seat": 1, "do": "say"}, "actions[1].text"),
     ({"seat": 1, "do": "say", "text": 5}, "actions[1].text"),
     ({"seat": 1, "do": "say", "text": None}, "actions[1].text"),
     ({"do": "vote", "target": 2}, "actions[1].seat"),
     ({"seat": 0, "do": "pass"}, "actions[1].seat"),
     ({"seat": 6, "do": "pass"}, "actions[1].seat"),
     ({"seat": "1", "do": "pass"}, "actions[1].seat"),
     ({"seat": 1.0, "do": "pass"}, "actions[1].seat"),
     ({"seat": None, "do": "pass"}, "actions[1].seat"),
     ({"seat": 1, "do": "vote", "target": 9}, "actions[1].target"),
     ({"seat": 1, "do": "vote", "target": "2"}, "actions[1].target"),
     ({"seat": 1, "do": "illusion", "target": 2, "shown": 0}, "actions[1].shown"),
     ({"seat": 1, "do": "say", "text": "hi", "to": 6}, "actions[1].to"),
     ({"seat": 1, "do": "say", "text": "hi", "to": "2"}, "actions[1].to"),
     ({"seat": True, "do": "pass"}, "actions[1].seat"),
     ({"seat": 1, "do": "vote", "target": True}, "actions[1].target"),
     ({"seat": 1, "do": "illusion", "target": 2, "shown": True}, "actions[1].shown"),
     ({"seat": 2, "do": "say", "text": "hi", "to": True}, "actions[1].to"),
     ({"seat": 2, "do": "say", "text": "hi", "to": False}, "actions[1].to"),
     ({"seat": 1, "do": "replace", "by": 3}, "actions[1].by")],
)
def test_bad_action(action: Any, field: str) -> None:
    assert malformed(with_action(action)).field == field


def test_do_that_is_a_list_is_malformed() -> None:
    assert malformed(with_action({"seat": 1, "do": ["vote"], "target": 2})).field == (
        "actions[1].do")


@pytest.mark.parametrize(
    ("action", "field"),
    [({"do": "timeout", "seat": 99}, "actions[1].seat"),
     ({"seat": 1, "do": "pass", "target": 99}, "actions[1].target"),
     ({"seat": 1, "do": "vote", "target": 2, "shown": True}, "actions[1].shown"),
     ({"seat": 1, "do": "leave", "to": "everyone"}, "actions[1].to")],
)
def test_unused_seat_fields_must_still_be_seats(action: dict[str, Any], field: str) -> None:
    assert malformed(with_action(action)).field == field


@pytest.mark.parametrize(
    "action",
    [{"seat": 1, "do": "vote", "target": None}, {"seat": 1, "do": "illusion", "target": None},
     {"seat": 3, "do": "sweep", "target": None}, {"do": "timeout"},
     {"seat": 1, "do": "say", "text": "hi", "to": None}, {"seat": 5, "do": "vote", "target": 5},
     {"seat": 1, "do": "leave"}, {"seat": 1, "do": "replace"},
     {"seat": 1, "do": "replace", "by": "bot"}, {"seat": 1, "do": "protect", "target": 1}],
)
def test_well_formed_actions_even_if_refused(action: dict[str, Any]) -> None:
    record = parse_record(with_action(action))
    assert len(record.actions) == 2


def test_refused_actions_are_reported_not_fatal() -> None:
    record = parse_record(base(actions=[
        {"seat": 1, "do": "vote", "target": 1},
        {"seat": 1, "do": "protect", "target": 2},
        {"seat": 1, "do": "vote", "target": 5},
    ]))
    played = replay(record)
    assert [(r.index, r.seat, r.error.code) for r in played.refused] == [
        (0, 1, "target_self"), (1, 1, "wrong_role")]
    assert played.state.votes == {1: 5}


# -- round trip ----------------------------------------------------------------------------


def play_some(game: Game) -> None:
    script = [
        Action("vote", 1, 5), Action("say", 5, text="not me!"), Action("vote", 2, 5),
        Action("say", 3, text="psst", to=1), Action("vote", 1, 1), Action("pass", 1),
        Action("timeout"), Action("sweep", 3, 2), Action("sweep", 3, 4),
        Action("vote", 2, 4), Action("vote", 2, None), Action("vote", 2, 3),
        Action("leave", 4), Action("replace", 4, by="Zed"), Action("pass", 1),
        Action("pass", 2), Action("pass", 3),
    ]
    refused = 0
    for action in script:
        try:
            game.play(action)
        except IllegalAction:
            refused += 1
    assert refused == 2  # the vote for oneself and the second sweep are not logged


def test_record_round_trip_explicit_deal() -> None:
    game = Game(PLAYERS, seed=7, deal=DEAL)
    play_some(game)
    data = json.loads(json.dumps(game.record.to_dict()))
    assert data["format"] == "trusis-record/1" and data["deal"] == DEAL
    assert data["players"] == PLAYERS and data["seed"] == 7
    played = replay(load_record(json.dumps(data)))
    assert played.refused == []  # only accepted actions were logged
    assert played.state.to_dict() == game.state.to_dict()


@pytest.mark.parametrize(("custom", "players"), [(None, 9), ({"TRUSIS": 2, "PRIEST": 1}, 8)])
def test_record_round_trip_seeded_sets(custom: dict[str, int] | None, players: int) -> None:
    names = [f"P{i}" for i in range(players)]
    game = Game(names, seed=3, custom=custom)
    for seat in range(1, players + 1):
        game.play(Action("pass", seat))
    data = game.record.to_dict()
    assert data["deal"] == game.state.roles[1:]  # exported records always carry the deal
    assert data["set"] == ({"standard": True} if custom is None else {"custom": custom})
    without_deal = copy.deepcopy(data)
    del without_deal["deal"]
    for doc in (data, without_deal):
        played = replay(parse_record(json.loads(json.dumps(doc))))
        assert played.state.to_dict() == game.state.to_dict()
