"""The night: R13 (instant powers), R24–R28, D3, D10."""

from __future__ import annotations

from scenario import act, day_vote, find, known, night, pass_all, refuse, table
from trusis import GameState, legal_actions, view

# 1 TRUSIS, 2 TRUSIS, 3 PRIEST, 4 SWEEPER, 5 ORACLE, 6 KAMIKAZE, 7 HUMAN, 8 CASTAWAY,
# 9 BUTCHER, 10 GRAVEDIGGER, 11 GRAVEKEEPER, 12 HUMAN
DEAL = ("TRUSIS", "TRUSIS", "PRIEST", "SWEEPER", "ORACLE", "KAMIKAZE", "HUMAN", "CASTAWAY",
        "BUTCHER", "GRAVEDIGGER", "GRAVEKEEPER", "HUMAN")


def at_night() -> GameState:
    state = table(*DEAL)
    pass_all(state)
    assert (state.kind, state.number) == ("night", 1)
    return state


def night_history(state: GameState) -> dict[str, object]:
    entry = state.history[-1]
    assert entry["phase"]["kind"] == "night"
    return entry


# -- R24: the Trusis kill -----------------------------------------------------------


def test_R24_most_trusis_votes_is_killed() -> None:
    state = at_night()
    events = night(state, [("vote", 1, 7), ("vote", 2, 7)])
    assert night_history(state) == {"phase": {"kind": "night", "number": 1},
                                    "vote_killed": None, "died": [7], "revived": []}
    died = find(events, "died")
    assert [(e.params, e.audience) for e in died] == [({"seat": 7}, "public")]


def test_R24_tie_or_no_vote_means_no_kill() -> None:
    state = at_night()
    events = night(state, [("vote", 1, 7), ("vote", 2, 12)])
    assert night_history(state)["died"] == []
    assert [e.audience for e in find(events, "quiet_night")] == ["public"]
    pass_all(state)
    pass_all(state)  # night 2 without votes
    assert night_history(state)["died"] == []


def test_R24_trusis_targets_alive_others() -> None:
    state = at_night()
    assert refuse(state, "vote", 1, 1).code == "target_self"
    assert refuse(state, "vote", 9, 7).code == "night_vote_not_trusis"
    state = table(*DEAL)
    day_vote(state, {3: 7, 4: 7})
    assert refuse(state, "vote", 1, 7).code == "target_dead"


def test_R24_a_trusis_may_vote_for_another_trusis() -> None:
    state = at_night()
    events = night(state, [("vote", 1, 2)])
    assert night_history(state)["died"] == [2]
    assert [e.params for e in find(events, "gravedigger_result")] == [
        {"target": 2, "role": "TRUSIS"}]


def test_R24_trusis_votes_seen_by_trusis_only() -> None:
    state = at_night()
    events = act(state, "vote", 1, 7)
    assert [(e.code, e.params, e.audience, e.seats) for e in events] == [
        ("trusis_vote", {"voter": 1, "target": 7}, "seats", (1, 2))
    ]
    assert view(state, 1)["votes"] == {"1": 7}
    assert view(state, 2)["votes"] == {"1": 7}
    for seat in (None, 3, 5, 6, 7, 9, 10, 12):  # not even the rest of the Trusis team
        assert view(state, seat)["votes"] == {}
    events = act(state, "vote", 1, None)
    assert [(e.code, e.seats) for e in events] == [("trusis_vote_withdrawn", (1, 2))]


def test_R24_dead_trusis_still_sees_the_votes() -> None:
    state = table(*DEAL)
    day_vote(state, {3: 1, 4: 1, 7: 1})
    assert state.alive[1] is False and state.kind == "night"
    events = act(state, "vote", 2, 12)
    assert events[0].seats == (1, 2)
    assert view(state, 1)["votes"] == {"2": 12}
    assert view(state, 9)["votes"] == {}
    assert refuse(state, "vote", 1, 12).code == "actor_dead"


# -- R25: the Priest ----------------------------------------------------------------


def test_R25_priest_protection_blocks_trusis_kill() -> None:
    state = at_night()
    events = night(state, [("protect", 3, 7), ("vote", 1, 7), ("vote", 2, 7)])
    assert night_history(state)["died"] == []
    assert "quiet_night" in [e.code for e in events]
    made = find(events, "choice_made")[0]
    assert (made.params, made.audience, made.seats) == (
        {"power": "protect", "target": 7}, "seats", (3,))
    assert known(state, 10) == {"1": "TRUSIS", "2": "TRUSIS", "10": "GRAVEDIGGER"}


def test_R25_priest_may_protect_self() -> None:
    state = at_night()
    night(state, [("protect", 3, 3), ("vote", 1, 3)])
    assert state.alive[3] is True


def test_R25_priest_killed_the_same_night_still_protects() -> None:
    state = at_night()
    night(state, [("protect", 3, 7), ("vote", 1, 7), ("kamikaze", 6, 3)])
    assert night_history(state)["died"] == [3, 6]
    assert state.alive[7] is True


def test_R25_last_protection_counts_and_can_be_withdrawn() -> None:
    state = at_night()
    act(state, "protect", 3, 7)
    act(state, "protect", 3, 12)
    night(state, [("vote", 1, 7)])
    assert night_history(state)["died"] == [7]
    state = at_night()
    act(state, "protect", 3, 7)
    events = act(state, "protect", 3, None)
    assert [(e.code, e.seats) for e in events] == [("choice_withdrawn", (3,))]
    night(state, [("vote", 1, 7)])
    assert night_history(state)["died"] == [7]


def test_R25_protect_refusals() -> None:
    state = table(*DEAL)
    assert refuse(state, "protect", 3, 7).code == "wrong_phase_day"
    day_vote(state, {3: 12, 4: 12})
    assert refuse(state, "protect", 3, 12).code == "target_dead"
    assert refuse(state, "protect", 7, 7).code == "wrong_role"


# -- R26: the Kamikaze --------------------------------------------------------------


def test_R26_kamikaze_ignores_protection() -> None:
    state = at_night()
    events = night(state, [("protect", 3, 7), ("kamikaze", 6, 7)])
    assert night_history(state)["died"] == [6, 7]
    assert [e.params["seat"] for e in find(events, "died")] == [6, 7]  # seat order
    assert all("cause" not in e.params for e in find(events, "died"))


def test_R26_kamikaze_choice_can_be_withdrawn_and_not_self() -> None:
    state = at_night()
    assert refuse(state, "kamikaze", 6, 6).code == "target_self"
    assert refuse(state, "kamikaze", 7, 6).code == "wrong_role"
    act(state, "kamikaze", 6, 7)
    act(state, "kamikaze", 6, None)
    pass_all(state)
    assert night_history(state)["died"] == []


# -- R27 / R13 / D3 / D10: sweep and foresee -------------------------------------------


def test_R27_D10_sweep_answers_privately_at_once() -> None:
    answers = {1: "TRUSIS", 8: "CASTAWAY", 9: "NEITHER", 7: "NEITHER", 10: "NEITHER"}
    kills = [12, 3, 5, 11, 6]  # a death each night keeps R34 away
    state = at_night()
    for (target, fact), victim in zip(answers.items(), kills, strict=True):
        events = act(state, "sweep", 4, target)
        assert [(e.code, e.params, e.audience, e.seats) for e in events] == [
            ("sweep_result", {"target": target, "result": fact}, "seats", (4,))
        ]
        assert known(state, 4)[str(target)] == fact
        night(state, [("vote", 1, victim)])
        pass_all(state)
    assert state.running
    assert known(state, 4) == {"4": "SWEEPER", **{str(t): f for t, f in answers.items()}}
    assert known(state, 7) == {"7": "HUMAN"}
    assert known(state, 8) == {"8": "CASTAWAY"}
    assert [r["kind"] for r in view(state, 4)["results"]] == ["sweep_result"] * 5


def test_R27_foresee_gives_the_exact_role_privately() -> None:
    state = at_night()
    events = act(state, "foresee", 5, 10)
    assert [(e.code, e.params, e.audience, e.seats) for e in events] == [
        ("foresee_result", {"target": 10, "role": "GRAVEDIGGER"}, "seats", (5,))
    ]
    assert known(state, 5) == {"5": "ORACLE", "10": "GRAVEDIGGER"}
    assert "5" not in known(state, 10)
    assert refuse(state, "foresee", 4, 10).code == "wrong_role"


def test_R13_sweep_once_per_night_and_refused_sweep_does_not_use_it_up() -> None:
    state = table(*DEAL)
    day_vote(state, {3: 12, 4: 12})  # seat 12 dies
    assert refuse(state, "sweep", 4, 12).code == "target_dead"
    assert refuse(state, "sweep", 4, 4).code == "target_self"
    assert refuse(state, "sweep", 4, 99).code == "no_such_seat"
    err = refuse(state, "sweep", 4, None)
    assert err.code == "cannot_withdraw"  # D3
    assert "sweep" in [a.do for a in legal_actions(state, 4)]
    act(state, "sweep", 4, 9)
    assert "sweep" not in [a.do for a in legal_actions(state, 4)]
    assert refuse(state, "sweep", 4, 1).code == "already_swept"
    assert refuse(state, "sweep", 4, None).code == "already_swept"
    pass_all(state)
    pass_all(state)
    act(state, "sweep", 4, 1)  # a new night, a new sweep
    assert known(state, 4)["1"] == "TRUSIS"


def test_R13_D3_foresee_once_per_night() -> None:
    state = at_night()
    assert refuse(state, "foresee", 5, None).code == "cannot_withdraw"
    assert refuse(state, "foresee", 5, 5).code == "target_self"
    act(state, "foresee", 5, 3)
    assert refuse(state, "foresee", 5, 4).code == "already_foreseen"
    pass_all(state)
    pass_all(state)
    act(state, "foresee", 5, 4)
    assert known(state, 5) == {"5": "ORACLE", "3": "PRIEST", "4": "SWEEPER"}


# -- R28: automatic information ---------------------------------------------------------


def test_R28_gravekeeper_learns_day_deaths_at_nightfall() -> None:
    state = table(*DEAL)
    events = day_vote(state, {3: 7, 4: 7})
    kinds = [e.code for e in events]
    assert kinds.index("gravekeeper_result") > kinds.index("phase_started")
    result = find(events, "gravekeeper_result")
    assert [(e.params, e.audience, e.seats) for e in result] == [
        ({"target": 7, "result": "NOT_TRUSIS"}, "seats", (11,))
    ]
    assert known(state, 11) == {"11": "GRAVEKEEPER", "7": "NOT_TRUSIS"}
    night(state, [("vote", 1, 12)])  # night deaths are not reported to the Gravekeeper
    assert "12" not in known(state, 11)
    events = day_vote(state, {3: 1, 4: 1})  # a TRUSIS
    assert find(events, "gravekeeper_result")[0].params == {"target": 1, "result": "TRUSIS"}
    pass_all(state)
    day_vote(state, {3: 9, 4: 9, 5: 9})  # a Butcher is not "a Trusis"
    assert known(state, 11)["9"] == "NOT_TRUSIS"


def test_R28_dead_gravekeeper_learns_nothing() -> None:
    state = table(*DEAL)
    events = day_vote(state, {3: 11, 4: 11})  # the Gravekeeper is the vote victim
    assert find(events, "gravekeeper_result") == []
    assert known(state, 11) == {"11": "GRAVEKEEPER"}
    night(state, [])
    events = day_vote(state, {3: 7, 4: 7})
    assert find(events, "gravekeeper_result") == []
    assert "7" not in known(state, 11)


def test_R28_gravedigger_learns_the_trusis_victim_at_dawn() -> None:
    state = at_night()
    events = night(state, [("vote", 1, 4), ("vote", 2, 4)])
    kinds = [e.code for e in events]
    assert kinds.index("gravedigger_result") > kinds.index("phase_started")
    result = find(events, "gravedigger_result")
    assert [(e.params, e.audience, e.seats) for e in result] == [
        ({"target": 4, "role": "SWEEPER"}, "seats", (10,))
    ]
    assert known(state, 10)["4"] == "SWEEPER"
    for seat in (1, 2, 5, 9):
        assert "4" not in known(state, seat)


def test_R28_gravedigger_learns_nothing_of_protected_or_kamikaze_only() -> None:
    state = at_night()
    events = night(state, [("vote", 1, 4), ("protect", 3, 4), ("kamikaze", 6, 12)])
    assert night_history(state)["died"] == [6, 12]
    assert find(events, "gravedigger_result") == []
    assert known(state, 10) == {"1": "TRUSIS", "2": "TRUSIS", "10": "GRAVEDIGGER"}


def test_R28_gravedigger_learns_target_also_struck_by_kamikaze() -> None:
    state = at_night()
    events = night(state, [("vote", 1, 3), ("kamikaze", 6, 3)])
    assert night_history(state)["died"] == [3, 6]
    assert [e.params for e in find(events, "gravedigger_result")] == [
        {"target": 3, "role": "PRIEST"}]


def test_R28_gravedigger_killed_that_night_learns_nothing() -> None:
    state = at_night()
    events = night(state, [("vote", 1, 4), ("kamikaze", 6, 10)])
    assert night_history(state)["died"] == [4, 6, 10]
    assert find(events, "gravedigger_result") == []
    assert "4" not in known(state, 10)
