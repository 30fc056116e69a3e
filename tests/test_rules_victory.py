"""Victory and the end of the game: R31–R35, D14."""

from __future__ import annotations

import random

import pytest

from scenario import act, day_vote, find, night, pass_all, random_play, refuse, table
from trusis import Action, GameState, apply, legal_actions, new_game, view


def finished(state: GameState, winner: str, winners: list[int]) -> None:
    assert state.status == "finished"
    assert state.winner == winner
    assert state.winners == winners
    everything = {str(s): state.roles[s] for s in range(1, state.n + 1)}
    for seat in [None, *range(1, state.n + 1)]:  # R35: every role revealed to everyone
        seen = view(state, seat)
        assert seen["known"] == everything
        assert seen["winner"] == winner and seen["winners"] == winners
        assert seen["passed"] == [] and seen["votes"] == {}


# -- R31 ---------------------------------------------------------------------------------


def test_R31_R35_human_condition_no_trusis_left() -> None:
    state = table("TRUSIS", "HUMAN", "SWEEPER", "BUTCHER", "HUMAN")
    day_vote(state, {1: 5, 2: 5})
    pass_all(state)
    events = day_vote(state, {2: 1, 3: 1})
    finished(state, "HUMAN", [2, 3, 5])  # the dead Human of seat 5 wins too
    over = find(events, "game_over")
    assert [(e.params, e.audience) for e in over] == [(
        {"winner": "HUMAN", "winners": [2, 3, 5],
         "roles": {"1": "TRUSIS", "2": "HUMAN", "3": "SWEEPER", "4": "BUTCHER", "5": "HUMAN"}},
        "public")]
    assert "phase_started" not in [e.code for e in events]
    assert [a.do for a in legal_actions(state, 2)] == ["say"]
    assert refuse(state, "leave", 2).code == "game_over"


def test_R31_trusis_majority_is_strict() -> None:
    state = table("TRUSIS", "TRUSIS", "HUMAN", "HUMAN", "HUMAN")
    day_vote(state, {3: 4, 5: 4})
    assert state.status == "running"  # 2 Trusis of 4 living: no majority
    night(state, [("vote", 1, 5)])
    finished(state, "TRUSIS", [1, 2])


def test_R31_trusis_majority_counts_their_own_team_as_others() -> None:
    state = table("TRUSIS", "TRUSIS", "BUTCHER", "HUMAN", "HUMAN", "HUMAN", "HUMAN")
    day_vote(state, {4: 5, 6: 5})
    night(state, [("vote", 1, 6)])
    # living 1, 2, 3, 4, 7: 2 Trusis of 5 is no majority though the team has 3
    assert state.status == "running"
    day_vote(state, {1: 7, 2: 7})
    assert state.status == "running"  # 2 of 4
    night(state, [("vote", 1, 4)])
    finished(state, "TRUSIS", [1, 2, 3])


def test_R31_trusis_condition_no_human_or_castaway_alive() -> None:
    state = table("TRUSIS", "BUTCHER", "ORACLE", "HUMAN", "HUMAN")
    day_vote(state, {1: 4, 2: 4})
    night(state, [("vote", 1, 5)])
    # 1 Trusis of 3 living is no majority, but no Human-team seat is alive
    finished(state, "TRUSIS", [1, 2, 3])


# -- R32 ---------------------------------------------------------------------------------


def test_R32_castaway_wins_when_trusis_condition_met() -> None:
    state = table("TRUSIS", "TRUSIS", "CASTAWAY", "HUMAN", "HUMAN", "HUMAN")
    day_vote(state, {1: 4, 2: 4})
    night(state, [("vote", 1, 5)])
    assert state.status == "running"
    day_vote(state, {1: 6, 2: 6})
    finished(state, "CASTAWAY", [3])


def test_R32_castaways_win_when_human_condition_met() -> None:
    state = table("TRUSIS", "CASTAWAY", "CASTAWAY", "HUMAN", "HUMAN", "HUMAN")
    day_vote(state, {2: 4, 3: 4})
    pass_all(state)
    day_vote(state, {2: 1, 3: 1})
    finished(state, "CASTAWAY", [2, 3])


def test_R32_dead_castaway_does_not_take_the_win() -> None:
    state = table("TRUSIS", "TRUSIS", "CASTAWAY", "HUMAN", "HUMAN", "HUMAN")
    day_vote(state, {1: 3, 2: 3})
    night(state, [("vote", 1, 4)])
    day_vote(state, {1: 5, 2: 5})
    finished(state, "TRUSIS", [1, 2])


# -- R33 ---------------------------------------------------------------------------------


def test_R33_both_conditions_trusis_team_wins_if_anyone_alive() -> None:
    state = table("TRUSIS", "BUTCHER", "HUMAN", "KAMIKAZE", "HUMAN")
    day_vote(state, {1: 5, 2: 5})
    night(state, [("vote", 1, 3), ("kamikaze", 4, 1)])
    assert state.history[-1]["died"] == [1, 3, 4]
    finished(state, "TRUSIS", [1, 2, 4])


def test_R33_both_conditions_nobody_alive_is_a_draw() -> None:
    state = table("TRUSIS", "KAMIKAZE", "KAMIKAZE", "HUMAN", "HUMAN")
    pass_all(state)
    events = night(state, [("vote", 1, 4), ("kamikaze", 2, 5), ("kamikaze", 3, 1)])
    assert state.history[-1]["died"] == [1, 2, 3, 4, 5]
    finished(state, "DRAW", [])
    assert find(events, "game_over")[0].params["winner"] == "DRAW"


# -- R34 / D14 -----------------------------------------------------------------------------


def test_R34_D14_six_quiet_phases_end_in_a_draw() -> None:
    state = table("TRUSIS", "HUMAN", "HUMAN", "HUMAN", "HUMAN")
    for quiet in range(1, 6):
        pass_all(state)
        assert state.status == "running"
        assert view(state, 2)["quiet_phases"] == quiet
        assert view(state, None)["quiet_phases"] == quiet
    events = pass_all(state)
    assert [(e.params, e.audience) for e in find(events, "stalemate")] == [
        ({"phases": 6}, "public")]
    assert len(state.history) == 6
    finished(state, "DRAW", [])


def test_R34_a_death_resets_the_quiet_count() -> None:
    state = table("TRUSIS", "HUMAN", "HUMAN", "HUMAN", "HUMAN", "HUMAN")
    for _ in range(5):
        pass_all(state)
    assert view(state, 1)["quiet_phases"] == 5
    night(state, [("vote", 1, 2)])  # night 3: a death
    assert view(state, 1)["quiet_phases"] == 0
    for _ in range(5):
        pass_all(state)
    assert state.status == "running"
    pass_all(state)
    assert state.winner == "DRAW"


def test_R34_a_revival_resets_the_quiet_count() -> None:
    state = table("TRUSIS", "WHITE_KNIGHT", "HUMAN", "HUMAN", "HUMAN", "HUMAN")
    day_vote(state, {1: 3, 2: 3})
    for _ in range(4):
        pass_all(state)
    assert view(state, 1)["quiet_phases"] == 4
    act(state, "revive", 2, 3)
    pass_all(state)
    assert view(state, 1)["quiet_phases"] == 0


def test_D14_phases_ended_by_timeout_count() -> None:
    state = table("TRUSIS", "HUMAN", "HUMAN", "HUMAN", "HUMAN")
    for _ in range(5):
        act(state, "timeout")
    assert state.status == "running" and state.quiet == 5
    act(state, "pass", 3)
    act(state, "timeout")
    finished(state, "DRAW", [])


# -- R31–R35 against an independent reading, over random games -------------------------------

HUMAN_TEAM = {"HUMAN", "SWEEPER", "GRAVEKEEPER", "PRIEST", "WISE_WOMAN", "WHITE_KNIGHT"}


def expected_winner(roles: list[str], living: list[int]) -> str | None:
    trusis = sum(1 for s in living if roles[s] == "TRUSIS")
    human_met = trusis == 0
    trusis_met = 2 * trusis > len(living) or not any(
        roles[s] in HUMAN_TEAM or roles[s] == "CASTAWAY" for s in living)
    if not (human_met or trusis_met):
        return None
    if any(roles[s] == "CASTAWAY" for s in living):
        return "CASTAWAY"
    if human_met and trusis_met:
        return "TRUSIS" if living else "DRAW"
    return "HUMAN" if human_met else "TRUSIS"


def team_of(role: str) -> str:
    if role in HUMAN_TEAM:
        return "HUMAN"
    return "CASTAWAY" if role == "CASTAWAY" else "TRUSIS"


@pytest.mark.parametrize("seed", range(40))
def test_R31_R35_random_games_agree_with_the_rules(seed: int) -> None:
    rng = random.Random(seed)
    players = rng.randint(5, 16)
    state = new_game([f"P{i}" for i in range(players)], seed=seed)
    quiet = 0
    before = 0
    for _action in random_play(state, rng, pass_chance=0.5):
        for entry in state.history[before:]:
            quiet = 0 if entry["died"] or entry["revived"] else quiet + 1
        if len(state.history) > before:
            living = [s for s in range(1, players + 1) if state.alive[s]]
            winner = expected_winner(state.roles, living)
            if winner is None and quiet >= 6:
                winner = "DRAW"
            assert state.winner == winner
            assert state.status == ("running" if winner is None else "finished")
        before = len(state.history)
    assert not state.running
    winners = [] if state.winner == "DRAW" else [
        s for s in range(1, players + 1) if team_of(state.roles[s]) == state.winner]
    assert state.winners == winners


def test_D15_knights_reviving_each_other_end_in_a_draw_at_the_phase_limit() -> None:
    """R34 cannot end it (every phase has a death and a revival); D15 does, after 100 phases."""
    from trusis import new_game
    from trusis.rules.victory import PHASE_LIMIT

    deal = ["HUMAN", "HUMAN", "TRUSIS", "WHITE_KNIGHT", "BLACK_KNIGHT", "HUMAN", "HUMAN", "HUMAN"]
    state = new_game([f"P{i}" for i in range(1, 9)], deal=deal)
    for voter in (1, 2, 3, 4, 6, 7, 8):
        apply(state, Action("vote", voter, 5))
    apply(state, Action("timeout"))
    assert not state.alive[5]
    events = []
    while state.running:
        knight = 4 if state.alive[4] else 5
        apply(state, Action("revive", knight, 9 - knight))
        events = apply(state, Action("timeout"))
    assert len(state.history) == PHASE_LIMIT
    assert state.winner == "DRAW" and state.winners == []
    assert [e.code for e in events][-2:] == ["phase_limit", "game_over"]
