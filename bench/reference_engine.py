"""A straightforward Trusis engine: the bench's yardstick, and nothing else.

The same rules as `trusis.rules` for the game actions (R10–R35: votes, illusions,
the night powers, knights, the tally, the night kill, Gravekeepers and
Gravediggers, victory, the stalemate and the phase limit), written the plain way:
no events, no views, no records, no chat, no leaving, no refusal reasons (an
illegal action raises a bare ValueError). `bench/engine.py` drives it and the
real engine with the same random players, side by side, to say what the real
engine's events, audiences and precise refusals cost. Never imported by src/.

`powers(seat)` lists a seat's powers as the real `legal_actions` does (same
order, same targets), so the same random player plays the same game on both:
`bench/engine.py` checks that it does before measuring.
"""

from __future__ import annotations

from dataclasses import dataclass

from trusis.rules.roles import (
    CASTAWAY,
    DAY,
    FORESEE,
    GRAVEDIGGER,
    GRAVEKEEPER,
    ILLUSION,
    NIGHT,
    POWERS_BY_PHASE,
    PROTECT,
    REVIVE,
    ROLE_IDS,
    SWEEP,
    TEAM_CASTAWAY,
    TEAM_HUMAN,
    TEAM_OF,
    TEAM_TRUSIS,
    TRUSIS,
    VOTE,
)
from trusis.rules.setup import deal_roles


@dataclass(slots=True)
class Power:
    """One power a seat may use now, with the seats it may name."""

    do: str
    targets: tuple[int, ...]
    shown: tuple[int, ...] = ()


class ReferenceGame:
    """One game, from the deal to its winner."""

    def __init__(self, players: int, seed: int) -> None:
        n = self.n = players
        self.roles = ["", *deal_roles(players, seed)]
        self.alive = [False] + [True] * n
        self.passed = [True] + [False] * n
        self.waiting = n  # alive seats that have not passed
        self.kind = DAY
        self.number = 1
        self.running = True
        self.winner: str | None = None
        self.phases = 0
        self.quiet = 0
        self.votes: dict[int, int] = {}
        self.illusions: dict[int, tuple[int, int]] = {}
        self.protects: dict[int, int] = {}
        self.kamikazes: dict[int, int] = {}
        self.revives: dict[int, int] = {}
        self.extra_votes: dict[int, int] = {}
        self.pending_extra: dict[int, int] = {}
        self.swept: set[int] = set()
        self.foreseen: set[int] = set()
        self.day_deaths: list[int] = []
        self.digger_target = 0
        roles = self.roles
        self.known = [{}] + [{s: roles[s]} for s in range(1, n + 1)]
        for s in range(1, n + 1):  # R7
            if roles[s] in (TRUSIS, GRAVEDIGGER):
                for o in range(1, n + 1):
                    if roles[o] == TRUSIS or roles[s] == roles[o] == GRAVEDIGGER:
                        self.known[s][o] = roles[o]

    # -- what a seat may do ---------------------------------------------------

    def powers(self, seat: int) -> list[Power]:
        if not self.running or not self.alive[seat] or self.passed[seat]:
            return []
        living = [s for s in range(1, self.n + 1) if self.alive[s]]
        others = tuple(s for s in living if s != seat)
        result = []
        for power in POWERS_BY_PHASE[(self.roles[seat], self.kind)]:
            if (power == SWEEP and seat in self.swept) or (
                power == FORESEE and seat in self.foreseen
            ):
                continue
            if power == REVIVE:
                dead = tuple(s for s in range(1, self.n + 1) if not self.alive[s])
                result.append(Power(REVIVE, dead))
            elif power == PROTECT:
                result.append(Power(PROTECT, tuple(living)))
            elif power == ILLUSION:
                result.append(Power(ILLUSION, others, others))
            else:
                result.append(Power(power, others))
        return result

    # -- actions ----------------------------------------------------------------

    def act(self, do: str, seat: int, target: int | None = None,
            shown: int | None = None) -> None:
        """Use a power (`target=None` withdraws a choice); ValueError if not allowed."""
        if not self.running or not 1 <= seat <= self.n:
            raise ValueError("no such seat, or the game is over")
        if not self.alive[seat] or self.passed[seat]:
            raise ValueError("the seat cannot act")
        if do not in POWERS_BY_PHASE[(self.roles[seat], self.kind)]:
            raise ValueError("not this role's power now")
        for t in (target, shown):
            if t is None:
                continue
            if not 1 <= t <= self.n:
                raise ValueError("no such seat")
            if do == REVIVE:
                if self.alive[t]:
                    raise ValueError("revive targets the dead")
            elif not self.alive[t] or (t == seat and do != PROTECT):
                raise ValueError("bad target")
        if do == VOTE:
            self.illusions.pop(seat, None)
            self._choose(self.votes, seat, target)
        elif do == ILLUSION:
            self.votes.pop(seat, None)
            if target is None:
                self.illusions.pop(seat, None)
            elif shown is None:
                raise ValueError("an illusion shows a vote")
            else:
                self.illusions[seat] = (shown, target)
        elif do == PROTECT:
            self._choose(self.protects, seat, target)
        elif do == "extra_vote":
            self._choose(self.extra_votes, seat, target)
        elif do == "kamikaze":
            self._choose(self.kamikazes, seat, target)
        elif do == REVIVE:
            self._choose(self.revives, seat, target)
        elif do in (SWEEP, FORESEE):
            used = self.swept if do == SWEEP else self.foreseen
            if seat in used or target is None:
                raise ValueError("once a night, and final")
            used.add(seat)
            role = self.roles[target]
            if do == FORESEE:
                self._learn(seat, target, role)
            else:
                self._learn(seat, target, role if role in (TRUSIS, CASTAWAY) else "NEITHER")

    @staticmethod
    def _choose(table: dict[int, int], seat: int, target: int | None) -> None:
        if target is None:
            table.pop(seat, None)
        else:
            table[seat] = target

    def pass_(self, seat: int) -> None:
        if not self.running or not self.alive[seat] or self.passed[seat]:
            raise ValueError("the seat cannot pass")
        self.passed[seat] = True
        self.waiting -= 1
        while self.running and self.waiting == 0:
            self._end_phase()

    def timeout(self) -> None:
        if not self.running:
            raise ValueError("the game is over")
        self.passed = [True] * (self.n + 1)
        self.waiting = 0
        while self.running and self.waiting == 0:
            self._end_phase()

    # -- the end of a phase (R30) ------------------------------------------------

    def _learn(self, seat: int, about: int, fact: str) -> None:
        known = self.known[seat]
        if known.get(about) not in ROLE_IDS or fact in ROLE_IDS:
            known[about] = fact

    def _most(self, counts: dict[int, int]) -> int:
        if not counts:
            return 0
        top = max(counts.values())
        best = [s for s, c in counts.items() if c == top]
        return best[0] if len(best) == 1 else 0

    def _end_phase(self) -> None:
        alive = self.alive
        counts: dict[int, int] = {}
        deaths: set[int] = set()
        if self.kind == DAY:
            ballots = list(self.votes.items())
            ballots += [(v, t) for v, (_shown, t) in self.illusions.items()]
            ballots += list(self.pending_extra.items())
            for voter, target in ballots:
                if alive[voter] and alive[target]:
                    counts[target] = counts.get(target, 0) + 1
            victim = self._most(counts)
            if victim:
                deaths.add(victim)
        else:
            for voter, target in self.votes.items():
                if alive[voter] and alive[target]:
                    counts[target] = counts.get(target, 0) + 1
            target = self._most(counts)
            protected = any(t == target and alive[p] for p, t in self.protects.items())
            self.digger_target = 0
            if target and not protected:
                deaths.add(target)
                self.digger_target = target
            for kamikaze, victim in self.kamikazes.items():
                if alive[kamikaze] and alive[victim]:
                    deaths.update((kamikaze, victim))
        knights = [k for k in self.revives if alive[k]]
        revived = {t for k, t in self.revives.items() if alive[k] and not alive[t]}
        deaths.update(knights)
        for seat in deaths:
            alive[seat] = False
        for seat in revived:
            alive[seat] = True
        self.phases += 1
        self.day_deaths = sorted(deaths) if self.kind == DAY else []
        changed = bool(deaths or revived)
        self.quiet = 0 if changed else self.quiet + 1
        winner = self._winner() if changed else None
        if winner is None and (self.quiet >= 6 or self.phases >= 100):  # R34, D15
            winner = "DRAW"
        if winner is not None:
            self.winner = winner
            self.running = False
            return
        self._next_phase()

    def _winner(self) -> str | None:
        """R31–R33."""
        living = [self.roles[s] for s in range(1, self.n + 1) if self.alive[s]]
        trusis = living.count(TRUSIS)
        others = sum(1 for r in living if TEAM_OF[r] in (TEAM_HUMAN, TEAM_CASTAWAY))
        human_met = trusis == 0
        trusis_met = 2 * trusis > len(living) or others == 0
        if not (human_met or trusis_met):
            return None
        if CASTAWAY in living:
            return TEAM_CASTAWAY
        if human_met and trusis_met:
            return TEAM_TRUSIS if living else "DRAW"
        return TEAM_HUMAN if human_met else TEAM_TRUSIS

    def _next_phase(self) -> None:
        if self.kind == DAY:
            self.kind = NIGHT
            self.pending_extra = {}
        else:
            self.kind = DAY
            self.number += 1
            self.pending_extra = self.extra_votes
        self.extra_votes = {}
        self.votes, self.illusions = {}, {}
        self.protects, self.kamikazes, self.revives = {}, {}, {}
        self.swept, self.foreseen = set(), set()
        self.passed = [True] + [False] * self.n
        roles, alive = self.roles, self.alive
        self.waiting = sum(alive)
        for seat in range(1, self.n + 1):  # R28
            if not alive[seat]:
                continue
            if self.kind == NIGHT and roles[seat] == GRAVEKEEPER:
                for dead in self.day_deaths:
                    self._learn(seat, dead, TRUSIS if roles[dead] == TRUSIS else "NOT_TRUSIS")
            elif self.kind == DAY and roles[seat] == GRAVEDIGGER and self.digger_target:
                self._learn(seat, self.digger_target, roles[self.digger_target])
        if self.kind == DAY:
            self.digger_target = 0
