"""The table layer (issue 8): one object for the server, the bot driver, play and the scorer."""

from __future__ import annotations

import json

import pytest

from trusis import Action, Table, load_record, replay, view
from trusis.bots.driver import BotDriver
from trusis.bots.registry import create_bot
from trusis.stats.scoring import score

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"]


def _played(seed: int = 3) -> Table:
    table = Table(NAMES, seed=seed, started_at=1000.0)
    clock = iter(range(1001, 100000))
    driver = BotDriver(table, {s: create_bot("heuristic", s, seed) for s in range(1, 9)},
                       clock=lambda: float(next(clock)))
    driver.run_game()
    return table


def test_each_seat_stream_is_numbered_in_its_own_numbering_and_matches_its_view() -> None:
    table = _played()
    for seat in [None, *range(1, 9)]:
        events = table.events_after(seat, 0)
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert len(events) == table.stream_length(seat) == view(table.state, seat)["seq"]
        # A reader that reconnects after number k reads exactly the rest (R50: gaps hide nothing).
        k = len(events) // 2
        assert table.events_after(seat, k) == events[k:]
        assert table.events_after(seat, len(events) + 5) == []


def test_internal_events_stay_in_the_log_and_reach_no_stream() -> None:
    table = _played()
    internal = {e.code for e in table.log if e.audience == "internal"}
    assert internal  # tallies and causes of death are kept for statistics
    for seat in [None, *range(1, 9)]:
        assert not internal & {e["code"] for e in table.events_after(seat, 0)}


def test_a_private_event_reaches_only_its_seats() -> None:
    table = Table(NAMES, seed=3)
    table.submit(Action("say", 2, text="psst", to=5), 1.0)
    for seat in range(1, 9):
        codes = [e["code"] for e in table.events_after(seat, 0)]
        assert ("whispered" in codes) == (seat in (2, 5))
    assert table.events_after(None, 0) == []


def test_refused_actions_are_recorded_replay_to_the_same_game_and_are_counted() -> None:
    table = Table(NAMES, seed=3)
    before = json.dumps(table.state.to_dict(), sort_keys=True)
    outcome = table.submit(Action("sweep", 1, target=2), 5.0)  # day: nobody sweeps (R14)
    assert outcome.refusal is not None and outcome.index == 0 and not outcome.events
    assert json.dumps(table.state.to_dict(), sort_keys=True) == before
    table.submit(Action("vote", 1, target=2), 6.0)
    again = replay(load_record(json.dumps(table.record.to_dict())))
    assert [r.index for r in again.refused] == [0]
    assert score(table.record).table.get("refused_actions") == 1


def test_an_action_that_is_not_well_formed_for_the_table_is_refused_and_not_recorded() -> None:
    table = Table(NAMES, seed=3)
    outcome = table.submit(Action("vote", 99, target=2))
    assert outcome.refusal is not None and outcome.index is None
    assert table.record.actions == []


def test_a_refused_message_is_not_recorded_R50() -> None:
    """A message the rules refuse reached nobody (R50, D9): a record keeps no text that
    nobody read, so no copy of it can carry one to its would-be recipient."""
    table = Table(NAMES, seed=3)
    outcome = table.submit(Action("say", 2, text="psst", to=2), 1.0)  # to oneself (D9)
    assert outcome.refusal is not None and outcome.index is None
    assert table.record.actions == []


def test_D42_after_the_end_a_refused_action_is_not_recorded() -> None:
    table = _played()
    assert not table.state.running
    kept = len(table.record.actions)
    outcome = table.submit(Action("vote", 1, target=2), 2e5)
    assert outcome.refusal is not None and outcome.index is None
    assert table.submit(Action("say", 1, text="gg"), 2e5 + 1).index == kept  # D21
    assert len(table.record.actions) == kept + 1


def test_D42_a_record_that_kept_such_actions_still_loads_whole() -> None:
    """Records stored before D42 keep their refusals after the end: a restore rebuilds
    the record action for action, so the stored actions' positions stay its own."""
    played = _played().record.to_dict()
    played["actions"] += [{"seat": 1, "do": "vote", "target": 2, "t": 2e5},
                          {"seat": 2, "do": "say", "text": "x", "to": 2, "t": 2e5}]
    record = load_record(json.dumps(played))
    assert len(Table.from_record(record).record.actions) == len(played["actions"])


def test_the_record_keeps_times_so_statistics_have_a_clock() -> None:
    table = _played()
    data = table.record.to_dict()
    assert data["started_at"] == 1000.0
    assert all(isinstance(a["t"], float) for a in data["actions"])
    stats = score(load_record(json.dumps(data)))
    assert isinstance(stats.table.get("game_seconds"), (int, float))


def test_a_table_rebuilt_from_its_record_has_the_same_streams() -> None:
    table = _played(seed=5)
    rebuilt = Table.from_record(load_record(json.dumps(table.record.to_dict())))
    assert rebuilt.state.to_dict() == table.state.to_dict()
    for seat in [None, *range(1, 9)]:
        assert rebuilt.events_after(seat, 0) == table.events_after(seat, 0)
    assert rebuilt.record.to_dict() == table.record.to_dict()


def test_two_seats_snapshots_share_no_mutable_data() -> None:
    table = Table(NAMES, seed=3)
    one, two = table.snapshot(1), table.snapshot(2)
    # What the seats share is read-only (docs/architecture.md, "Views are values").
    with pytest.raises(TypeError, match="read-only"):
        one["players"][0]["name"] = "changed"
    with pytest.raises(TypeError, match="read-only"):
        one["alive"].append(99)
    one["seat"] = 99  # the top level is this reader's own
    assert two["players"][0]["name"] == "Ann" and 99 not in two["alive"] and two["seat"] == 2
    assert table.snapshot(1)["players"][0]["name"] == "Ann"
    events = table.events_after(None, 0)
    for event in events:
        event["params"]["x"] = 1
    assert all("x" not in e["params"] for e in table.events_after(None, 0))
