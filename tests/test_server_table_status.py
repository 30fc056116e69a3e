"""A table's life as one small state machine (issue 36): tables/status.py owns every change
of a room's status; these tests hold it to open → running → finished and closed / expired
from the waiting room only."""

from __future__ import annotations

from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trusis.server.tables.lobby_state import LobbyState
from trusis.server.tables.options import TableOptions
from trusis.server.tables.room import Room
from trusis.server.tables.seats.seat import ROOM_STATUSES, RoomStatus
from trusis.server.tables.status import AFTER, MOVES, Event, Forbidden, TableLife

EVENTS: tuple[Event, ...] = get_args(Event)
ALLOWED: set[tuple[RoomStatus, RoomStatus]] = {
    ("open", "running"), ("running", "finished"), ("open", "closed"), ("open", "expired"),
    ("open", "finished"),  # only a copy catching up (`follow`): it missed the start
}
"""Every (before, after) change a table may go through: nothing leaves finished, closed
or expired, and nothing goes back to open."""


def test_a_game_s_life() -> None:
    life = TableLife()
    assert life.status == "open"
    life.start()
    assert life.status == "running"
    life.finish()
    assert life.status == "finished"


@pytest.mark.parametrize("end", ["close", "expire"])
def test_closed_or_expired_from_the_waiting_room_only(end: Event) -> None:
    life = TableLife()
    life.move(end)
    assert life.status == ("closed" if end == "close" else "expired")
    life.move(end)  # again: nothing changes (a follower hears of a closing twice)
    with pytest.raises(Forbidden):
        life.start()
    running = TableLife("running")
    with pytest.raises(Forbidden):
        running.move(end)
    assert running.status == "running"


def test_a_finished_game_never_runs_again() -> None:
    life = TableLife("finished")
    for event in ("start", "close", "expire"):
        with pytest.raises(Forbidden):
            life.move(event)  # type: ignore[arg-type]
    assert life.status == "finished"


def test_a_copy_catches_up_but_never_goes_back() -> None:
    life = TableLife.stored("open")
    assert life.follow("running") and life.status == "running"
    assert not life.follow("open")  # a late word of the waiting room
    assert life.status == "running"
    assert life.follow("finished") and not life.follow("running")
    assert life.status == "finished"
    with pytest.raises(ValueError):
        TableLife.stored("paused")


def test_the_room_s_status_is_read_only() -> None:
    room = Room("t", "table", LobbyState("h", "Host", TableOptions(), "invite"), None)  # type: ignore[arg-type]
    assert room.status == "open"
    with pytest.raises(AttributeError):
        room.status = "running"  # type: ignore[misc]
    room.life.start()
    assert room.status == "running"


def test_the_moves_agree_with_what_each_status_reaches() -> None:
    for (before, _event), after in MOVES.items():
        assert after == before or after in AFTER[before]
        assert after == before or (before, after) in ALLOWED


step = st.one_of(st.tuples(st.just("move"), st.sampled_from(EVENTS)),
                 st.tuples(st.just("follow"), st.sampled_from(ROOM_STATUSES)))


@given(st.sampled_from(ROOM_STATUSES), st.lists(step, max_size=30))
def test_no_sequence_of_events_reaches_a_forbidden_transition(
        start: RoomStatus, steps: list[tuple[str, str]]) -> None:
    """Whatever happens to a table, in any order (events, and copies catching up with
    whatever the store or the writer says), every change is one of ALLOWED; a refused
    move changes nothing."""
    life = TableLife(start)
    for kind, arg in steps:
        before = life.status
        if kind == "move":
            try:
                life.move(arg)  # type: ignore[arg-type]
            except Forbidden:
                assert life.status == before
                assert (before, arg) not in MOVES
                continue
        else:
            life.follow(arg)  # type: ignore[arg-type]
        after = life.status
        assert after == before or (before, after) in ALLOWED, (before, kind, arg, after)
