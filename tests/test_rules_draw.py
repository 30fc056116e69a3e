"""D38: the server's staff end a stuck game as a draw, with the record action `draw`.

The engine side: the action ends a running game at once as a draw (nobody wins,
every role shows), announced to everyone as `operator_draw`; it needs no seat and
names none; it is refused once the game is over; a record holding it replays to the
same end through `trusis replay` (docs/record.md), and a seat's program or a bot can
never send it (the server refuses it as it refuses `timeout`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scenario import table
from trusis import Action, apply, view
from trusis.bots.driver import _FORBIDDEN
from trusis.rules.actions import STAFF_DRAW
from trusis.rules.errors import IllegalAction, RecordError
from trusis.server.tables.commands import NOT_COMMANDS

DEAL = ["TRUSIS", "HUMAN", "SWEEPER", "BUTCHER", "HUMAN"]


def test_D38_draw_ends_a_running_game_for_everyone() -> None:
    state = table(*DEAL)
    apply(state, Action("vote", 1, 5))
    events = apply(state, Action(STAFF_DRAW))
    assert [(e.code, e.audience) for e in events] == [("operator_draw", "public"),
                                                       ("game_over", "public")]
    over = events[-1].params
    assert over["winner"] == "DRAW" and list(over["winners"]) == []
    assert state.status == "finished" and state.winner == "DRAW" and state.winners == []
    everything = {str(s): DEAL[s - 1] for s in range(1, 6)}
    for seat in (None, 1, 2, 3, 4, 5):  # R35: every role shown at the end
        seen = view(state, seat)
        assert seen["known"] == everything and seen["winner"] == "DRAW"
        assert seen["votes"] == {} and seen["passed"] == []


def test_D38_draw_is_refused_after_the_end_and_with_a_bad_seat() -> None:
    state = table(*DEAL)
    with pytest.raises(IllegalAction) as bad_seat:
        apply(state, Action(STAFF_DRAW, 9))
    assert bad_seat.value.code == "no_such_seat" and state.running
    apply(state, Action(STAFF_DRAW))
    with pytest.raises(IllegalAction) as again:
        apply(state, Action(STAFF_DRAW))
    assert again.value.code == "game_over"


def test_D38_record_form_has_no_seat() -> None:
    assert Action(STAFF_DRAW).to_dict() == {"do": "draw"}
    assert Action.from_dict({"do": "draw"}, 5) == Action(STAFF_DRAW)
    with pytest.raises(RecordError) as err:
        Action.from_dict({"do": "draw", "seat": 6}, 5, "actions[3]")
    assert err.value.field == "actions[3].seat"


def test_D38_nobody_at_a_table_sends_draw() -> None:
    assert STAFF_DRAW in NOT_COMMANDS and STAFF_DRAW in _FORBIDDEN


def test_D38_trusis_replay_plays_a_record_ended_by_the_staff(tmp_path: Path) -> None:
    record = {"format": "trusis-record/1", "players": ["Ann", "Bob", "Cid", "Dee", "Eve"],
              "deal": DEAL, "seed": 3,
              "actions": [{"seat": 1, "do": "vote", "target": 5}, {"do": "timeout"},
                          {"do": "draw"}, {"do": "draw"}]}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "trusis", "replay", str(path), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["status"], result["winner"], result["winners"]) == ("finished", "DRAW",
                                                                       [])
    assert [r["index"] for r in result["refused"]] == [3]  # the second one: the game is over
    assert result["refused"][0]["code"] == "game_over"
