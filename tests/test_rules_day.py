"""Phases and the day: R11–R15, R20–R23, D1, D2, D4, D13."""

from __future__ import annotations

import json

from scenario import act, codes, day_vote, find, night, pass_all, public_codes, refuse, table
from trusis import GameState, view

# 1 HUMAN, 2 TRUSIS, 3 ILLUSIONIST, 4 HUMAN, 5 HUMAN, 6 WISE_WOMAN, 7 SWEEPER
DEAL = ("HUMAN", "TRUSIS", "ILLUSIONIST", "HUMAN", "HUMAN", "WISE_WOMAN", "SWEEPER")


def game() -> GameState:
    return table(*DEAL)


# -- R11 / R12: passing and the end of a phase ---------------------------------


def test_R11_pass_is_public_and_locks_votes_but_not_chat() -> None:
    state = game()
    events = act(state, "pass", 1)
    assert [(e.code, e.params, e.audience) for e in events] == [
        ("passed", {"seat": 1}, "public")
    ]
    assert view(state, 4)["passed"] == [1]
    assert view(state, None)["passed"] == [1]
    err = refuse(state, "vote", 1, 4)
    assert err.code == "already_passed"
    assert refuse(state, "pass", 1).code == "already_passed"
    assert codes(act(state, "say", 1, text="still here")) == ["said"]


def test_R12_phase_ends_when_every_alive_seat_has_passed() -> None:
    state = game()
    for seat in range(1, 7):
        act(state, "pass", seat)
        assert (state.kind, state.number) == ("day", 1)
    events = act(state, "pass", 7)
    assert (state.kind, state.number) == ("night", 1)
    assert public_codes(events)[:3] == ["passed", "nobody_killed", "phase_started"]


def test_R12_at_night_everyone_must_pass_even_with_nothing_to_do() -> None:
    state = game()
    pass_all(state)
    for seat in range(2, 8):
        act(state, "pass", seat)
    assert state.kind == "night"  # the HUMAN in seat 1 still holds the night
    assert view(state, 2)["passed"] == [2, 3, 4, 5, 6, 7]
    act(state, "pass", 1)
    assert (state.kind, state.number) == ("day", 2)


def test_R12_D13_timeout_passes_the_rest_with_their_current_choices() -> None:
    state = game()
    act(state, "vote", 1, 5)
    act(state, "pass", 1)
    act(state, "vote", 4, 5)
    act(state, "vote", 7, 4)
    events = act(state, "timeout")
    timed = find(events, "timed_out")
    assert timed[0].params == {"seats": [2, 3, 4, 5, 6, 7]}
    assert timed[0].audience == "public"
    assert state.history[-1]["vote_killed"] == 5
    assert state.kind == "night"


def test_D13_timeout_after_the_end_is_refused() -> None:
    state = game()
    day_vote(state, {1: 2, 4: 2, 5: 2})
    assert state.status == "finished"
    err = refuse(state, "timeout")
    assert err.code == "timeout_finished"
    assert "no timer" in str(err)


# -- R13: choices until pass ---------------------------------------------------


def test_R13_only_the_last_vote_counts() -> None:
    state = game()
    act(state, "vote", 1, 4)
    act(state, "vote", 1, 5)
    act(state, "vote", 7, 4)
    act(state, "vote", 6, 5)
    pass_all(state)
    assert state.history[-1]["vote_killed"] == 5
    assert state.history[-1]["died"] == [5]


def test_R13_withdrawn_vote_does_not_count() -> None:
    state = game()
    act(state, "vote", 1, 4)
    events = act(state, "vote", 1, None)
    assert [(e.code, e.params, e.audience) for e in events] == [
        ("vote_withdrawn", {"voter": 1}, "public")
    ]
    act(state, "vote", 7, 5)
    pass_all(state)
    assert state.history[-1]["vote_killed"] == 5


def test_R13_withdrawing_a_choice_never_made_changes_nothing() -> None:
    state = game()
    before = state.to_dict()
    assert act(state, "vote", 1, None) == []
    assert act(state, "illusion", 3, None) == []
    assert state.to_dict() == before
    pass_all(state)
    before = state.to_dict()
    assert act(state, "vote", 2, None) == []
    assert act(state, "extra_vote", 6, None) == []
    assert state.to_dict() == before


# -- R14 / D1 / D2: refusals -----------------------------------------------------


def test_R14_targets_must_be_alive_others_and_exist() -> None:
    state = game()
    assert refuse(state, "vote", 1, 1).code == "target_self"
    assert refuse(state, "vote", 1, 8).code == "no_such_seat"
    assert refuse(state, "vote", 1, 0).code == "no_such_seat"
    day_vote(state, {1: 5, 4: 5})
    pass_all(state)
    err = refuse(state, "vote", 1, 5)
    assert err.code == "target_dead"
    assert str(err) == "seat 5 is dead"


def test_R14_dead_player_out_of_phase_wrong_role_after_end() -> None:
    state = game()
    day_vote(state, {1: 5, 4: 5})
    pass_all(state)
    assert refuse(state, "vote", 5, 1).code == "actor_dead"
    assert refuse(state, "pass", 5).code == "actor_dead"
    assert refuse(state, "sweep", 7, 2).code == "wrong_phase_day"
    assert refuse(state, "protect", 1, 1).code == "wrong_role"
    day_vote(state, {1: 2, 4: 2, 6: 2})
    assert state.status == "finished"
    assert refuse(state, "vote", 1, 3).code == "game_over"
    assert refuse(state, "pass", 1).code == "game_over"


def test_D1_order_of_refusal_checks() -> None:
    state = game()
    day_vote(state, {1: 5, 4: 5})  # seat 5 dies
    act(state, "leave", 5)
    act(state, "pass", 1)
    assert refuse(state, "vote", 9, 1).code == "no_such_seat"
    assert refuse(state, "vote", 5, 5).code == "actor_left"  # before dead, before target
    assert refuse(state, "sweep", 1, 1).code == "already_passed"  # before role and target
    assert refuse(state, "sweep", 4, 4).code == "wrong_role"  # before target
    assert refuse(state, "vote", 4, 4).code == "night_vote_not_trusis"
    assert refuse(state, "vote", 2, 2).code == "target_self"
    state2 = game()
    day_vote(state2, {1: 2, 4: 2})
    assert state2.status == "finished"
    assert refuse(state2, "vote", 99, 99).code == "game_over"  # first of all


def test_D2_wrong_phase_and_wrong_role_messages() -> None:
    state = game()
    err = refuse(state, "sweep", 7, 2)
    assert (err.code, str(err)) == ("wrong_phase_day", "sweep is a night power; it is day")
    err = refuse(state, "sweep", 1, 2)
    assert (err.code, str(err)) == ("wrong_role", "only the Sweeper can sweep")
    pass_all(state)
    err = refuse(state, "vote", 1, 2)
    assert (err.code, str(err)) == ("night_vote_not_trusis", "only the Trusis vote at night")
    err = refuse(state, "illusion", 3, 4, shown=5)
    assert err.code == "wrong_phase_night"


# -- R15: dead players ----------------------------------------------------------


def test_R15_dead_players_chat_but_take_no_game_action() -> None:
    state = game()
    day_vote(state, {1: 5, 4: 5})
    events = act(state, "say", 5, text="I was a Human!")
    assert [(e.code, e.audience) for e in events] == [("said", "public")]
    for do, target in (("vote", 1), ("sweep", 1), ("extra_vote", 1)):
        assert refuse(state, do, 5, target).code == "actor_dead"


# -- R20: visible votes -------------------------------------------------------------


def test_R20_votes_are_public_as_made_changed_and_withdrawn() -> None:
    state = game()
    events = act(state, "vote", 1, 4)
    assert [(e.code, e.params, e.audience) for e in events] == [
        ("vote_cast", {"voter": 1, "target": 4}, "public")
    ]
    for seat in (None, 2, 5):
        assert view(state, seat)["votes"] == {"1": 4}
    act(state, "vote", 1, 5)
    assert view(state, 7)["votes"] == {"1": 5}
    act(state, "vote", 1, None)
    assert view(state, 7)["votes"] == {}


# -- R21 / D4: the Illusionist ------------------------------------------------------


def test_R21_illusion_counted_invisibly_shown_publicly() -> None:
    state = game()
    act(state, "vote", 1, 4)
    events = act(state, "illusion", 3, 5, shown=4)
    assert [(e.code, e.params, e.audience, e.seats) for e in events] == [
        ("vote_cast", {"voter": 3, "target": 4}, "public", ()),
        ("illusion_made", {"shown": 4, "target": 5}, "seats", (3,)),
    ]
    for seat in (None, 1, 2, 4, 5, 6, 7):
        seen = view(state, seat)
        assert seen["votes"] == {"1": 4, "3": 4}
        assert "illusion" not in json.dumps(seen)
        if seat is not None:
            assert seen["choices"] == ({"vote": 4} if seat == 1 else {})
    assert view(state, 3)["choices"] == {"illusion": {"shown": 4, "target": 5}}
    act(state, "vote", 7, 5)
    events = pass_all(state)
    # counted: 4 has one vote (seat 1), 5 has two (the illusion's real vote and seat 7)
    assert find(events, "vote_killed")[0].params == {"seat": 5}
    assert state.history[-1]["died"] == [5]
    tally = find(events, "tally")[0]
    assert tally.audience == "internal"


def test_R21_shown_may_equal_target_and_obeys_R14() -> None:
    state = game()
    assert refuse(state, "illusion", 3, 3, shown=4).code == "target_self"
    assert refuse(state, "illusion", 3, 4, shown=3).code == "shown_self"
    assert refuse(state, "illusion", 3, 4, shown=9).code == "no_such_seat"
    assert refuse(state, "illusion", 1, 4, shown=4).code == "wrong_role"
    act(state, "illusion", 3, 4, shown=4)
    pass_all(state)
    assert state.history[-1]["vote_killed"] == 4
    pass_all(state)
    assert refuse(state, "illusion", 3, 1, shown=4).code == "shown_dead"
    assert refuse(state, "illusion", 3, 4, shown=1).code == "target_dead"


def test_D4_illusion_without_shown_is_refused() -> None:
    state = game()
    err = refuse(state, "illusion", 3, 4)
    assert err.code == "missing_shown"


def test_R21_D4_vote_and_illusion_replace_each_other() -> None:
    state = game()
    act(state, "illusion", 3, 5, shown=4)
    act(state, "vote", 3, 1)
    assert view(state, 3)["choices"] == {"vote": 1}
    assert view(state, 2)["votes"] == {"3": 1}
    act(state, "illusion", 3, 4, shown=5)
    assert view(state, 3)["choices"] == {"illusion": {"shown": 5, "target": 4}}
    act(state, "vote", 7, 1)
    pass_all(state)
    assert state.history[-1]["vote_killed"] is None  # 1 vote for seat 1, 1 for seat 4: tie


def test_R21_D4_withdrawing_either_withdraws_both() -> None:
    for withdraw in ("vote", "illusion"):
        state = game()
        act(state, "illusion", 3, 5, shown=4)
        events = act(state, withdraw, 3, None)
        assert [(e.code, e.audience) for e in events] == [("vote_withdrawn", "public")]
        assert view(state, 3)["choices"] == {}
        assert view(state, 1)["votes"] == {}
        pass_all(state)
        assert state.history[-1]["vote_killed"] is None


# -- R22: the Wise Woman's extra vote ------------------------------------------------


def test_R22_extra_vote_counts_next_day_only() -> None:
    state = game()
    pass_all(state)  # day 1
    events = night(state, [("extra_vote", 6, 4)])
    assert (state.kind, state.number) == ("day", 2)
    assert view(state, 1)["votes"] == {}  # invisible
    assert view(state, 6)["choices"] == {"extra_vote_today": 4}
    made = [e for e in events if e.code == "choice_made"]
    assert [(e.audience, e.seats) for e in made] == [("seats", (6,))]
    events = day_vote(state, {6: 5, 1: 4})  # her normal vote too: 4 has 2, 5 has 1
    assert find(events, "vote_killed")[0].params == {"seat": 4}
    pass_all(state)
    pass_all(state)  # day 3: the extra vote is gone
    assert state.history[-1]["vote_killed"] is None


def test_R22_extra_vote_alone_kills() -> None:
    state = game()
    pass_all(state)
    night(state, [("extra_vote", 6, 4)])
    pass_all(state)
    assert state.history[-1]["vote_killed"] == 4


def test_R22_R15_extra_vote_of_a_dead_wise_woman_does_not_count() -> None:
    state = game()
    pass_all(state)
    night(state, [("extra_vote", 6, 4), ("vote", 2, 6)])
    assert state.alive[6] is False
    day_vote(state, {1: 5})  # would be a tie 4:1, 5:1 if the extra vote counted
    assert state.history[-1]["vote_killed"] == 5


def test_R22_extra_vote_against_a_target_killed_that_night_does_not_count() -> None:
    state = game()
    pass_all(state)
    night(state, [("extra_vote", 6, 4), ("vote", 2, 4)])
    assert state.alive[4] is False
    assert view(state, 6)["choices"] == {"extra_vote_today": 4}
    day_vote(state, {1: 5})
    assert state.history[-1]["vote_killed"] == 5


def test_R22_extra_vote_power_is_the_wise_womans_at_night() -> None:
    state = game()
    assert refuse(state, "extra_vote", 6, 4).code == "wrong_phase_day"
    pass_all(state)
    assert refuse(state, "extra_vote", 1, 4).code == "wrong_role"
    assert refuse(state, "extra_vote", 6, 6).code == "target_self"


# -- R23: the tally ---------------------------------------------------------------


def test_R23_tie_means_nobody_dies() -> None:
    state = game()
    events = day_vote(state, {1: 4, 7: 5})
    assert [(e.code, e.params) for e in events if e.code in ("vote_killed", "nobody_killed")
            ] == [("nobody_killed", {})]
    assert find(events, "nobody_killed")[0].audience == "public"
    assert state.history[-1] == {"phase": {"kind": "day", "number": 1}, "vote_killed": None,
                                 "died": [], "revived": []}
    assert all(state.alive[1:])


def test_R23_no_votes_means_nobody_dies() -> None:
    state = game()
    events = pass_all(state)
    assert "nobody_killed" in codes(events)
    assert state.history[-1]["died"] == []


def test_R23_single_most_dies_and_counts_stay_hidden() -> None:
    state = game()
    events = day_vote(state, {1: 4, 7: 4, 4: 5, 5: 1})
    assert [(e.code, e.params, e.audience) for e in events
            if e.code in ("vote_killed", "died")] == [
        ("vote_killed", {"seat": 4}, "public"), ("died", {"seat": 4}, "public")]
    for e in events:
        if e.audience != "internal":
            assert "counts" not in e.params
