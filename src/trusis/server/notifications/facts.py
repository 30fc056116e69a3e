"""The game's side of notifications: which notices an action causes, and what they say.

This runs on the game's path (host.py `submit`, seating.py's start), so it first decides
cheaply whether anything is due — a phase change, the end, a whisper, a pass that settles
a reminder — and otherwise costs a few comparisons. A notice is built from the seat's own
view (`Table.snapshot`, which is `trusis.rules.views.view`) and the events of its own
stream (`Table.events_after`), never from the game's state: it can say only what that seat
may know (no role of another seat, no hidden vote, no whisper between others). Only a
person's seat whose player can be reached and who has no page open at the table gets one.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from trusis.rules.actions import LEAVE, PASS, SAY
from trusis.table.table import Outcome, Table

REMINDER_BEFORE_SECONDS = 3 * 3600.0
"""A reminder comes this long before a phase's deadline (D58) ..."""
REMINDER_SHARE = 0.25
"""... or, for a shorter phase, when this share of it is left."""
REMINDER_PHASE_AT_LEAST = 1800.0
"""No reminder in a phase shorter than this: its player sees the deadline coming."""

TOLD_CODES = frozenset({"phase_started", "vote_killed", "nobody_killed", "died", "revived",
                        "quiet_night", "stalemate", "phase_limit", "operator_draw",
                        "game_over", "timed_out", "whispered"})
"""The events of a seat's stream a notice repeats: what happened to the table at a phase's
turn, and a whisper to the seat. A seat's private results stay in the game (D57)."""
NAMED_PARAMS = ("seat", "target", "to", "voter", "shown")
WHISPER_CHARACTERS = 300  # a whisper longer than this is cut in a notice


class Reachable:
    """The players something may be sent to (a confirmed address or a push subscription):
    the game's cheap test. Kept by the outbox (outbox.py), refreshed from the database."""

    def __init__(self, players: Iterable[str] = ()) -> None:
        self.players: set[str] = set(players)
        self.wake: Callable[[], None] = lambda: None  # the outbox: new notices are stored
        self.reminder_before: float | None = None
        """Short settings for tests (TRUSIS_NOTIFY_REMINDER_BEFORE_SECONDS): a reminder
        this long before every deadline, whatever the phase's length."""

    def __contains__(self, player_id: object) -> bool:
        return player_id in self.players


REACHABLE: Reachable | None = None
"""Set by the app while its outbox runs; None: no notifications (the engine's tests, tools)."""

Seats = Sequence[tuple[int, str]]
"""(seat, player id) of the seats persons hold."""
Connected = Callable[[int], bool]
Caused = tuple[list[dict[str, Any]], list[tuple[int, str]]]
"""An action's notices (rows of `schema.notices`) and the reminders it settles."""


@dataclass
class GameNotices:
    """One game's notices, as its host asks for them: the table's id, and how to read its
    name, its persons' seats and who has a page open there (the room's)."""

    table_id: str
    name: Callable[[], str]
    seats: Callable[[], Seats]
    connected: Connected

    def started(self, table: Table, deadline: float | None, phase_seconds: float,
                now: float) -> list[dict[str, Any]]:
        if REACHABLE is None:
            return []
        return game_started(self.table_id, self.name(), table, self.seats(), deadline,
                            phase_seconds, now, self.connected)

    def after(self, table: Table, outcome: Outcome, deadline: float | None,
              phase_seconds: float, now: float) -> Caused:
        if REACHABLE is None:
            return [], []
        return after_action(self.table_id, self.name, table, outcome, self.seats, deadline,
                            phase_seconds, now, self.connected)


def stored(rows: Sequence[dict[str, Any]]) -> None:
    """Notices were just stored: the outbox looks at once instead of at its next round."""
    if rows and (reach := REACHABLE) is not None:
        reach.wake()


def reminder_due(deadline: float | None, phase_seconds: float) -> float | None:
    """When a phase's reminder is due (None: no reminder for this phase)."""
    if deadline is None:
        return None
    if REACHABLE is not None and REACHABLE.reminder_before is not None:
        return deadline - REACHABLE.reminder_before
    if phase_seconds < REMINDER_PHASE_AT_LEAST:
        return None
    return deadline - min(REMINDER_BEFORE_SECONDS, phase_seconds * REMINDER_SHARE)


def game_started(table_id: str, name: str, table: Table, seats: Seats,
                 deadline: float | None, phase_seconds: float, now: float,
                 connected: Connected) -> list[dict[str, Any]]:
    """The notices of a game's start: 'started' (and its first phase's reminder)."""
    reach = REACHABLE
    if reach is None:
        return []
    rows: list[dict[str, Any]] = []
    for seat, player_id in seats:
        if player_id in reach and not connected(seat):
            facts = seat_facts(table, seat, table_id, name, deadline, 0)
            rows.append(_row(player_id, table_id, seat, "started", facts, now, now))
            if (due := reminder_due(deadline, phase_seconds)) is not None:
                rows.append(_row(player_id, table_id, seat, "reminder", facts, now, due))
    return rows


def after_action(table_id: str, name: Callable[[], str], table: Table, outcome: Outcome,
                 seats: Callable[[], Seats], deadline: float | None, phase_seconds: float,
                 now: float, connected: Connected) -> Caused:
    """The notices an applied action causes, and the reminders it settles (a seat that
    passed or left needs none): ([], []) in the common case, at the cost of a few tests."""
    reach = REACHABLE
    action = outcome.action
    if reach is None or outcome.refusal is not None:
        return [], []
    whisper = action.do == SAY and action.to is not None
    settles = action.do in (PASS, LEAVE) and action.seat is not None
    if not (outcome.phase_changed or whisper or settles):
        return [], []
    due = reminder_due(deadline, phase_seconds)
    if settles and not outcome.phase_changed:
        if due is None or not any(s == action.seat and p in reach for s, p in seats()):
            return [], []
        return [], [(action.seat or 0, f"{table.state.kind}:{table.state.number}")]
    rows: list[dict[str, Any]] = []
    for seat, player_id in seats():
        if player_id not in reach or connected(seat):
            continue
        told = sum(1 for e in outcome.events if e.visible_to(seat))
        if outcome.phase_changed:
            facts = seat_facts(table, seat, table_id, name(), deadline, told)
            if outcome.ended:
                rows.append(_row(player_id, table_id, seat, "ended", facts, now, now))
            elif facts["act"]:
                rows.append(_row(player_id, table_id, seat, "phase", facts, now, now))
                if due is not None:
                    rows.append(_row(player_id, table_id, seat, "reminder", facts, now, due))
        elif whisper and seat == action.to and told:
            facts = seat_facts(table, seat, table_id, name(), deadline, told)
            if any(line["code"] == "whispered" for line in facts["lines"]):
                rows.append(_row(player_id, table_id, seat, "whisper", facts, now, now))
    return rows, []


def seat_facts(table: Table, seat: int, table_id: str, name: str, deadline: float | None,
               told: int) -> dict[str, Any]:
    """What a notice to `seat` may say: its own view, and the last `told` events of its
    own stream — nothing else of the game."""
    view = table.snapshot(seat, chat=False)
    stream = table.stream_length(seat)
    events = table.events_after(seat, stream - told) if told else []
    players = {p["seat"]: p["name"] for p in view["players"]}
    lines: list[dict[str, Any]] = []
    named: set[int] = set()
    for event in events:
        code = event["code"]
        if code not in TOLD_CODES:
            continue
        params = {k: v for k, v in event["params"].items() if k != "roles"}
        if code == "whispered":
            params["text"] = str(params.get("text", ""))[:WHISPER_CHARACTERS]
        for key in NAMED_PARAMS:
            if isinstance(params.get(key), int):
                named.add(params[key])
        lines.append({"code": code, "params": params})
    dos = [str(legal["do"]) for legal in view["legal"]]
    winners = list(view["winners"])
    return {
        "table": {"id": table_id, "name": name},
        "seat": seat,
        "phase": {"kind": view["phase"]["kind"], "number": view["phase"]["number"]},
        "deadline": deadline if view["status"] == "running" else None,
        "alive": seat in view["alive"],
        "act": PASS in dos,
        "can": [do for do in dos if do not in (PASS, LEAVE, SAY)],
        "lines": lines,
        "names": {str(s): players[s] for s in sorted(named) if s in players},
        "winner": view["winner"],
        "won": (seat in winners) if view["winner"] is not None else None,
    }


def _row(player_id: str, table_id: str, seat: int, kind: str, facts: dict[str, Any],
         now: float, due: float) -> dict[str, Any]:
    phase = facts["phase"]
    return {"id": secrets.token_hex(10), "player_id": player_id, "table_id": table_id,
            "seat": seat, "kind": kind, "phase": f"{phase['kind']}:{phase['number']}",
            "facts": json.dumps(facts, ensure_ascii=False), "created_at": now,
            "due_at": due, "state": "new"}
