"""The Trusis statistics of one game, as a fold over its record (docs/statistics.md).

Scoring replays the record's actions with the engine and folds every event —
public, per-seat and the INTERNAL ones kept for statistics (`tally`,
`night_kills`, `phase_outcome`) — so any past record can be re-scored when a
statistic is added. It reads only events, never the engine's internal state, so
the engine can be optimised freely as long as its events stay the same.

A statistic about a power is initialised only when its game or seat can use that
power: a Human's `powers_used` shows "-", not 0 (R62).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trusis.rules.actions import BY_SERVER, PASS
from trusis.rules.events import Event
from trusis.rules.formats import (
    ChoiceParams,
    GameOverParams,
    PassedParams,
    PhaseData,
    PowerParams,
    ResultParams,
    RoleParams,
    SaidParams,
    SeatParams,
    SeatsParams,
    WhisperedParams,
)
from trusis.rules.roles import (
    BLACK_KNIGHT,
    DAY,
    EXTRA_VOTE,
    GRAVEKEEPER,
    KAMIKAZE,
    ORACLE,
    PRIEST,
    ROLE_IDS,
    ROLES,
    SWEEPER,
    TEAM_CASTAWAY,
    TEAM_HUMAN,
    TEAM_OF,
    TEAM_TRUSIS,
    TRUSIS,
    WHITE_KNIGHT,
)
from trusis.rules.victory import DRAW
from trusis.stats.declaration import Declaration, shipped_declaration
from trusis.stats.sheet import GameStats
from trusis.table.record import Record, seconds
from trusis.table.table import Table

# value_labels of stats.json: role 40 (the order of docs/rules.md §2), team 41, winning_team 12.
ROLE_VALUE: dict[str, int] = {role: i + 1 for i, role in enumerate(ROLE_IDS)}
TEAM_VALUE: dict[str, int] = {TEAM_HUMAN: 1, TEAM_TRUSIS: 2, TEAM_CASTAWAY: 3}
WINNER_VALUE: dict[str, int] = {DRAW: 0, **TEAM_VALUE}

# Roles for which a power statistic means something (others show "-").
ACTIVE_ROLES = frozenset(r.id for r in ROLES.values() if r.day_powers or r.night_powers)
KNIGHTS = frozenset({WHITE_KNIGHT, BLACK_KNIGHT})
SAVERS = frozenset({PRIEST}) | KNIGHTS
FINDERS = frozenset({SWEEPER, ORACLE, GRAVEKEEPER})

# Player statistics every seat starts at 0.
_COUNTERS = (
    "votes_cast", "votes_received", "votes_against_opponents", "votes_for_condemned",
    "public_messages", "private_messages", "deaths", "times_revived", "phases_survived",
    "timed_out_phases", "refused_actions",
)
_TABLE_COUNTERS = (
    "deaths_number", "deaths_by_vote", "deaths_by_trusis", "tied_votes",
    "public_messages", "private_messages", "timeouts", "refused_actions",
)


def score(record: Record, times: Sequence[float | None] | None = None,
          decl: Declaration | None = None) -> GameStats:
    """Every Trusis statistic of `record` (finished or not), with the action clock `times`
    (by default the record's own `t` fields)."""
    if times is None:
        times = record.times
    raw: Any = record.extra.get("started_at")
    # Like each action's `t`, an unusable clock is no clock rather than an error.
    started = seconds(raw)  # 10**400 or 1e999 included
    fold = _Fold(record, decl or shipped_declaration(),
                 None if started is None else float(started))
    for index in range(len(record.actions)):
        t = times[index] if times is not None and index < len(times) else None
        fold.action(record, index, t)
    fold.finish()
    return fold.stats


class _Fold:
    """The running fold: what the events have told so far."""

    def __init__(self, record: Record, decl: Declaration, started: float | None) -> None:
        roles = record.roles()
        self.table = Table(record.players, record.seed, record.custom, roles)
        self.state = self.table.state
        self.roles = ["", *roles]
        self.n = n = len(roles)
        self.stats = stats = GameStats(decl, record.players)
        self.alive = [False] + [True] * n
        self.number = 1
        self.passed: set[int] = set()
        self.extra: dict[int, int] = {}  # Wise Women's extra votes chosen tonight
        self.died_now: set[int] = set()
        self.save: tuple[int, list[int]] | None = None  # protected Trusis target, Priests
        self.found: dict[int, set[int]] = {s: set() for s in range(1, n + 1)}
        self.death_day: dict[int, int] = {}
        self.phase_start = started
        self.first_t = started
        self.last_t: float | None = None
        self.waits: dict[int, list[float]] = {s: [] for s in range(1, n + 1)}
        self.own_pass = True  # the action folded now is no pass the server made (D50)
        table = stats.table
        for name in _TABLE_COUNTERS:
            table.init(name, 0)
        table.init("days_number", 1)
        table.init("nights_number", 0)
        table.init("players_number", n)
        table.init("actions_number", len(record.actions))
        present = set(roles)
        if KAMIKAZE in present:
            table.init("deaths_by_kamikaze", 0)
        if present & (KNIGHTS | {KAMIKAZE}):
            table.init("sacrifices", 0)
        if present & KNIGHTS:
            table.init("revivals", 0)
        if PRIEST in present:
            table.init("priest_saves", 0)
        for name in _COUNTERS:
            stats.init_players(name, 0)
        for seat in range(1, n + 1):
            role = self.roles[seat]
            sheet = stats.player(seat)
            sheet.init("role", ROLE_VALUE[role])
            sheet.init("team", TEAM_VALUE[TEAM_OF[role]])
            if role in ACTIVE_ROLES:
                sheet.init("powers_used", 0)
            if role in FINDERS:
                sheet.init("trusis_found", 0)
            if role in SAVERS:
                sheet.init("saves", 0)

    # -- actions -------------------------------------------------------------

    def action(self, record: Record, index: int, t: float | None) -> None:
        """Apply one action of the record and fold its events."""
        action = record.actions[index]
        if t is not None:
            self.first_t = t if self.first_t is None else self.first_t
            self.last_t = t
        # D50: the server's pass for a seat whose grace period ran out is not the seat's own.
        self.own_pass = not (action.do == PASS and action.by == BY_SERVER)
        outcome = self.table.submit(action, t)  # the table layer replays; this only folds
        if outcome.refusal is not None:
            self.stats.table.inc("refused_actions")
            if action.seat is not None:
                self.stats.player(action.seat).inc("refused_actions")
            return
        for event in outcome.events:
            self.event(event, t)

    def finish(self) -> None:
        """Statistics known only at the end of the record."""
        for seat in range(1, self.n + 1):
            sheet = self.stats.player(seat)
            sheet.set("survived", self.alive[seat])
            if not self.alive[seat] and seat in self.death_day:
                sheet.set("death_day", self.death_day[seat])
            waits = self.waits[seat]
            if waits:
                sheet.set("pass_seconds", sum(waits) / len(waits))
        if self.first_t is not None and self.last_t is not None:
            self.stats.table.set("game_seconds", self.last_t - self.first_t)

    # -- events --------------------------------------------------------------

    def event(self, event: Event, t: float | None) -> None:
        """Fold one event; `t` is the clock of the action that caused it. A handler of an
        event some seat reads takes its params as rules/formats.py types them; one of the
        engine's internal events (tally, night_kills, phase_outcome) as a plain dict."""
        handler = getattr(self, f"_on_{event.code}", None)
        if handler is not None:
            seat = event.seats[0] if event.seats else 0
            handler(event.params, seat, t)

    def _inc(self, seat: int, name: str, delta: int = 1) -> None:
        sheet = self.stats.player(seat)
        if sheet.is_set(name):
            sheet.inc(name, delta)

    def _on_passed(self, params: PassedParams, _seat: int, t: float | None) -> None:
        seat = params["seat"]
        self.passed.add(seat)
        if not params.get("auto") and self.own_pass and t is not None \
                and self.phase_start is not None:
            self.waits[seat].append(t - self.phase_start)

    def _on_left(self, params: SeatParams, _seat: int, _t: float | None) -> None:
        seat = params["seat"]
        if seat not in self.passed:  # R52: an unpassed choice is dropped
            self.extra.pop(seat, None)

    def _on_choice_made(self, params: ChoiceParams, seat: int, _t: float | None) -> None:
        if params["power"] == EXTRA_VOTE:
            self.extra[seat] = params["target"]

    def _on_choice_withdrawn(self, params: PowerParams, seat: int,
                             _t: float | None) -> None:
        if params["power"] == EXTRA_VOTE:
            self.extra.pop(seat, None)

    def _on_sweep_result(self, params: ResultParams, seat: int, _t: float | None) -> None:
        self._inc(seat, "powers_used")
        self._find(seat, params["target"], params["result"])

    def _on_foresee_result(self, params: RoleParams, seat: int, _t: float | None) -> None:
        self._inc(seat, "powers_used")
        self._find(seat, params["target"], params["role"])

    def _on_gravekeeper_result(self, params: ResultParams, seat: int,
                               _t: float | None) -> None:
        self._find(seat, params["target"], params["result"])

    def _find(self, seat: int, target: int, fact: str) -> None:
        """trusis_found: a TRUSIS seat learnt by this seat's own power, each seat once."""
        if fact == TRUSIS and target not in self.found[seat]:
            self.found[seat].add(target)
            self._inc(seat, "trusis_found")

    def _on_tally(self, params: dict[str, Any], _seat: int, _t: float | None) -> None:
        victim = params["victim"]
        counted = [(int(k), v) for k, v in params["votes"].items()]
        for k, (_shown, target) in params["illusions"].items():
            voter = int(k)
            counted.append((voter, target))
            if self.alive[voter]:
                self._inc(voter, "powers_used")
        for voter, target in counted:
            if not (self.alive[voter] and self.alive[target]):
                continue
            self._inc(voter, "votes_cast")
            if TEAM_OF[self.roles[voter]] != TEAM_OF[self.roles[target]]:
                self._inc(voter, "votes_against_opponents")
            if target == victim:
                self._inc(voter, "votes_for_condemned")
        for k, count in params["counts"].items():
            self._inc(int(k), "votes_received", count)
        if params["counts"] and victim is None:
            self.stats.table.inc("tied_votes")

    def _on_night_kills(self, params: dict[str, Any], _seat: int, _t: float | None) -> None:
        for k in params["trusis_votes"]:
            self._inc(int(k), "powers_used")
        for k in params["protects"]:
            self._inc(int(k), "powers_used")
        for seat in self.extra:  # locked when the night ends (R22)
            self._inc(seat, "powers_used")
        self.extra = {}
        strikes = {int(k): v for k, v in params["kamikaze"].items()}
        for striker in strikes:
            self._inc(striker, "powers_used")
        if strikes:
            self.stats.table.inc("deaths_by_kamikaze", len(set(strikes.values())))
            self.stats.table.inc("sacrifices", len(strikes))
        target = params["trusis_target"]
        if target and params["protected_by"]:
            self.save = (target, list(params["protected_by"]))

    def _on_died(self, params: SeatParams, _seat: int, _t: float | None) -> None:
        seat = params["seat"]
        self.alive[seat] = False
        self.died_now.add(seat)
        self.death_day[seat] = self.number
        self._inc(seat, "deaths")
        self.stats.table.inc("deaths_number")

    def _on_revived(self, params: SeatParams, _seat: int, _t: float | None) -> None:
        seat = params["seat"]
        self.alive[seat] = True
        self._inc(seat, "times_revived")
        self.stats.table.inc("revivals")

    def _on_phase_outcome(self, params: dict[str, Any], _seat: int, _t: float | None) -> None:
        table = self.stats.table
        for causes in params["causes"].values():
            if "vote" in causes:
                table.inc("deaths_by_vote")
            if "trusis" in causes:
                table.inc("deaths_by_trusis")
            if "sacrifice" in causes:
                table.inc("sacrifices")
        for k in params["revives"]:
            self._inc(int(k), "powers_used")
            self._inc(int(k), "saves")

    def _on_timed_out(self, params: SeatsParams, _seat: int, _t: float | None) -> None:
        self.stats.table.inc("timeouts")
        for seat in params["seats"]:
            self._inc(seat, "timed_out_phases")

    def _on_said(self, params: SaidParams, _seat: int, _t: float | None) -> None:
        self._inc(params["seat"], "public_messages")
        self.stats.table.inc("public_messages")

    def _on_whispered(self, params: WhisperedParams, _seat: int, _t: float | None) -> None:
        self._inc(params["seat"], "private_messages")
        self.stats.table.inc("private_messages")

    def _close_phase(self) -> None:
        """The phase has ended: survivors, and a Priest save if the target lived."""
        for seat in range(1, self.n + 1):
            if self.alive[seat]:
                self._inc(seat, "phases_survived")
        if self.save is not None:
            target, priests = self.save
            if target not in self.died_now:
                self.stats.table.inc("priest_saves")
                for priest in priests:
                    self._inc(priest, "saves")
        self.save = None
        self.died_now = set()
        self.passed = set()

    def _on_phase_started(self, params: PhaseData, _seat: int, t: float | None) -> None:
        self._close_phase()
        self.number = params["number"]
        self.stats.table.inc("days_number" if params["kind"] == DAY else "nights_number")
        self.phase_start = t

    def _on_game_over(self, params: GameOverParams, _seat: int, _t: float | None) -> None:
        self._close_phase()
        self.stats.table.set("winning_team", WINNER_VALUE[params["winner"]])
        winners = set(params["winners"])
        for seat in range(1, self.n + 1):
            self.stats.player(seat).set("won", seat in winners)
