"""Stepping through a finished game as one seat saw it, or with everything revealed.

A step is one event of the seat's own stream (never a position in the whole
record, which would count actions the seat could not see), and the screen at
that step is the engine's own view of the position reached, so a replay shows
exactly what that seat saw. With everything revealed (seat None), a step is
one action of the record: the game has ended, nothing is secret any more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trusis.rules.formats import EventData
from trusis.rules.views import own_choices, view
from trusis.table.record import Record
from trusis.table.table import Table


def replay_step(record: Record, seat: int | None, step: int) -> dict[str, Any]:
    """The screen of `seat` after its `step`-th event (0: the start); None reveals all."""
    table = Table(record.players, record.seed, record.custom, record.roles())
    actions = record.actions
    if seat is None:
        step = max(0, min(step, len(actions)))
        events: list[dict[str, Any]] = []
        for action in actions[:step]:
            outcome = table.submit(action)
            events = [{"code": e.code, "params": e.params,
                       "to": list(e.seats) if e.audience == "seats" else None}
                      for e in outcome.events if e.audience != "internal"]
        state = table.state
        return {
            "seat": None, "step": step, "steps": len(actions), "events": events,
            "phases": _action_phases(record),
            "view": view(state, None),
            "roles": {str(s): state.roles[s] for s in range(1, state.n + 1)},
            "choices": {str(s): own_choices(state, s) for s in range(1, state.n + 1)},
            "known": {str(s): {str(k): v for k, v in state.known[s].items()}
                      for s in range(1, state.n + 1)},
        }
    final = Table.from_record(record)
    stream = final.events_after(seat, 0)
    total = len(stream)
    step = max(0, min(step, total))
    index = 0
    while table.stream_length(seat) < step and index < len(actions):
        table.submit(actions[index])
        index += 1
    return {"seat": seat, "step": step, "steps": total,
            "events": stream[step - 1:step] if step else [],
            "log": stream[:step],  # everything this seat had seen by then, in its numbering
            "phases": phase_steps(stream),
            "view": view(table.state, seat)}


def phase_steps(stream: Sequence[EventData]) -> list[dict[str, Any]]:
    """Where each phase begins in a seat's stream: Day 1 at step 0, then each
    `phase_started` event's number, so a replay can jump to a phase in one request."""
    phases = [{"kind": "day", "number": 1, "step": 0}]
    for event in stream:
        if event["code"] == "phase_started":
            phases.append({"kind": event["params"]["kind"], "number": event["params"]["number"],
                           "step": event["seq"]})
    return phases


def _action_phases(record: Record) -> list[dict[str, Any]]:
    """Where each phase begins among the record's actions (the revealed replay's steps)."""
    table = Table(record.players, record.seed, record.custom, record.roles())
    phases = [{"kind": "day", "number": 1, "step": 0}]
    for index, action in enumerate(record.actions, 1):
        if table.submit(action).phase_changed and table.state.running:
            phases.append({"kind": table.state.kind, "number": table.state.number,
                           "step": index})
    return phases
