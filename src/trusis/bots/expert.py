"""The `expert` bot: a `normal` bot that looks ahead before it chooses.

It keeps a belief over whole role deals (trusis.bots.worlds: deals that agree with
every fact its seat holds, weighed by what it saw and heard) and, at the choices that
decide games — a Human's day vote, the Priest's protection, the Sweeper's sweep — it
plays each candidate forward in sampled worlds with the engine, the other
seats played by `normal` bots as its model of the table, and keeps the candidate whose
futures leave its team best placed (information-set Monte Carlo: determinised
rollouts, the same worlds and models for every candidate). The Sweeper sweeps the seat
the worlds disagree about most. On the Trusis team it also keeps what a plain Human at
its seat would believe from the public game alone (`public`) and kills by night a threat
the table trusts, a trusted Priest first (it guards the others, never itself); its day
votes stay `normal`'s (leaning them on `public` lost games from Day 2 and, on Day 1,
singled out people — D59, docs/bots.md; its knowledge of its partners tells it how the
Humans are wrong). Everything else — talk, pace, fairness to people
(D59–D61) — is the `normal` bot's.

It reads only its seat's view and events, as every bot: the worlds are built from
them alone. Its moves draw from `normal`'s seeded generator and its thinking (worlds,
models) from its own, so the lab stays a function of the seed and an expert differs from a
`normal` bot only where a search changed a choice. A searched night choice stands for
the night. Thinking is bounded by `rollouts` (plays of the
engine per decision); a server that is busy sets `think` to False and the expert
then plays exactly as `normal` does (docs/bots.md, "Thinking off the loop").
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import ClassVar

from trusis.bots import chat, tactics
from trusis.bots.base import Bot, EventData, View
from trusis.bots.deliberate import NormalBot
from trusis.bots.driver import BotDriver
from trusis.bots.weigh import ListeningBeliefs
from trusis.bots.worlds import World, marginals, position, sample, team_value
from trusis.rules.actions import Action
from trusis.rules.errors import IllegalAction
from trusis.rules.roles import PRIEST, SWEEPER, TEAM_HUMAN, TEAM_TRUSIS, TRUSIS
from trusis.table.table import Table

ROLLOUTS = 12
"""Default plays of the engine per decision (each the rest of a phase or two at a table
of `normal` bots): the CPU budget of one decision (docs/bots.md gives its cost)."""
CANDIDATES = 3  # choices weighed per decision
DAY_SEARCHES = 1  # searches per day: the first vote (then it deliberates as `normal`)
MARGIN = {TEAM_HUMAN: 0.5, TEAM_TRUSIS: 0.3}  # how much better than `normal`'s choice a
# candidate must look to replace it (Humans, 300 games against `normal` Trusis: margin 0,
# 0.5, 1 won 61.3%, 65.3%, 63.7% — within the noise, 0.5 the best)
PUBLIC_WEIGHT = 0.0  # how much a Trusis expert's day vote (from Day 2) leans on the table's
# suspicion: 2.0 lost them 3 points (600 games), so its day vote is `normal`'s
KILL_PUBLIC = 1.0  # how much the table's suspicion of a seat spares it the night kill
PRIEST_FIRST = 1.0  # how much more a Trusis expert wants a trusted Priest claimer killed
# (1 and 3 gave the same games: enough to put it before the claimers it protects)
CHAT_LINES = 40  # the last public lines a model is told, so it knows the claims


class _Hold(Bot):
    """The expert's own seat in a rollout: it keeps the candidate choice and waits."""

    kind: ClassVar[str] = "hold"

    def act(self) -> Action | None:
        return None


class ExpertBot(NormalBot):
    """A `normal` bot that weighs its key choices by playing them forward in sampled worlds."""

    kind: ClassVar[str] = "expert"
    DAY_TEAMS: ClassVar[frozenset[str]] = frozenset({TEAM_HUMAN})  # whose day vote is searched

    def __init__(self, seat: int, seed: int = 0, lang: str = "en") -> None:
        super().__init__(seat, seed, lang)
        # Two generators: the moves it shares with `normal` draw from `normal`'s very stream,
        # its thinking (worlds, rollout seeds) from its own, so an expert differs from a
        # `normal` bot only where its search changes a choice (the ladder then compares the
        # two kinds on the same deals *and* the same chance, not on two draws of the noise).
        self.rng = random.Random(f"{NormalBot.kind}:{seed}:{seat}")
        self.thinking = random.Random(f"{self.kind}:{seed}:{seat}")
        self.rollouts = ROLLOUTS  # the budget; a server sets it (`--bot-rollouts`)
        self.think = True  # False: play as `normal` (a busy server degrades the expert)
        self.searches = 0  # decisions searched so far (tests, the bench)
        self._day1: set[int] = set()
        self._said: list[EventData] = []
        self._searched: dict[tuple[str, int], int] = {}
        self._decided: dict[tuple[object, ...], int] = {}
        self._held: dict[tuple[str, int], Action] = {}  # phase -> its searched night choice
        # What a plain Human at this seat would believe from the public game alone: a
        # Trusis-team expert reads the table's suspicion from it (whom the Humans will
        # vote out, which of its own team they doubt).
        self.public = ListeningBeliefs(seat, self.LISTEN, self.SCEPTIC, self.CLAIMER_INNOCENCE)
        # A claimer the Trusis killed at night was no TRUSIS: the living claimers of its
        # one role lie (weigh.py). Its own belief only: `public` and the models in its
        # rollouts read the table as `normal` bots do.
        self.beliefs.martyrs = True

    def observe(self, view: View, events: Sequence[EventData]) -> None:
        super().observe(view, events)
        if self.beliefs.team == TEAM_TRUSIS:
            self.public.update(_public_view(view), [e for e in events
                                                    if e["code"] in _PUBLIC_EVENTS])
        if not self._day1 and view["phase"]["number"] == 1 and view["phase"]["kind"] == "day":
            self._day1 = set(view["alive"])
        for event in events:
            if event["code"] == "said":
                self._said.append(event)
        del self._said[:-CHAT_LINES]

    # -- the decisions it thinks about ---------------------------------------

    def _deliberate(self, scores: dict[int, float], votes: dict[int, int], mine: int) -> int:
        target = super()._deliberate(scores, votes, mine)
        b = self.beliefs
        if not self._can_think() or b.team not in self.DAY_TEAMS or not target:
            return target
        key = (self._phase, mine, tuple(sorted(votes.items())))
        if key in self._decided:
            return self._decided[key]
        if self._searched.get(self._phase, 0) >= DAY_SEARCHES:
            return target
        if b.team == TEAM_HUMAN:
            marks = self._marginal_trusis()
            ranked = sorted(scores, key=lambda s: (-marks.get(s, 0.0), s))
        else:
            ranked = sorted(scores, key=lambda s: (-scores[s], s))
        pool = [target] + ([mine] if mine in scores else []) + ranked
        choice = self._search([Action("vote", self.seat, s) for s in _first(pool)], 1)
        picked = choice.target if choice is not None and choice.target else target
        self._decided[key] = picked
        return picked

    def _night(self) -> Action | None:
        b = self.beliefs
        held = self._held.get(self._phase)
        if held is not None:
            # A searched choice stands for the night: without this the next turn's `normal`
            # rule would put its own choice back (the lone TRUSIS, the Priest).
            if held.target in self._seats(held.do):
                return self._set(held.do, int(held.target or 0)) or (
                    None if held.do == "vote" else self.pass_())
            return super()._night()
        if not self._can_think() or self._searched.get(self._phase, 0):
            return super()._night()
        night_votes = {int(k): v for k, v in self.view["votes"].items() if int(k) != self.seat}
        if b.role == TRUSIS and self.can("vote") and not night_votes:
            # The first TRUSIS to choose picks the kill; the others follow it (a split kill
            # fails). It reads the table rather than looking ahead: the seat the Humans
            # already doubt goes out by day, so the night takes a trusted threat. Played
            # ahead one or two phases with `normal` models the kill cost the team 4 to 5
            # points of wins (600 paired games, docs/bots.md), so it is not searched.
            scores = tactics.trusis_scores(b, self._seats("vote"), self._jitter)
            prior = max(0.01, self.public.prior)
            for seat in scores:
                scores[seat] -= KILL_PUBLIC * (self.public.p_trusis(seat) / prior - 1.0)
            # The Priest first: a trusted Priest protects another claimer, never itself, so
            # a kill on the claimer it guards may fail, while a kill on it cannot; with it
            # gone the other claimers are open. (600 paired games against `normal` Humans,
            # twice: 39.0% -> 45.5%, paired z 3.1; 38.3% -> 47.2%, z 4.1.)
            priests = [s for s in b.role_claims.get(PRIEST, {}) if s in scores
                       and s in b.claimers]
            if len(priests) == 1:
                scores[priests[0]] += PRIEST_FIRST
            first = tactics.best(scores)
            return self._hold(Action("vote", self.seat, first)) if first else super()._night()
        if b.role == PRIEST and self.can("protect"):
            seats = self._seats("protect")
            first = tactics.protect_target(b, seats, self._jitter)
            threat = {s: tactics.threat(b, s) for s in seats}
            pool = [first, self.seat, *sorted(threat, key=lambda s: (-threat[s], s))]
            choice = self._search([Action("protect", self.seat, s) for s in _first(pool)
                                   if s in seats], 1)
            return self._hold(choice)
        if b.role == SWEEPER and self.can("sweep"):
            target = self._most_uncertain(self._seats("sweep"))
            self._searched[self._phase] = 1
            if target:
                return Action("sweep", self.seat, target)
        return super()._night()

    def _hold(self, choice: Action | None) -> Action | None:
        """Make the searched night choice and keep it for the rest of the night."""
        if choice is None or not choice.target:
            return super()._night()
        self._held[self._phase] = choice
        return self._set(choice.do, int(choice.target)) or (
            None if choice.do == "vote" else self.pass_())

    # -- the Trusis team's day: vote where the table already looks -------------

    def _scores(self, seats: list[int]) -> dict[int, float]:
        scores = super()._scores(seats)
        if self.beliefs.team != TEAM_TRUSIS or not self._can_think() or self.beliefs.day <= 1:
            return scores  # Day 1 is `normal`'s: fair to people (D59, bench/fairness.py)
        public = self.public
        prior = max(0.01, public.prior)
        for seat in scores:
            # the seats the Humans already doubt go out most easily, and a vote with the
            # table's suspicion looks like a Human's; a vote on a seat they trust stands out
            scores[seat] += PUBLIC_WEIGHT * (public.p_trusis(seat) / prior - 1.0)
        return scores

    def _plan(self) -> Action | None:
        """The planning TRUSIS whispers the seat its own day scores favour (the table's
        suspect, never a trusted claimer unless the table turns on one)."""
        b = self.beliefs
        if not (self._can_think() and self._planner() and self._fellows()) or self._turn > 2 \
                or b.day <= 1:
            return super()._plan()  # Day 1 is `normal`'s: fair to people (D59)
        target = tactics.best(self._scores(self._seats("vote")))
        if not target:
            return None
        b.plans[b.day] = target
        return self._whisper_allies(chat.PLAN, target, self._names()[target])

    def _can_think(self) -> bool:
        return self.think and self.rollouts > 0 and self.beliefs.team in (TEAM_HUMAN, TEAM_TRUSIS)

    # -- belief -------------------------------------------------------------

    def _worlds(self, count: int) -> list[World]:
        return sample(self.view, self.beliefs, self.thinking, count, self._day1)

    def _marginal_trusis(self) -> dict[int, float]:
        worlds = self._worlds(max(8, self.rollouts))
        marks = marginals(worlds, len(self.view["players"]))
        return {s: m.get(TRUSIS, 0.0) for s, m in marks.items()}

    def _most_uncertain(self, seats: list[int]) -> int:
        """The seat whose sweep tells the most: the worlds split most on it being a TRUSIS."""
        if not seats:
            return 0
        marks = self._marginal_trusis()

        def entropy(seat: int) -> float:
            p = min(0.999, max(0.001, marks.get(seat, 0.0)))
            return -(p * math.log(p) + (1 - p) * math.log(1 - p))

        return max(sorted(seats), key=lambda s: (entropy(s) + self._jitter.get(s, 0.0), -s))

    # -- looking ahead -------------------------------------------------------

    def _told_claims(self) -> list[EventData]:
        """The public lines of the seats that claimed a role or a result: what a model
        must know (who the table trusts); other talk is left out, as reading it is most
        of a model's cost."""
        claimers = {s for who in self.beliefs.role_claims.values() for s in who}
        return [e for e in self._said if e["params"]["seat"] in claimers][-CHAT_LINES // 4:]

    def _search(self, candidates: list[Action], phases: int) -> Action | None:
        """The candidate with the best mean value over the same sampled worlds."""
        if not candidates:
            return None
        self._searched[self._phase] = self._searched.get(self._phase, 0) + 1
        if len(candidates) == 1:
            return candidates[0]
        self.searches += 1
        worlds = self._worlds(max(1, self.rollouts // len(candidates)))
        seeds = [self.thinking.randrange(1 << 30) for _ in worlds]
        team = self.beliefs.team
        best: tuple[float, int] | None = None
        chosen: Action | None = None
        for index, action in enumerate(candidates):
            total = 0.0
            for world, seed in zip(worlds, seeds, strict=True):
                total += world.weight * self._rollout(world, action, seed, phases, team)
            # the normal bot's own choice comes first and keeps its place unless another
            # one is better by MARGIN (few rollouts are noisy)
            margin = MARGIN.get(team, 0.0) if index else 0.0
            if best is None or total > best[0] + margin + 1e-9:
                best = (total, index)
                chosen = action
        return chosen

    def _rollout(self, world: World, action: Action, seed: int, phases: int,
                 team: str) -> float:
        """Play `action` in `world`, then `phases` phase ends with `normal` bots for the
        other seats; the value of the position reached for `team`."""
        state = position(self.view, world.roles)
        table = Table(state.names[1:], 0, deal=list(world.roles[1:]))
        table.state = state
        try:
            table.play(action)
        except IllegalAction:
            return -math.inf
        models: dict[int, Bot] = {}
        told = self._told_claims()
        for seat in range(1, state.n + 1):
            if seat == self.seat:
                models[seat] = _Hold(seat, seed, self.lang)
                continue
            model = NormalBot(seat, seed, self.lang)
            model.observe(table.snapshot(seat), told)  # so it knows the claims
            models[seat] = model
        driver = BotDriver(table, models)
        for _ in range(phases):
            driver.run_phase()
            if not table.state.running:
                break
        return team_value(table.state, team)


_PUBLIC_EVENTS = frozenset({"phase_started", "vote_cast", "vote_withdrawn", "vote_killed",
                            "died", "said"})  # what every seat sees (no whisper, no kill vote)


def _public_view(view: View) -> View:
    """The seat's view as a plain Human's with no private fact: what the table sees."""
    out = dict(view)
    out["role"], out["team"], out["known"] = "HUMAN", TEAM_HUMAN, {}
    return out  # type: ignore[return-value]


def _first(pool: list[int]) -> list[int]:
    """The first CANDIDATES distinct seats of `pool`, in order."""
    out: list[int] = []
    for seat in pool:
        if seat and seat not in out:
            out.append(seat)
        if len(out) == CANDIDATES:
            break
    return out


__all__ = ["ROLLOUTS", "ExpertBot"]
