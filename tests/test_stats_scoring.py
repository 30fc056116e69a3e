"""The Trusis statistics of hand-built records (docs/statistics.md), worked out by hand.

Each record uses an explicit `deal`. The expected values are derived in the comments
from the rules, not copied from the program's output.
"""

from __future__ import annotations

from typing import Any

import pytest

from trusis import parse_record
from trusis.stats import GameStats, score

DASH = None  # an uninitialised statistic ("-")


def scored(players: list[str], deal: list[str], actions: list[dict[str, Any]],
           **extra: Any) -> GameStats:
    data = {"format": "trusis-record/1", "players": players, "deal": deal,
            "actions": actions, **extra}
    return score(parse_record(data))


def table(stats: GameStats) -> dict[str, Any]:
    return {r.name: stats.table.get(r.name) for r in stats.table.rows()}


def column(stats: GameStats, name: str) -> list[Any]:
    """One player statistic for seats 1..n (None where "-")."""
    return [stats.player(s).get(name) for s in stats.players]


def vote(seat: int, target: int) -> dict[str, Any]:
    return {"seat": seat, "do": "vote", "target": target}


TIMEOUT = {"do": "timeout"}


# -- Game 1: a tie, an illusion, an extra vote, a Priest save, a sweep, chat --------
#
# Seats: 1 Ann HUMAN, 2 Bob TRUSIS, 3 Cid SWEEPER, 4 Dee WISE_WOMAN, 5 Eve ILLUSIONIST,
#        6 Fay HUMAN, 7 Gus PRIEST.
# Day 1: 1→2, 2→1, Eve's illusion shows 2 and counts 3. Counts 1:1, 2:1, 3:1: a tie,
#   nobody dies (tied_votes 1). Ann says something; Cid whispers to Dee.
# Night 1: Bob votes 1, Gus protects 1 (a save: 1 does not die), Dee's extra vote on 6,
#   Cid sweeps 2 → TRUSIS (trusis_found). Nobody dies.
# Day 2: 1→2, 3→2, 4→6, 6→2, plus Dee's extra vote on 6. Counts 2:3, 6:2 → Bob dies;
#   no TRUSIS left, no Castaway: the Human team wins.
GAME1 = (
    ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus"],
    ["HUMAN", "TRUSIS", "SWEEPER", "WISE_WOMAN", "ILLUSIONIST", "HUMAN", "PRIEST"],
    [
        vote(1, 2), vote(2, 1), {"seat": 5, "do": "illusion", "shown": 2, "target": 3},
        {"seat": 1, "do": "say", "text": "Bob, really?"},
        {"seat": 3, "do": "say", "text": "psst", "to": 4},
        TIMEOUT,
        vote(2, 1), {"seat": 7, "do": "protect", "target": 1},
        {"seat": 4, "do": "extra_vote", "target": 6}, {"seat": 3, "do": "sweep", "target": 2},
        TIMEOUT,
        vote(1, 2), vote(3, 2), vote(4, 6), vote(6, 2),
        TIMEOUT,
    ],
)


@pytest.fixture(scope="module")
def game1() -> GameStats:
    return scored(*GAME1)


def test_game1_table(game1: GameStats) -> None:
    assert table(game1) == {
        "days_number": 2, "nights_number": 1,  # Day 1, Night 1, Day 2
        "winning_team": 1,  # Human
        "players_number": 7,
        "deaths_number": 1, "deaths_by_vote": 1, "deaths_by_trusis": 0,
        "deaths_by_kamikaze": DASH, "sacrifices": DASH, "revivals": DASH,  # no such roles
        "priest_saves": 1, "tied_votes": 1,
        "public_messages": 1, "private_messages": 1,
        "actions_number": 6 + 5 + 5, "timeouts": 3, "game_seconds": DASH, "refused_actions": 0,
    }


def test_game1_votes(game1: GameStats) -> None:
    # Day 1: 1→2, 2→1, 5→3 (real vote). Day 2: 1→2, 3→2, 4→6, 6→2.
    assert column(game1, "votes_cast") == [2, 1, 1, 1, 1, 1, 0]
    # 1: 1 (D1); 2: 1 (D1) + 3 (D2); 3: 1 (the illusion's real vote); 6: 4's vote + extra
    assert column(game1, "votes_received") == [1, 4, 1, 0, 0, 2, 0]
    # Against another team: 1→2 twice, 2→1, 5→3, 3→2, 6→2; 4→6 is Human on Human.
    assert column(game1, "votes_against_opponents") == [2, 1, 1, 0, 1, 1, 0]
    # For the condemned (Bob on Day 2): 1, 3, 6.
    assert column(game1, "votes_for_condemned") == [1, 0, 1, 0, 0, 1, 0]


def test_game1_powers_and_people(game1: GameStats) -> None:
    # Bob's night vote, Cid's sweep, Dee's extra vote, Eve's illusion, Gus's protection;
    # Humans have no power to use ("-").
    assert column(game1, "powers_used") == [DASH, 1, 1, 1, 1, DASH, 1]
    assert column(game1, "trusis_found") == [DASH, DASH, 1, DASH, DASH, DASH, DASH]
    assert column(game1, "saves") == [DASH, DASH, DASH, DASH, DASH, DASH, 1]
    assert column(game1, "role") == [1, 7, 2, 5, 9, 1, 4]
    assert column(game1, "team") == [1, 2, 1, 1, 2, 1, 1]
    assert column(game1, "survived") == [True, False, True, True, True, True, True]
    assert column(game1, "won") == [True, False, True, True, False, True, True]
    assert column(game1, "death_day") == [DASH, 2, DASH, DASH, DASH, DASH, DASH]
    assert column(game1, "deaths") == [0, 1, 0, 0, 0, 0, 0]
    # Three phases ended; Bob was dead at the end of the third.
    assert column(game1, "phases_survived") == [3, 2, 3, 3, 3, 3, 3]
    assert column(game1, "public_messages") == [1, 0, 0, 0, 0, 0, 0]
    assert column(game1, "private_messages") == [0, 0, 1, 0, 0, 0, 0]
    # Every phase ended by the timer with everyone unpassed (Bob died at the end of the
    # third, so he too was passed by it three times).
    assert column(game1, "timed_out_phases") == [3] * 7
    assert column(game1, "pass_seconds") == [DASH] * 7  # no clock in this record


def test_game1_labels(game1: GameStats) -> None:
    rows = {r.name: r for r in game1.table.rows("fr")}
    assert rows["winning_team"].value == "Humains"
    roles = {r.name: r.value for r in game1.player(4).rows("it")}
    assert roles["role"] == "Suocera" and roles["team"] == "Umani"


# -- Game 2: Kamikaze, Knight, revival, Trusis kill, Oracle, Gravekeeper -------------
#
# Seats: 1 Ann HUMAN, 2 Bob TRUSIS, 3 Cid KAMIKAZE, 4 Dee WHITE_KNIGHT,
#        5 Eve GRAVEKEEPER, 6 Fay ORACLE, 7 Gus HUMAN, 8 Hal PRIEST.
# Day 1: 1→7, 2→7, 3→7, 4→1 → Gus (7) dies by the vote.
# Night 1 (Eve learns 7 NOT_TRUSIS): Bob votes 1; Cid strikes Hal (8); Hal protects 1;
#   Dee revives 7; Fay foresees 2 → TRUSIS. Deaths: Cid (Kamikaze), Hal (struck),
#   Dee (sacrifice); Ann protected by a Priest who died the same night (still a save,
#   R30); Gus revived.
# Day 2: no votes. Night 2: Bob votes 5 → Eve dies (the Trusis kill, no Priest alive).
# Day 3: 1→2, 7→2, 2→1 → Bob dies; no TRUSIS left: Human wins.
GAME2 = (
    ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"],
    ["HUMAN", "TRUSIS", "KAMIKAZE", "WHITE_KNIGHT", "GRAVEKEEPER", "ORACLE", "HUMAN",
     "PRIEST"],
    [
        vote(1, 7), vote(2, 7), vote(3, 7), vote(4, 1), TIMEOUT,
        vote(2, 1), {"seat": 3, "do": "kamikaze", "target": 8},
        {"seat": 8, "do": "protect", "target": 1}, {"seat": 4, "do": "revive", "target": 7},
        {"seat": 6, "do": "foresee", "target": 2}, TIMEOUT,
        TIMEOUT,
        vote(2, 5), TIMEOUT,
        vote(1, 2), vote(7, 2), vote(2, 1), TIMEOUT,
    ],
)


@pytest.fixture(scope="module")
def game2() -> GameStats:
    return scored(*GAME2)


def test_game2_table(game2: GameStats) -> None:
    t = table(game2)
    assert t["days_number"] == 3 and t["nights_number"] == 2
    assert t["winning_team"] == 1
    # Gus (D1), Cid + Hal + Dee (N1), Eve (N2), Bob (D3)
    assert t["deaths_number"] == 6
    assert t["deaths_by_vote"] == 2  # Gus, Bob
    assert t["deaths_by_trusis"] == 1  # Eve
    assert t["deaths_by_kamikaze"] == 1  # Hal (Cid's own death is a sacrifice)
    assert t["sacrifices"] == 2  # Cid struck, Dee revived
    assert t["revivals"] == 1  # Gus
    assert t["priest_saves"] == 1  # Ann, Night 1
    assert t["tied_votes"] == 0  # Day 2 had no votes at all: not a tie


def test_game2_players(game2: GameStats) -> None:
    # Day 1: 1→7, 2→7, 3→7, 4→1. Day 3: 1→2, 7→2, 2→1.
    assert column(game2, "votes_cast") == [2, 2, 1, 1, 0, 0, 1, 0]
    assert column(game2, "votes_received") == [2, 2, 0, 0, 0, 0, 3, 0]
    assert column(game2, "votes_against_opponents") == [1, 2, 1, 0, 0, 0, 1, 0]
    assert column(game2, "votes_for_condemned") == [2, 1, 1, 0, 0, 0, 1, 0]
    # Bob: two night votes. Cid: strike. Dee: revive. Fay: foresee. Hal: protect.
    # Eve the Gravekeeper's information is automatic: "-".
    assert column(game2, "powers_used") == [DASH, 2, 1, 1, DASH, 1, DASH, 1]
    # Fay foresaw a TRUSIS; Eve only learnt that Gus was NOT_TRUSIS.
    assert column(game2, "trusis_found") == [DASH, DASH, DASH, DASH, 0, 1, DASH, DASH]
    # Dee revived Gus; Hal's protection stopped the kill on Ann.
    assert column(game2, "saves") == [DASH, DASH, DASH, 1, DASH, DASH, DASH, 1]
    assert column(game2, "survived") == [True, False, False, False, False, True, True, False]
    assert column(game2, "won") == [True, False, False, True, True, False, True, True]
    # Gus died on Day 1 but was revived and survived: never initialised.
    assert column(game2, "death_day") == [DASH, 3, 1, 1, 2, DASH, DASH, 1]
    assert column(game2, "deaths") == [0, 1, 1, 1, 1, 0, 1, 1]
    assert column(game2, "times_revived") == [0, 0, 0, 0, 0, 0, 1, 0]
    # Five phases ended. Gus: dead at the end of Day 1 only. Eve: D1, N1, D2.
    assert column(game2, "phases_survived") == [5, 4, 1, 1, 3, 5, 4, 1]


# -- Game 3: dying twice, a Trusis majority ---------------------------------------
#
# Seats: 1 Ann HUMAN, 2 Bob TRUSIS, 3 Cid WHITE_KNIGHT, 4 Dee HUMAN, 5 Eve HUMAN,
#        6 Fay TRUSIS.
# Day 1: 1→4, 3→4, 5→4 → Dee dies (Day 1).
# Night 1: Cid revives Dee (Cid dies), Bob and Fay vote Ann → Ann dies. Alive 2 4 5 6.
# Day 2: 2→4, 6→4, 5→2 → Dee dies again (Day 2). Alive 2, 5, 6: 2 TRUSIS of 3 →
#   the Trusis team wins.
GAME3 = (
    ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"],
    ["HUMAN", "TRUSIS", "WHITE_KNIGHT", "HUMAN", "HUMAN", "TRUSIS"],
    [
        vote(1, 4), vote(3, 4), vote(5, 4), TIMEOUT,
        {"seat": 3, "do": "revive", "target": 4}, vote(2, 1), vote(6, 1), TIMEOUT,
        vote(2, 4), vote(6, 4), vote(5, 2), TIMEOUT,
    ],
)


def test_game3_died_twice_and_trusis_win() -> None:
    stats = scored(*GAME3)
    t = table(stats)
    assert t["winning_team"] == 2
    assert t["deaths_number"] == 4  # Dee, Cid + Ann, Dee again
    assert t["deaths_by_vote"] == 2 and t["deaths_by_trusis"] == 1
    assert t["sacrifices"] == 1 and t["revivals"] == 1
    assert t["deaths_by_kamikaze"] is None and t["priest_saves"] is None
    assert column(stats, "deaths") == [1, 0, 1, 2, 0, 0]
    assert column(stats, "death_day") == [1, DASH, 1, 2, DASH, DASH]  # Dee: the last one
    assert column(stats, "times_revived") == [0, 0, 0, 1, 0, 0]
    assert column(stats, "saves") == [DASH, DASH, 1, DASH, DASH, DASH]
    assert column(stats, "won") == [False, True, False, False, False, True]
    # Day 2 votes: Bob and Fay for Dee (Human: opponents, condemned), Eve for Bob.
    assert column(stats, "votes_against_opponents") == [0, 1, 0, 0, 1, 1]
    assert column(stats, "votes_for_condemned") == [1, 1, 1, 0, 1, 1]


# -- Game 4: the clock, refusals, a Gravekeeper's find, a Castaway win --------------
#
# Seats: 1 HUMAN, 2 TRUSIS, 3 TRUSIS, 4 GRAVEKEEPER, 5 CASTAWAY, 6 HUMAN, 7 SWEEPER,
#        8 HUMAN. started_at 100.
# Day 1: 1, 4, 6 vote 2 (t 110–112); seats 1..8 pass at t 120..127: waits 20..27 s.
#   Seat 8's pass at 127 ends the day: Bob (2) dies, Night 1 starts at 127 and the
#   Gravekeeper learns 2 is TRUSIS (trusis_found 1).
# Night 1: Bob, dead, tries to vote: refused. Cid (3) votes 6. Ann passes at 137
#   (10 s). The timer runs out at 200: seats 3..8 are passed by it; Fay (6) dies.
# Day 2: 1, 4, 7 vote 3 → Cid dies; no TRUSIS left, but a Castaway is alive:
#   the Castaway team wins. (This timeout has no t.)
def game4_actions() -> list[dict[str, Any]]:
    actions: list[dict[str, Any]] = [
        {**vote(1, 2), "t": 110}, {**vote(4, 2), "t": 111}, {**vote(6, 2), "t": 112.0},
    ]
    actions += [{"seat": s, "do": "pass", "t": 119 + s} for s in range(1, 9)]
    actions += [
        vote(2, 3), {**vote(3, 6), "t": 130}, {"seat": 1, "do": "pass", "t": 137},
        {**TIMEOUT, "t": 200},
        vote(1, 3), vote(4, 3), vote(7, 3), TIMEOUT,
    ]
    return actions


GAME4_PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]
GAME4_DEAL = ["HUMAN", "TRUSIS", "TRUSIS", "GRAVEKEEPER", "CASTAWAY", "HUMAN", "SWEEPER",
              "HUMAN"]


def test_game4_clock_refusals_and_castaway() -> None:
    stats = scored(GAME4_PLAYERS, GAME4_DEAL, game4_actions(), started_at=100)
    t = table(stats)
    assert t["winning_team"] == 3
    assert t["refused_actions"] == 1 and t["timeouts"] == 2
    assert t["actions_number"] == 3 + 8 + 4 + 4
    assert t["game_seconds"] == 100.0  # last t 200 - started_at 100
    assert t["deaths_by_trusis"] == 1 and t["deaths_by_vote"] == 2
    # Ann: (20 + 10) / 2; the others passed themselves only on Day 1.
    assert column(stats, "pass_seconds") == [15.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0]
    assert column(stats, "refused_actions") == [0, 1, 0, 0, 0, 0, 0, 0]
    # Night 1: 3..8 timed out; Day 2: 1, 3, 4, 5, 7, 8 (6 dead, 2 dead).
    assert column(stats, "timed_out_phases") == [1, 0, 2, 2, 2, 1, 2, 2]
    assert column(stats, "trusis_found") == [DASH, DASH, DASH, 1, DASH, DASH, 0, DASH]
    assert column(stats, "powers_used") == [DASH, 0, 1, DASH, DASH, DASH, 0, DASH]
    assert column(stats, "won") == [False, False, False, False, True, False, False, False]


def test_game4_without_started_at_measures_from_the_first_clock() -> None:
    stats = scored(GAME4_PLAYERS, GAME4_DEAL, game4_actions())
    assert stats.table.get("game_seconds") == 90.0  # 200 - 110
    # Day 1's start is unknown: only Ann's night pass (137 - 127) is measured.
    assert column(stats, "pass_seconds") == [10.0] + [DASH] * 7


def test_a_clock_that_is_not_a_number_is_ignored() -> None:
    """`t` and `started_at` are this project's additions: a bad value is no clock."""
    actions = [{**vote(1, 2), "t": "noon"}]
    stats = scored(GAME4_PLAYERS, GAME4_DEAL, actions, started_at="9am")
    assert stats.table.get("game_seconds") is None  # never initialised: shown as "-"


# -- Game 5: a stalemate draw (R34) and an unfinished game -------------------------


def test_stalemate_is_a_draw_with_no_winner() -> None:
    # Six quiet phases (Day 1 … Night 3) end the game as a draw.
    stats = scored(["A", "B", "C", "D", "E"], ["HUMAN", "TRUSIS", "HUMAN", "HUMAN", "HUMAN"],
                   [TIMEOUT] * 6)
    t = table(stats)
    assert t["winning_team"] == 0 and t["days_number"] == 3 and t["nights_number"] == 3
    assert {r.name: r.value for r in stats.table.rows()}["winning_team"] == "None (draw)"
    assert column(stats, "won") == [False] * 5
    assert column(stats, "phases_survived") == [6] * 5
    assert t["tied_votes"] == 0


def test_a_running_game_has_no_winner_yet() -> None:
    stats = scored(["A", "B", "C", "D", "E"], ["HUMAN", "TRUSIS", "HUMAN", "HUMAN", "HUMAN"],
                   [vote(1, 2)])
    assert stats.table.get("winning_team") is None
    assert column(stats, "won") == [None] * 5
    assert column(stats, "survived") == [True] * 5
    assert column(stats, "votes_cast") == [0] * 5  # no tally yet
    assert stats.table.get("days_number") == 1 and stats.table.get("nights_number") == 0


# -- Edge cases of the definitions ---------------------------------------------------


def test_a_protected_target_struck_by_a_kamikaze_was_not_saved() -> None:
    # 1 HUMAN, 2 TRUSIS, 3 PRIEST, 4 KAMIKAZE, 5 HUMAN, 6 HUMAN, 7 HUMAN.
    # Night 1: Bob votes 5, the Priest protects 5, the Kamikaze strikes 5: 5 dies anyway
    # (priest_saves 0, saves 0), by a Kamikaze only (deaths_by_trusis 0).
    stats = scored(
        ["A", "B", "C", "D", "E", "F", "G"],
        ["HUMAN", "TRUSIS", "PRIEST", "KAMIKAZE", "HUMAN", "HUMAN", "HUMAN"],
        [TIMEOUT, vote(2, 5), {"seat": 3, "do": "protect", "target": 5},
         {"seat": 4, "do": "kamikaze", "target": 5}, TIMEOUT],
    )
    t = table(stats)
    assert t["priest_saves"] == 0 and t["deaths_by_trusis"] == 0
    assert t["deaths_by_kamikaze"] == 1 and t["sacrifices"] == 1 and t["deaths_number"] == 2
    assert column(stats, "saves")[2] == 0
    assert column(stats, "powers_used") == [DASH, 1, 1, 1, DASH, DASH, DASH]


def test_extra_vote_withdrawn_or_dropped_by_leaving_is_not_a_power_used() -> None:
    # 1 WISE_WOMAN, 2 TRUSIS, 3 WISE_WOMAN, 4..6 HUMAN. Night 1: seat 1 chooses then
    # withdraws; seat 3 chooses then leaves before passing (R52 drops it).
    stats = scored(
        ["A", "B", "C", "D", "E", "F"],
        ["WISE_WOMAN", "TRUSIS", "WISE_WOMAN", "HUMAN", "HUMAN", "HUMAN"],
        [TIMEOUT,
         {"seat": 1, "do": "extra_vote", "target": 4}, {"seat": 1, "do": "extra_vote",
                                                        "target": None},
         {"seat": 3, "do": "extra_vote", "target": 4}, {"seat": 3, "do": "leave"},
         TIMEOUT],
    )
    assert column(stats, "powers_used")[:3] == [0, 0, 0]


def test_a_seat_already_known_as_trusis_is_found_once() -> None:
    # A Sweeper sweeping the same TRUSIS on two nights finds one Trusis, uses two powers.
    stats = scored(
        ["A", "B", "C", "D", "E"], ["SWEEPER", "TRUSIS", "HUMAN", "HUMAN", "HUMAN"],
        [TIMEOUT, {"seat": 1, "do": "sweep", "target": 2}, TIMEOUT, TIMEOUT,
         {"seat": 1, "do": "sweep", "target": 2}, TIMEOUT],
    )
    assert stats.player(1).get("trusis_found") == 1
    assert stats.player(1).get("powers_used") == 2
