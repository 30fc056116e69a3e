"""Knights and the end of a phase: R29, R30, D5, D11."""

from __future__ import annotations

from scenario import act, day_vote, find, known, night, pass_all, refuse, table
from trusis import GameState, legal_actions, view

# 1 TRUSIS, 2 WHITE_KNIGHT, 3 BLACK_KNIGHT, 4 HUMAN, 5 HUMAN, 6 GRAVEKEEPER, 7 HUMAN, 8 SWEEPER
DEAL = ("TRUSIS", "WHITE_KNIGHT", "BLACK_KNIGHT", "HUMAN", "HUMAN", "GRAVEKEEPER", "HUMAN",
        "SWEEPER")


def four_dead_at_night() -> GameState:
    """Day 1 kills seat 4 by the vote; the game is at Night 1."""
    state = table(*DEAL)
    day_vote(state, {5: 4, 7: 4})
    assert state.kind == "night" and not state.alive[4]
    return state


# -- R29 -------------------------------------------------------------------------------


def test_R29_knight_dies_and_revived_seat_comes_back_at_the_end_of_the_phase() -> None:
    state = four_dead_at_night()
    events = act(state, "revive", 2, 4)
    assert [(e.code, e.params, e.audience, e.seats) for e in events] == [
        ("choice_made", {"power": "revive", "target": 4}, "seats", (2,))
    ]
    assert state.alive[2] is True and state.alive[4] is False  # not before the end
    assert refuse(state, "pass", 4).code == "actor_dead"
    events = pass_all(state)
    public = [(e.code, e.params) for e in events if e.audience == "public"
              and e.code in ("died", "revived")]
    assert public == [("died", {"seat": 2}), ("revived", {"seat": 4})]
    assert state.history[-1] == {"phase": {"kind": "night", "number": 1},
                                 "vote_killed": None, "died": [2], "revived": [4]}
    assert (state.kind, state.number) == ("day", 2)
    act(state, "vote", 4, 1)  # acts again from the next phase
    assert view(state, 5)["votes"] == {"4": 1}


def test_R29_revival_reveals_no_role() -> None:
    state = four_dead_at_night()
    events = night(state, [("revive", 3, 4)])
    for event in events:
        if event.audience != "internal":
            assert "HUMAN" not in str(event.params) and "BLACK_KNIGHT" not in str(event.params)
    for seat in (1, 2, 5, 7, 8):
        assert "4" not in known(state, seat) and "3" not in known(state, seat)
    assert known(state, 4) == {"4": "HUMAN"}
    assert view(state, None)["known"] == {}


def test_R29_several_revivals_of_the_same_seat_revive_it_once() -> None:
    state = four_dead_at_night()
    events = night(state, [("revive", 2, 4), ("revive", 3, 4)])
    assert state.history[-1]["died"] == [2, 3]
    assert state.history[-1]["revived"] == [4]
    assert [e.params for e in find(events, "revived")] == [{"seat": 4}]
    assert state.alive[4] is True


def test_R29_day_revival_keeps_role_and_powers() -> None:
    state = table(*DEAL)
    pass_all(state)
    night(state, [("vote", 1, 8)])  # the Sweeper dies at night
    act(state, "revive", 2, 8)
    pass_all(state)
    assert state.history[-1]["revived"] == [8] and state.history[-1]["died"] == [2]
    assert (state.kind, state.number) == ("night", 2)
    act(state, "sweep", 8, 1)
    assert known(state, 8) == {"8": "SWEEPER", "1": "TRUSIS"}


def test_R29_revival_counts_before_the_victory_check() -> None:
    state = table("TRUSIS", "TRUSIS", "WHITE_KNIGHT", "HUMAN", "HUMAN", "HUMAN")
    day_vote(state, {3: 4, 5: 4})
    night(state, [("vote", 1, 5), ("revive", 3, 4)])
    # without the revival the living would be 1, 2, 6: a Trusis majority
    assert state.history[-1]["died"] == [3, 5]
    assert state.history[-1]["revived"] == [4]
    assert state.status == "running"
    assert [s for s in range(1, 7) if state.alive[s]] == [1, 2, 4, 6]


def test_R29_revive_refusals_and_withdrawal() -> None:
    state = four_dead_at_night()
    err = refuse(state, "revive", 2, 5)
    assert err.code == "target_alive"
    assert str(err).startswith("seat 5 is alive")
    assert refuse(state, "revive", 2, 2).code == "target_alive"
    err = refuse(state, "revive", 7, 4)
    assert err.code == "wrong_role"
    assert "White Knight" in str(err) and "Black Knight" in str(err)  # D2: who holds it
    act(state, "revive", 2, 4)
    act(state, "revive", 2, None)
    pass_all(state)
    assert state.alive[2] is True and state.alive[4] is False


def test_D5_revive_with_nobody_dead_is_legal_without_targets() -> None:
    state = table(*DEAL)
    revive = [a for a in legal_actions(state, 2) if a.do == "revive"]
    assert len(revive) == 1
    assert revive[0].targets == ()
    assert revive[0].withdraw is True
    assert act(state, "revive", 2, None) == []
    assert refuse(state, "revive", 2, 5).code == "target_alive"
    state = four_dead_at_night()
    revive = [a for a in legal_actions(state, 3) if a.do == "revive"]
    assert revive[0].targets == (4,)


# -- R30 -------------------------------------------------------------------------------


def test_R30_vote_victim_knight_still_revives() -> None:
    state = four_dead_at_night()
    pass_all(state)
    act(state, "revive", 2, 4)
    events = day_vote(state, {1: 2, 5: 2, 7: 2})
    assert state.history[-1] == {"phase": {"kind": "day", "number": 2},
                                 "vote_killed": 2, "died": [2], "revived": [4]}
    public = [(e.code, e.params) for e in events if e.audience == "public"
              and e.code in ("vote_killed", "died", "revived")]
    assert public == [("vote_killed", {"seat": 2}), ("died", {"seat": 2}),
                      ("revived", {"seat": 4})]


def test_R30_all_deaths_at_once_choices_judged_before_deaths() -> None:
    deal = ("TRUSIS", "TRUSIS", "KAMIKAZE", "WHITE_KNIGHT", "HUMAN", "HUMAN", "HUMAN",
            "PRIEST")
    state = table(*deal)
    day_vote(state, {5: 6, 7: 6})
    # the Trusis voter 1 and the Knight 4 are struck this night: their choices still count
    events = night(state, [("vote", 1, 7), ("kamikaze", 3, 1), ("revive", 4, 6),
                           ("protect", 8, 5)])
    assert state.history[-1]["died"] == [1, 3, 4, 7]
    assert state.history[-1]["revived"] == [6]
    died = [e.params["seat"] for e in find(events, "died")]
    assert died == [1, 3, 4, 7]  # seat order, no causes
    assert all(e.params.keys() == {"seat"} for e in find(events, "died"))
    outcome = find(events, "phase_outcome")
    assert outcome and all(e.audience == "internal" for e in outcome)


def test_R30_deaths_then_revivals_then_next_phase_with_information() -> None:
    state = four_dead_at_night()
    pass_all(state)
    act(state, "revive", 3, 4)
    events = day_vote(state, {1: 5, 7: 5})
    public = [e.code for e in events if e.audience == "public"]
    order = ["vote_killed", "died", "died", "revived", "phase_started"]
    assert [c for c in public if c in order] == order
    codes = [e.code for e in events]
    assert codes.index("gravekeeper_result") > codes.index("phase_started")


def test_D11_gravekeeper_learns_of_sacrificed_knights_too() -> None:
    state = four_dead_at_night()
    pass_all(state)
    act(state, "revive", 3, 4)
    events = day_vote(state, {1: 5, 7: 5})
    results = find(events, "gravekeeper_result")
    assert [(e.params, e.seats) for e in results] == [
        ({"target": 3, "result": "NOT_TRUSIS"}, (6,)),
        ({"target": 5, "result": "NOT_TRUSIS"}, (6,)),
    ]
    assert known(state, 6) == {"6": "GRAVEKEEPER", "4": "NOT_TRUSIS", "3": "NOT_TRUSIS",
                               "5": "NOT_TRUSIS"}


def test_R13_R29_only_the_last_revive_choice_counts() -> None:
    state = four_dead_at_night()
    night(state, [("vote", 1, 5)])
    act(state, "revive", 2, 4)
    act(state, "revive", 2, 5)
    pass_all(state)
    assert state.history[-1]["died"] == [2]
    assert state.history[-1]["revived"] == [5]
    assert state.alive[4] is False


def test_R28_gravekeeper_revived_at_the_end_of_the_day_learns_at_nightfall() -> None:
    state = four_dead_at_night()
    night(state, [("vote", 1, 6)])  # the Gravekeeper dies
    act(state, "revive", 2, 6)
    events = day_vote(state, {1: 5, 7: 5})
    assert state.history[-1]["died"] == [2, 5] and state.history[-1]["revived"] == [6]
    assert [e.params["target"] for e in find(events, "gravekeeper_result")] == [2, 5]
    assert known(state, 6)["5"] == "NOT_TRUSIS"


def test_R28_gravedigger_revived_at_the_end_of_the_night_learns_at_dawn() -> None:
    state = table("TRUSIS", "WHITE_KNIGHT", "GRAVEDIGGER", "HUMAN", "HUMAN", "HUMAN",
                  "KAMIKAZE", "HUMAN")
    pass_all(state)
    night(state, [("kamikaze", 7, 3)])  # the Gravedigger dies
    pass_all(state)
    events = night(state, [("revive", 2, 3), ("vote", 1, 4)])
    assert state.history[-1]["died"] == [2, 4] and state.history[-1]["revived"] == [3]
    assert [(e.params, e.seats) for e in find(events, "gravedigger_result")] == [
        ({"target": 4, "role": "HUMAN"}, (3,))]
