"""Talk and secrecy: R40, R50, R51, D9, D10."""

from __future__ import annotations

import json
import random

import pytest

from scenario import act, day_vote, known, night, pass_all, random_play, refuse, seen_by, table
from trusis import (
    Action,
    GameState,
    IllegalAction,
    apply,
    concrete_actions,
    legal_actions,
    new_game,
    view,
)

# 1 HUMAN, 2 TRUSIS, 3 SWEEPER, 4 BUTCHER, 5 HUMAN, 6 ORACLE
DEAL = ("HUMAN", "TRUSIS", "SWEEPER", "BUTCHER", "HUMAN", "ORACLE")


def game() -> GameState:
    return table(*DEAL)


def chat_of(state: GameState, seat: int | None) -> list[tuple[int, int | None, str]]:
    return [(line["from"], line.get("to"), line["text"]) for line in view(state, seat)["chat"]]


# -- R50 -----------------------------------------------------------------------------------


def test_R50_public_message_reaches_everyone() -> None:
    state = game()
    events = act(state, "say", 1, text="hello all")
    assert [(e.code, e.params, e.audience) for e in events] == [
        ("said", {"seat": 1, "text": "hello all"}, "public")]
    for seat in (None, 1, 2, 3, 4, 5, 6):
        assert chat_of(state, seat) == [(1, None, "hello all")]


def test_R50_private_message_reaches_only_sender_and_recipient() -> None:
    state = game()
    events = act(state, "say", 3, text="I trust you", to=1)
    assert [(e.code, e.params, e.audience, e.seats) for e in events] == [
        ("whispered", {"seat": 3, "to": 1, "text": "I trust you"}, "seats", (3, 1))]
    assert seen_by(events, 1) == events and seen_by(events, 3) == events
    for seat in (None, 2, 4, 5, 6):
        assert seen_by(events, seat) == []
        seen = view(state, seat)
        assert seen["chat"] == []
        assert "I trust you" not in json.dumps(seen)
    assert chat_of(state, 1) == [(3, 1, "I trust you")]
    assert chat_of(state, 3) == [(3, 1, "I trust you")]


def test_R50_private_message_leaves_no_trace_for_others() -> None:
    state = game()
    before = {seat: view(state, seat) for seat in (None, 2, 4, 5, 6)}
    act(state, "say", 3, text="I trust you", to=1)
    for seat, seen in before.items():
        assert view(state, seat) == seen


def test_R50_dead_players_chat_at_night_and_after_the_end() -> None:
    state = game()
    day_vote(state, {1: 5, 3: 5})
    assert state.kind == "night" and not state.alive[5]
    act(state, "say", 5, text="from beyond")
    act(state, "say", 5, text="it was 2", to=1)
    assert chat_of(state, 1) == [(5, None, "from beyond"), (5, 1, "it was 2")]
    assert chat_of(state, 2) == [(5, None, "from beyond")]
    pass_all(state)
    day_vote(state, {1: 2, 3: 2})
    assert state.status == "finished"
    events = act(state, "say", 2, text="gg")
    assert [e.code for e in events] == ["said"]
    act(state, "say", 5, text="wp", to=2)
    assert [a.do for a in legal_actions(state, 5)] == ["say"]


# -- D9 ------------------------------------------------------------------------------------


def test_D9_messages_are_trimmed_and_bounded() -> None:
    state = game()
    events = act(state, "say", 1, text="   hi there \n")
    assert events[0].params["text"] == "hi there"
    assert refuse(state, "say", 1, text="   ").code == "empty_message"
    assert refuse(state, "say", 1, text="").code == "empty_message"
    err = refuse(state, "say", 1, text="x" * 501)
    assert err.code == "message_too_long" and "500" in str(err)
    act(state, "say", 1, text="y" * 500)
    act(state, "say", 1, text="  " + "z" * 500 + "  ")  # 500 once trimmed
    err = refuse(state, "say", 1, text="me", to=1)
    assert err.code == "whisper_self"
    assert refuse(state, "say", 1, text="hi", to=7).code == "no_such_seat"


# -- R40 / D10 --------------------------------------------------------------------------------


def test_R40_deaths_never_reveal_roles() -> None:
    state = game()
    events = day_vote(state, {1: 4, 3: 4})  # the Butcher
    events += night(state, [("vote", 2, 6)])  # the Oracle
    assert state.history[-1]["died"] == [6]
    for event in events:
        if event.audience == "public":
            assert not any(role in json.dumps(event.params)
                           for role in ("BUTCHER", "ORACLE", "HUMAN", "TRUSIS"))
    assert known(state, 1) == {"1": "HUMAN"}
    assert known(state, 3) == {"3": "SWEEPER"}
    assert known(state, 5) == {"5": "HUMAN"}
    assert view(state, None)["known"] == {}
    assert "BUTCHER" not in json.dumps(view(state, 5)["history"])


def test_D10_end_of_game_role_replaces_a_weaker_fact() -> None:
    state = game()
    pass_all(state)
    act(state, "sweep", 3, 4)
    assert known(state, 3)["4"] == "NEITHER"
    pass_all(state)
    day_vote(state, {1: 2, 3: 2})
    assert known(state, 3)["4"] == "BUTCHER"


# -- R51 -----------------------------------------------------------------------------------


def test_R51_no_action_shows_a_role() -> None:
    state = game()
    for bogus in ("show_role", "reveal", "report"):
        before = state.to_dict()
        with pytest.raises(IllegalAction) as info:
            apply(state, Action(bogus, 1, 2))
        assert info.value.code == "unknown_action"
        assert state.to_dict() == before
    allowed = {"vote", "illusion", "protect", "extra_vote", "kamikaze", "revive", "sweep",
               "foresee", "pass", "leave", "say"}
    for seat in range(1, 7):
        assert {a.do for a in legal_actions(state, seat)} <= allowed
        for action in concrete_actions(state, seat):
            if action.do == "pass":
                continue
            copy = state.copy()
            apply(copy, action)
            for other in range(1, 7):
                if other != seat:  # nobody learns anything about seat's role by its action
                    assert str(seat) not in known(copy, other)


# -- R7 / R27 / R28 / R40: over random games, nobody learns more than the rules give --------

SILENT = {"HUMAN", "BUTCHER", "ILLUSIONIST", "PRIEST", "WISE_WOMAN", "WHITE_KNIGHT",
          "BLACK_KNIGHT", "KAMIKAZE", "CASTAWAY"}


def true_fact(role: str, fact: str) -> bool:
    if fact == "NEITHER":
        return role not in ("TRUSIS", "CASTAWAY")
    if fact == "NOT_TRUSIS":
        return role != "TRUSIS"
    return fact == role


@pytest.mark.parametrize("seed", range(15))
def test_R40_random_games_reveal_only_what_the_rules_give(seed: int) -> None:
    rng = random.Random(seed)
    players = rng.randint(5, 24)
    state = new_game([f"P{i}" for i in range(players)], seed=seed)
    roles = state.roles
    trusis = {str(s): "TRUSIS" for s in range(1, players + 1) if roles[s] == "TRUSIS"}
    diggers = {str(s): "GRAVEDIGGER" for s in range(1, players + 1)
               if roles[s] == "GRAVEDIGGER"}
    for action in random_play(state, rng, pass_chance=0.4, limit=2000):
        if not state.running or action.do == "pass":
            continue
        assert view(state, None)["known"] == {}
        for s in range(1, players + 1):
            seen = view(state, s)
            facts = seen["known"]
            assert facts[str(s)] == roles[s]
            assert all(true_fact(roles[int(k)], f) for k, f in facts.items())
            if roles[s] in SILENT:
                assert facts == {str(s): roles[s]}
            if roles[s] == "TRUSIS":
                assert facts == trusis
            if roles[s] == "GRAVEDIGGER":
                assert trusis.items() <= facts.items() and diggers.items() <= facts.items()
            if state.kind == "night" and roles[s] != "TRUSIS":
                assert seen["votes"] == {}
