"""Views, snapshots and events are values: editing one changes nothing else.

docs/architecture.md, "Views are values": whatever the engine hands a consumer
through the public API — `view()`, `Table.snapshot`, `Table.events_after`,
`Bot.legal()` — is either made fresh for that call or read-only. Over random
games (tests/randomgames.py, R11–R63 in play), this test tries to edit every
container a consumer can reach, recursively (set and add keys, replace, append,
remove), and checks that nothing else changed: the game's state (`to_dict()`,
which a save writes), every seat's view, snapshot and events, and another game
of the same size (the engine shares some values between games: `pass`, `leave`,
the full-table `say`, the composition).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from hypothesis import HealthCheck, given, settings

from randomgames import Mix, Policy, mixes, tables
from randomgames import Table as Shape
from trusis import Table
from trusis.bots.base import Bot
from trusis.rules.actions import Action
from trusis.rules.views import all_views, view

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
EDITED = "edited"


class Reader(Bot):
    """A plug-in bot that only reads its view (its `legal` is what is tested)."""

    def act(self) -> Action | None:
        return None


def containers(data: Any) -> list[Any]:
    """Every dict and list inside `data` (itself included), each once, parents first."""
    found: list[Any] = []
    seen: set[int] = set()
    todo = [data]
    while todo:
        item = todo.pop()
        if isinstance(item, (dict, list)) and id(item) not in seen:
            seen.add(id(item))
            found.append(item)
            todo.extend(item.values() if isinstance(item, dict) else item)
    return found


def edit(item: Any) -> None:
    """Every kind of edit a careless consumer makes; a read-only container refuses each."""
    attempts: list[Any] = []
    if isinstance(item, dict):
        keys = list(item)
        attempts += [lambda: item.__setitem__("__edited__", EDITED),
                     lambda: item.update({"__more__": EDITED}),
                     lambda: item.setdefault("__default__", EDITED)]
        attempts += [lambda key=key: item.__setitem__(key, EDITED) for key in keys]
        if keys:
            attempts += [lambda: item.pop(keys[0]), lambda: item.popitem(), item.clear]
    else:
        attempts += [lambda: item.append(EDITED), lambda: item.extend([EDITED]),
                     lambda: item.insert(0, EDITED)]
        if item:
            attempts += [lambda: item.__setitem__(0, EDITED), lambda: item.pop(),
                         item.reverse, lambda: item.__delitem__(0), item.clear]
    for attempt in attempts:
        with contextlib.suppress(TypeError):  # read-only: the edit is refused, as wanted
            attempt()


def reachable(table: Table) -> list[Any]:
    """What every consumer of this table can reach now, through the public API."""
    state = table.state
    seats: list[int | None] = [None, *range(1, state.n + 1)]
    out: list[Any] = []
    for seat in seats:
        out += [view(state, seat), view(state, seat, chat=False), table.snapshot(seat),
                table.snapshot(seat, chat=False), table.events_after(seat, 0)]
    out += list(all_views(state).values())
    for seat in range(1, state.n + 1):
        bot = Reader(seat)
        bot.observe(view(state, seat), table.events_after(seat, 0))
        out += [bot.legal(entry.get("do", "")) for entry in bot.view["legal"]]
    return out


def witness(table: Table) -> str:
    """Everything that must not change, as text: the state, every seat's data."""
    state = table.state
    seats: list[int | None] = [None, *range(1, state.n + 1)]
    return json.dumps({
        "state": state.to_dict(),
        "views": [view(state, seat) for seat in seats],
        "snapshots": [table.snapshot(seat, chat=False) for seat in seats],
        "events": [table.events_after(seat, 0) for seat in seats],
    }, sort_keys=True)


def check_edits(table: Table, other: Table) -> None:
    before, other_before = witness(table), witness(other)
    for item in reachable(table):
        for container in containers(item):
            edit(container)
    assert witness(table) == before, "an edit of a view, snapshot or event reached the game"
    assert witness(other) == other_before, "an edit reached another game"


@SETTINGS
@given(shape=tables(), mix=mixes(max_active=4))
def test_editing_what_the_engine_hands_out_changes_nothing_else(shape: Shape, mix: Mix) -> None:
    """R50 (chat), R28 (Gravekeeper and Gravedigger results shared by a phase), R35 (the
    end's roles and winners), R13/R14 (legal actions): every one survives its consumers."""
    table = Table(list(shape.names), shape.seed, shape.custom)
    other = Table(list(shape.names), shape.seed, shape.custom)
    policy = Policy(mix)
    phase = (table.state.kind, table.state.number)
    checks = changes = 0
    for _ in range(6000):
        step = policy.next(table.state)
        if step is None:
            break
        outcome = table.submit(step.action)
        if (table.state.kind, table.state.number) != phase or outcome.ended:
            phase = (table.state.kind, table.state.number)
            changes += 1
            if changes % 3 == 1 and checks < 4:  # night and day in turn, results included
                check_edits(table, other)
                checks += 1
    check_edits(table, other)
    assert checks >= 1
