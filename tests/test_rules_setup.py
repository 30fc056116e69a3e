"""Setting up a table: R1–R7, R10 and D12."""

from __future__ import annotations

import random

import pytest

from scenario import NAMES, pass_all, table
from trusis import SetupError, new_game, view

STANDARD = [
    "HUMAN", "HUMAN", "TRUSIS", "SWEEPER", "BUTCHER", "PRIEST", "HUMAN", "TRUSIS",
    "GRAVEKEEPER", "ILLUSIONIST", "WISE_WOMAN", "ORACLE", "WHITE_KNIGHT", "BLACK_KNIGHT",
    "CASTAWAY", "KAMIKAZE", "SWEEPER", "GRAVEDIGGER", "PRIEST", "TRUSIS", "GRAVEKEEPER",
    "ORACLE", "CASTAWAY", "WISE_WOMAN", "KAMIKAZE", "WHITE_KNIGHT", "BLACK_KNIGHT", "HUMAN",
    "HUMAN", "CASTAWAY",
]
TABLE_ORDER = [
    "SWEEPER", "GRAVEKEEPER", "PRIEST", "WISE_WOMAN", "WHITE_KNIGHT", "TRUSIS", "BUTCHER",
    "ILLUSIONIST", "ORACLE", "BLACK_KNIGHT", "KAMIKAZE", "GRAVEDIGGER", "CASTAWAY",
]


def setup_error(players: int, custom: dict[str, int] | None = None,
                deal: list[str] | None = None) -> SetupError:
    with pytest.raises(SetupError) as info:
        new_game(NAMES[:players], custom=custom, deal=deal)
    return info.value


# -- R1 ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [5, 12, 30])
def test_R1_five_to_thirty_players_can_start(players: int) -> None:
    state = new_game(NAMES[:players], seed=1)
    assert state.n == players
    assert len(state.roles) == players + 1


def test_R1_four_players_is_too_few() -> None:
    err = setup_error(4)
    assert err.code == "too_few_players"
    assert "5" in str(err) and "4" in str(err)


def test_R1_thirty_one_players_is_too_many() -> None:
    with pytest.raises(SetupError) as info:
        new_game([f"P{i}" for i in range(31)])
    assert info.value.code == "too_many_players"
    assert "30" in str(info.value) and "31" in str(info.value)


def test_R1_explicit_deal_must_fit_the_table() -> None:
    err = setup_error(4, deal=["TRUSIS", "HUMAN", "HUMAN", "HUMAN"])
    assert err.code == "too_few_players"
    err = setup_error(5, deal=["TRUSIS", "HUMAN", "HUMAN", "HUMAN"])
    assert err.code == "deal_size"


# -- R2 / R3 -------------------------------------------------------------------


@pytest.mark.parametrize(("players", "seed"), [(5, 0), (5, 7), (9, 3), (17, 11), (30, 42)])
def test_R2_standard_set_is_seeded_shuffle_of_first_n(players: int, seed: int) -> None:
    expected = STANDARD[:players]
    random.Random(seed).shuffle(expected)
    state = new_game(NAMES[:players], seed=seed)
    assert state.roles[1:] == expected
    assert new_game(NAMES[:players], seed=seed).roles == state.roles  # deterministic


def test_R3_custom_set_in_table_order_then_humans() -> None:
    custom = {"KAMIKAZE": 1, "TRUSIS": 2, "PRIEST": 1, "SWEEPER": 1}
    expected = ["SWEEPER", "PRIEST", "TRUSIS", "TRUSIS", "KAMIKAZE"] + ["HUMAN"] * 5
    for seed in (0, 5, 99):
        shuffled = list(expected)
        random.Random(seed).shuffle(shuffled)
        state = new_game(NAMES[:10], seed=seed, custom=custom)
        assert state.roles[1:] == shuffled
        # the order in which the host lists the counts does not matter
        again = new_game(NAMES[:10], seed=seed, custom=dict(reversed(list(custom.items()))))
        assert again.roles == state.roles


def test_R3_custom_every_special_role_once() -> None:
    custom = dict.fromkeys(TABLE_ORDER, 1)
    state = new_game(NAMES[:16], seed=4, custom=custom)
    expected = [*TABLE_ORDER, "HUMAN", "HUMAN", "HUMAN"]
    random.Random(4).shuffle(expected)
    assert state.roles[1:] == expected


def test_R3_zero_counts_are_allowed_and_human_is_not_special() -> None:
    state = new_game(NAMES[:5], custom={"TRUSIS": 1, "PRIEST": 0})
    assert sorted(state.roles[1:]) == ["HUMAN"] * 4 + ["TRUSIS"]
    # HUMAN is a role that a custom set never counts: the seats left over are Humans (D24).
    assert setup_error(5, custom={"TRUSIS": 1, "HUMAN": 2}).code == "human_in_set"
    assert setup_error(5, custom={"TRUSIS": 1, "WIZARD": 1}).code == "unknown_role"
    assert setup_error(5, custom={"TRUSIS": 1, "PRIEST": -1}).code == "bad_count"


# -- R4 ------------------------------------------------------------------------


def test_R4_more_characters_than_players_names_both_numbers() -> None:
    custom = {"TRUSIS": 1, "SWEEPER": 1, "PRIEST": 1, "ORACLE": 1, "BUTCHER": 1,
              "CASTAWAY": 1, "KAMIKAZE": 1}
    err = setup_error(6, custom=custom)
    assert err.code == "too_many_roles"
    assert err.params == {"roles": 7, "players": 6}
    assert "7" in str(err) and "6" in str(err)
    # nothing is lost: the same table starts once a player joins
    assert new_game(NAMES[:7], custom=custom).n == 7


# -- R5 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("role", "count", "minimum", "name"),
    [("ILLUSIONIST", 2, 9, "Illusionist"), ("TRUSIS", 2, 8, "Trusis"),
     ("PRIEST", 3, 13, "Priest"), ("TRUSIS", 4, 17, "Trusis"),
     ("CASTAWAY", 3, 13, "Castaway"), ("SWEEPER", 2, 9, "Sweeper")],
)
def test_R5_minimum_players_per_copy(role: str, count: int, minimum: int, name: str) -> None:
    custom = {role: count} if role == "TRUSIS" else {role: count, "TRUSIS": 1}
    err = setup_error(minimum - 1, custom=custom)
    assert err.code == "role_needs_players"
    assert err.params["role"] == role
    assert err.params["count"] == count
    assert err.params["minimum"] == minimum
    text = str(err)
    assert name in text and str(count) in text and str(minimum) in text
    state = new_game(NAMES[:minimum], custom=custom)
    assert state.roles.count(role) == count


def test_R5_one_copy_of_any_role_fits_five_players() -> None:
    for role in TABLE_ORDER:
        custom = {role: 1} if role == "TRUSIS" else {role: 1, "TRUSIS": 1}
        assert new_game(NAMES[:5], custom=custom).roles.count(role) == 1


def test_R5_does_not_apply_to_an_explicit_deal() -> None:
    deal = ["ILLUSIONIST", "ILLUSIONIST", "TRUSIS", "HUMAN", "HUMAN", "HUMAN"]
    assert table(*deal).roles[1:] == deal


# -- R6 ------------------------------------------------------------------------


def test_R6_custom_set_without_trusis_fails() -> None:
    assert setup_error(5, custom={"BUTCHER": 1, "ORACLE": 1}).code == "no_trusis"


def test_R6_explicit_deal_without_trusis_fails() -> None:
    err = setup_error(5, deal=["BUTCHER", "HUMAN", "HUMAN", "HUMAN", "HUMAN"])
    assert err.code == "no_trusis"
    assert "Trusis" in str(err)


@pytest.mark.parametrize(
    ("deal", "team"),
    [(["TRUSIS", "TRUSIS", "TRUSIS", "HUMAN", "HUMAN"], "TRUSIS"),
     (["TRUSIS", "BUTCHER", "ORACLE", "KAMIKAZE", "GRAVEDIGGER"], "TRUSIS"),
     (["TRUSIS", "TRUSIS", "TRUSIS", "CASTAWAY", "HUMAN"], "CASTAWAY")],
)
def test_R6_deal_already_won_fails(deal: list[str], team: str) -> None:
    err = setup_error(5, deal=deal)
    assert err.code == "already_won"
    assert err.params["team"] == team


def test_R6_custom_set_already_won_fails() -> None:
    custom = {"TRUSIS": 1, "BUTCHER": 1, "ORACLE": 1, "KAMIKAZE": 1, "GRAVEDIGGER": 1}
    assert setup_error(5, custom=custom).code == "already_won"


def test_R6_exact_half_trusis_is_not_a_majority() -> None:
    state = table("TRUSIS", "TRUSIS", "TRUSIS", "HUMAN", "HUMAN", "HUMAN")
    assert state.status == "running"


# -- R7 / D12 ------------------------------------------------------------------


def test_R7_initial_knowledge() -> None:
    deal = ["TRUSIS", "TRUSIS", "GRAVEDIGGER", "GRAVEDIGGER", "BUTCHER", "ORACLE",
            "CASTAWAY", "CASTAWAY", "HUMAN", "SWEEPER", "HUMAN"]
    state = table(*deal)
    trusis = {"1": "TRUSIS", "2": "TRUSIS"}
    diggers = {"3": "GRAVEDIGGER", "4": "GRAVEDIGGER"}
    assert view(state, 1)["known"] == trusis
    assert view(state, 2)["known"] == trusis
    assert view(state, 3)["known"] == trusis | diggers
    assert view(state, 4)["known"] == trusis | diggers
    for seat in (5, 6, 7, 8, 9, 10, 11):  # own role only; Castaways do not know each other
        assert view(state, seat)["known"] == {str(seat): deal[seat - 1]}
        assert view(state, seat)["role"] == deal[seat - 1]
    assert view(state, None)["known"] == {}


def test_D12_no_event_at_start_knowledge_in_first_view() -> None:
    state = table("TRUSIS", "TRUSIS", "HUMAN", "HUMAN", "HUMAN", "GRAVEDIGGER")
    assert state.seq == 0
    assert state.history == []
    first = view(state, 6)
    assert first["seq"] == 0
    assert first["known"] == {"1": "TRUSIS", "2": "TRUSIS", "6": "GRAVEDIGGER"}


# -- R10 -----------------------------------------------------------------------


def test_R10_day1_night1_day2_night2() -> None:
    state = table("TRUSIS", "HUMAN", "HUMAN", "HUMAN", "HUMAN")
    seen = [(state.kind, state.number)]
    for _ in range(3):
        pass_all(state)
        seen.append((state.kind, state.number))
    assert seen == [("day", 1), ("night", 1), ("day", 2), ("night", 2)]
    assert [h["phase"] for h in state.history] == [
        {"kind": "day", "number": 1}, {"kind": "night", "number": 1},
        {"kind": "day", "number": 2},
    ]
