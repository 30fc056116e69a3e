"""`view_json` is `view` serialised: the same bytes for every seat, at every step.

The server sends each seat `view_json` (its shared fields serialised once per
change, views.py); this checks over random games (tests/randomgames.py, night
and day, the TRUSIS' own night votes included, R24) that what it sends is, byte
for byte, `orjson.dumps` of the seat's `view` — the one code that says what a
seat may see — with and without the chat, and for a spectator.
"""

from __future__ import annotations

import orjson
from hypothesis import HealthCheck, given, settings

from randomgames import Mix, Policy, mixes, tables
from randomgames import Table as Shape
from trusis import Table
from trusis.rules.views import view, view_json

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def same_bytes(table: Table) -> None:
    state = table.state
    for seat in [None, *range(1, state.n + 1)]:
        for chat in (False, True):
            assert view_json(state, seat, chat) == orjson.dumps(view(state, seat, chat))


@SETTINGS
@given(shape=tables(), mix=mixes(max_active=4))
def test_view_json_is_the_view_serialised(shape: Shape, mix: Mix) -> None:
    table = Table(list(shape.names), shape.seed, shape.custom)
    policy = Policy(mix)
    same_bytes(table)
    for number in range(3000):
        step = policy.next(table.state)
        if step is None:
            break
        table.submit(step.action)
        if number % 7 == 0:
            same_bytes(table)
    same_bytes(table)


def test_view_json_refuses_a_seat_that_is_not_there() -> None:
    table = Table([f"p{i}" for i in range(1, 8)], seed=3)
    for seat in (0, 8, -1, True):
        try:
            view_json(table.state, seat)  # type: ignore[arg-type]
        except ValueError:
            continue
        raise AssertionError(f"seat {seat!r} was accepted")


def same_events(table: Table, read: dict[int | None, int]) -> None:
    """`events_json` is `events_after` serialised, from any reader's stream number, with a
    memo shared by every reader (as the server's one delivery to a table's clients)."""
    memo: dict[int, bytes] = {}
    for seat in [None, *range(1, table.state.n + 1)]:
        number = read.get(seat, 0)
        events = table.events_after(seat, number)
        last, joined = table.events_json(seat, number, memo)
        assert joined == b",".join(orjson.dumps(event) for event in events)
        assert last == (events[-1]["seq"] if events else number)
        read[seat] = last


@SETTINGS
@given(shape=tables(), mix=mixes(max_active=4))
def test_events_json_is_the_stream_serialised(shape: Shape, mix: Mix) -> None:
    table = Table(list(shape.names), shape.seed, shape.custom)
    policy = Policy(mix)
    read: dict[int | None, int] = {}
    for number in range(3000):
        step = policy.next(table.state)
        if step is None:
            break
        table.submit(step.action, t=1000.0 + number / 3 if number % 2 else None)
        if number % 5 == 0:
            same_events(table, read)
    same_events(table, {})  # every stream again from its start
    same_events(table, read)
