"""Leaving and replacing: R52, R53, D6, D7, D8."""

from __future__ import annotations

from scenario import act, day_vote, find, known, night, pass_all, refuse, table
from trusis import GameState, legal_actions, view

# 1 HUMAN, 2 TRUSIS, 3 PRIEST, 4 HUMAN, 5 HUMAN, 6 WISE_WOMAN, 7 SWEEPER
DEAL = ("HUMAN", "TRUSIS", "PRIEST", "HUMAN", "HUMAN", "WISE_WOMAN", "SWEEPER")


def game() -> GameState:
    return table(*DEAL)


# -- R52 / D6: leaving ------------------------------------------------------------------


def test_R52_D6_leaving_drops_an_unpassed_day_vote_and_auto_passes() -> None:
    state = game()
    act(state, "vote", 1, 4)
    act(state, "vote", 5, 4)
    events = act(state, "leave", 1)
    assert [(e.code, e.params, e.audience) for e in events] == [
        ("left", {"seat": 1}, "public"),
        ("vote_withdrawn", {"voter": 1}, "public"),
        ("passed", {"seat": 1, "auto": True}, "public"),
    ]
    assert view(state, 3)["votes"] == {"5": 4}
    assert view(state, 3)["passed"] == [1]
    assert view(state, 3)["players"][0]["left"] is True
    act(state, "vote", 7, 5)
    pass_all(state)
    assert state.history[-1]["vote_killed"] is None  # 4:1, 5:1 once seat 1's vote is dropped
    assert state.roles[1] == "HUMAN" and state.alive[1] is True


def test_R52_D6_leaving_at_night_drops_trusis_vote_and_protection() -> None:
    state = table("HUMAN", "TRUSIS", "PRIEST", "HUMAN", "HUMAN", "TRUSIS", "SWEEPER", "HUMAN")
    pass_all(state)
    act(state, "protect", 3, 4)
    act(state, "leave", 3)  # the protection is dropped
    act(state, "vote", 6, 5)
    events = act(state, "leave", 6)
    dropped = find(events, "trusis_vote_withdrawn")
    assert [(e.params, e.audience, e.seats) for e in dropped] == [
        ({"voter": 6}, "seats", (2, 6))]
    assert view(state, 2)["votes"] == {}
    night(state, [("vote", 2, 4)])
    assert state.history[-1]["died"] == [4]


def test_D6_a_seat_that_had_passed_keeps_its_locked_choices() -> None:
    state = game()
    act(state, "vote", 1, 4)
    act(state, "pass", 1)
    events = act(state, "leave", 1)
    assert [e.code for e in events] == ["left"]
    act(state, "vote", 5, 4)
    act(state, "vote", 7, 5)
    pass_all(state)
    assert state.history[-1]["vote_killed"] == 4


def test_D6_wise_womans_extra_vote_stays_pending_after_she_leaves() -> None:
    state = game()
    pass_all(state)
    act(state, "extra_vote", 6, 4)
    act(state, "pass", 6)
    pass_all(state)
    act(state, "vote", 6, 5)
    act(state, "leave", 6)  # her day vote is dropped, her locked extra vote is not
    pass_all(state)
    assert state.history[-1]["vote_killed"] == 4


def test_D6_extra_vote_chosen_but_not_passed_is_dropped() -> None:
    state = game()
    pass_all(state)
    act(state, "extra_vote", 6, 4)
    act(state, "leave", 6)
    pass_all(state)
    pass_all(state)
    assert state.history[-1]["vote_killed"] is None


def test_R52_departed_seat_passes_in_every_phase_can_die_and_wins() -> None:
    state = game()
    act(state, "leave", 4)
    events = pass_all(state)
    auto = [e for e in events if e.code == "passed" and e.params == {"seat": 4, "auto": True}]
    assert len(auto) == 1 and auto[0].audience == "public"
    assert state.kind == "night" and view(state, 1)["passed"] == [4]  # at once
    night(state, [("vote", 2, 4)])  # it can still be killed
    assert state.history[-1]["died"] == [4]
    day_vote(state, {1: 2, 3: 2})
    assert state.winner == "HUMAN"
    assert 4 in state.winners  # a departed (and dead) seat still wins with its team


def test_R52_departed_seat_takes_no_action_and_cannot_leave_twice() -> None:
    state = game()
    act(state, "leave", 4)
    assert refuse(state, "vote", 4, 1).code == "actor_left"
    assert refuse(state, "say", 4, text="hello").code == "actor_left"
    err = refuse(state, "leave", 4)
    assert err.code == "already_left" and "seat 4" in str(err)
    assert legal_actions(state, 4) == []


def test_R52_leaving_after_the_end_is_refused_and_dead_seats_may_leave() -> None:
    state = game()
    day_vote(state, {1: 5, 3: 5})
    events = act(state, "leave", 5)  # a dead seat may leave (D6)
    assert [e.code for e in events] == ["left"]
    pass_all(state)
    day_vote(state, {1: 2, 3: 2})
    assert state.status == "finished"
    assert refuse(state, "leave", 1).code == "game_over"


def test_R52_D14_every_alive_seat_left_phases_end_at_once() -> None:
    state = table("HUMAN", "TRUSIS", "HUMAN", "HUMAN", "HUMAN")
    for seat in (1, 2, 3, 4):
        act(state, "leave", seat)
    assert state.history == []
    events = act(state, "leave", 5)
    assert len(state.history) == 6
    assert [h["phase"] for h in state.history][-1] == {"kind": "night", "number": 3}
    assert state.winner == "DRAW"
    assert find(events, "stalemate")[0].params == {"phases": 6}


def test_R52_every_alive_seat_left_but_a_team_wins_first() -> None:
    state = table("HUMAN", "TRUSIS", "HUMAN", "HUMAN", "HUMAN")
    for seat in (1, 3):  # locked votes survive leaving (D6)
        act(state, "vote", seat, 2)
        act(state, "pass", seat)
        act(state, "leave", seat)
    for seat in (2, 4):
        act(state, "leave", seat)
    assert state.history == []
    act(state, "leave", 5)
    assert state.history[-1]["vote_killed"] == 2
    assert len(state.history) == 1
    assert (state.winner, state.winners) == ("HUMAN", [1, 3, 4, 5])


# -- R53 / D7: replacing ---------------------------------------------------------------


def test_R53_replace_a_seat_that_has_not_left_is_refused() -> None:
    state = game()
    err = refuse(state, "replace", 4, by="bot")
    assert err.code == "not_left"
    assert refuse(state, "replace", 9).code == "no_such_seat"


def test_R53_D7_replaced_seat_keeps_role_and_knowledge_and_acts_next_phase() -> None:
    state = game()
    pass_all(state)
    act(state, "sweep", 7, 2)
    act(state, "leave", 7)
    events = act(state, "replace", 7)
    assert [(e.code, e.params, e.audience) for e in events] == [
        ("replaced", {"seat": 7, "by": "bot"}, "public")]
    assert view(state, 1)["players"][6]["bot"] is True
    assert view(state, 1)["players"][6]["left"] is False
    assert known(state, 7) == {"7": "SWEEPER", "2": "TRUSIS"}
    assert refuse(state, "pass", 7).code == "already_passed"  # its automatic pass stands
    pass_all(state)
    assert state.kind == "day"
    act(state, "vote", 7, 2)
    assert view(state, 1)["votes"] == {"7": 2}
    assert view(state, 7)["role"] == "SWEEPER"


def test_R53_D7_replaced_by_a_named_person() -> None:
    state = game()
    act(state, "leave", 3)
    act(state, "replace", 3, by="Zed")
    player = view(state, 1)["players"][2]
    assert (player["name"], player["bot"], player["left"]) == ("Zed", False, False)
    assert state.roles[3] == "PRIEST"
    day_vote(state, {1: 2, 4: 2})
    assert refuse(state, "replace", 3).code == "game_over"


def test_R53_D29_a_seat_a_bot_took_over_goes_back_to_its_player_at_once() -> None:
    state = game()
    act(state, "leave", 7)  # R52: its grace period ran out
    act(state, "replace", 7)  # ... and a bot plays it
    name = state.names[7]
    pass_all(state)  # the night: the bot's seat may act in it
    assert state.kind == "night"
    act(state, "sweep", 7, 2)  # the bot sweeps, and has not passed yet
    events = act(state, "replace", 7, by=name)
    assert [(e.code, e.params, e.audience) for e in events] == [
        ("returned", {"seat": 7, "by": name}, "public")]
    seat = view(state, 7)
    assert seat["players"][6]["bot"] is False and seat["players"][6]["left"] is False
    assert seat["role"] == "SWEEPER"
    assert known(state, 7) == {"7": "SWEEPER", "2": "TRUSIS"}  # what the bot learnt (D30)
    act(state, "pass", 7)  # at once: the bot had not passed, so its player plays this phase


def test_R53_D29_only_a_seat_a_bot_took_over_can_be_taken_back() -> None:
    state = game()
    assert refuse(state, "replace", 7, by=state.names[7]).code == "not_left"  # never left
    act(state, "leave", 7)
    act(state, "replace", 7)
    assert refuse(state, "replace", 7, by="bot").code == "not_left"  # a bot for a bot: no
    events = act(state, "replace", 7, by="Zed")  # the host's link (D29): a new person
    assert [e.code for e in events] == ["replaced"]


# -- D8 ------------------------------------------------------------------------------------


def test_D8_departed_seats_cannot_be_sent_private_messages() -> None:
    state = game()
    act(state, "leave", 2)
    err = refuse(state, "say", 1, text="psst", to=2)
    assert err.code == "recipient_left"
    assert str(err) == "seat 2 has left the game and cannot read messages"
    assert [e.code for e in act(state, "say", 1, text="bye Bob")] == ["said"]
