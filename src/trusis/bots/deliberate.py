"""The `normal` and `easy` bots: they listen, deliberate over the day, and bluff.

Both are the heuristic bot (`trusis.bots.heuristic`) with `ListeningBeliefs`
(`trusis.bots.weigh`: free text read by `trusis.bots.listen`, claims weighed
against each other) and a day vote that takes shape over the phase:

- **Early votes spread.** On its first turn a bot votes only if it is convinced
  (real evidence), or on a hunch with some chance; either way for its *own* best
  suspect — an early vote never follows another early vote.
- **Then the table deliberates.** From turn to turn the weight a bot gives to the
  votes already cast grows (`social`), so it moves to the seat that evidence *and*
  the table point to; a vote moves only when the new seat is clearly better
  (`stickiness`), and from turn `MAX_DAY_TURNS` a vote stays put. When nobody moved
  since its last turn, a bot gives the table's votes their full weight, so a table
  with no evidence still agrees on someone rather than splitting.
- **The TRUSIS coordinate.** The TRUSIS with the lowest seat whispers the day's plan
  to the others ("Let's all vote X"), who weigh it; none votes a known team-mate,
  except when that team-mate already has a majority against it — then, having
  whispered it why ("you are lost, I vote with them to stay hidden"), it votes with
  the crowd. The record says so in words.
- **Claims, true and false.** A Human Sweeper challenges anyone else who claims to be
  the Sweeper. From Day 2 the planning TRUSIS of a `normal` table may pose as the
  Sweeper: it "publishes" a sweep of the seat the team most wants gone ("I swept X:
  Trusis!"), and when a real Sweeper names one of its team it calls that one a liar
  and "clears" its team-mate — unless someone already claimed the Sweeper, in which
  case it challenges that claim instead.

`easy` differs from `normal` in what it leaves out and how noisy it is: it reads
people but takes every claim at face value (no counter-claim checks), votes on
hunches sooner and with more noise, follows the crowd harder, never bluffs and
does not coordinate with its team.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from typing import ClassVar

from trusis.bots import chat, tactics
from trusis.bots.base import Clock, EventData, View
from trusis.bots.talk import TalkingBot
from trusis.bots.weigh import INFO_ROLES, ListeningBeliefs
from trusis.rules.actions import Action
from trusis.rules.roles import (
    BLACK_KNIGHT,
    ILLUSIONIST,
    SWEEPER,
    TEAM_HUMAN,
    TEAM_TRUSIS,
    TRUSIS,
    WHITE_KNIGHT,
    WISE_WOMAN,
)

MAX_DAY_TURNS = 8  # from this turn of a day on, a bot that has voted keeps its vote
CLAIMER_SHY = 3.0  # how much less a coordinated Trusis wants a trusted claimer voted out by day
RETORT_TURNS = {TEAM_HUMAN: 3, TEAM_TRUSIS: 0}  # without a clock, turns before a bot votes
# for a seat whose vote is on it: a Human asks first; a Trusis answers at once (in the lab,
# which has no clock, its counter-vote is worth 13 points of its wins; on a server's clock
# it waits RETORT like anyone)
HOLD = (0.1, 5.0, 20.0)  # with a clock: no hunch vote before this share of the day, in bounds
RETORT = (0.15, 8.0, 30.0)  # ... nor a vote back at its own voter before this share
MOMENT = (0.06, 0.45)  # ... and its first hunch vote at a moment drawn in this share of the day


def _within(clock: Clock, share: float, low: float, high: float) -> float:
    return min(high, max(low, share * clock.length))


class NormalBot(TalkingBot):
    """The default bot: listens, deliberates, coordinates with its team and bluffs."""

    kind: ClassVar[str] = "normal"
    LISTEN: ClassVar[bool] = True
    SCEPTIC: ClassVar[bool] = True
    BLUFF: ClassVar[bool] = True
    COORDINATE: ClassVar[bool] = True
    NOISE: ClassVar[float] = 1.0  # times the heuristic's per-phase jitter
    FIRST: ClassVar[float] = 0.4  # chance of a first-turn vote on a hunch
    SOCIAL: ClassVar[dict[str, float]] = {TEAM_HUMAN: 1.0, TEAM_TRUSIS: 2.5}
    DELIBERATION: ClassVar[int] = 4  # turns over which the table's votes gain full weight
    STICKINESS: ClassVar[dict[str, float]] = {TEAM_HUMAN: 0.08, TEAM_TRUSIS: 0.4}
    SPREAD: ClassVar[dict[str, float]] = {TEAM_HUMAN: 0.06, TEAM_TRUSIS: 0.3}  # hunches: how
    # far below the best a first vote without evidence may land
    CLAIMER_INNOCENCE: ClassVar[float] = 1.0
    CLAIM_EARLY: ClassVar[bool] = True  # a Human power role says what it is on Day 1
    KEEP_CLEAR: ClassVar[float] = 0.0  # every result is published, clear ones too
    beliefs: ListeningBeliefs

    def __init__(self, seat: int, seed: int = 0, lang: str = "en") -> None:
        super().__init__(seat, seed, lang)
        self.beliefs = ListeningBeliefs(seat, self.LISTEN, self.SCEPTIC, self.CLAIMER_INNOCENCE)
        self._posing = False  # this TRUSIS poses as the Sweeper
        self._posed: set[int] = set()  # seats it "swept"
        self._challenged: set[int] = set()  # seats whose claim it called a lie
        self._queue: list[Action] = []  # the rest of a statement, said on the next turns
        self._jitter_day: tuple[str, int] = ("", 0)
        self._bluffed: set[int] = set()  # days it published a posed sweep
        self._accused: dict[int, tuple[int, float]] = {}  # voter on this bot -> when seen
        self._moment: tuple[int, float] = (0, 0.0)  # (day, share of it) of its first hunch vote
        self._hunch: tuple[int, int] = (0, 0)  # (day, seat) of its hunch, kept until it votes
        self._drew = (0, 0)  # (day, seat): the seat this bot's lot drew that day (D70)
        self._first_vote: bytes | None = None  # the phase's public lines up to its first
        # vote, and that vote (and, if nobody spoke before it, up to the next line or vote:
        # D73): what seeds the lot (D70)
        self._heard = hashlib.blake2b(digest_size=8)  # ... the lines so far
        self._seeding = (False, False)  # (a vote was cast, a line or a second vote came)
        self._said_role = False  # it said its Human power role in public (its beliefs keep
        # the others' claims only)

    def observe(self, view: View, events: Sequence[EventData]) -> None:
        day_before = (self.beliefs.kind, self.beliefs.day)
        super().observe(view, events)
        if (self.beliefs.kind, self.beliefs.day) != day_before:
            self._accused = {}
        seconds = self.clock.seconds if self.clock is not None else 0.0
        for event in events:
            code, params = event["code"], event["params"]
            if code == "phase_started":
                self._first_vote, self._heard = None, hashlib.blake2b(digest_size=8)
                self._seeding = (False, False)
            elif code == "said" and self._first_vote is None:
                self._heard.update(f"{params['seat']}:{params['text']}\n".encode())
                self._seeding = (self._seeding[0], True)
            elif code == "vote_cast" and self._first_vote is None:
                self._heard.update(f"{params['voter']}>{params['target']}".encode())
                # A second vote, or a line, completes the seed once a vote was cast
                self._seeding = (True, self._seeding[1] or self._seeding[0])
            if self._first_vote is None and all(self._seeding):
                self._first_vote = self._heard.digest()
            if code == "vote_cast" and params["target"] == self.seat:
                self._accused.setdefault(params["voter"], (self._turn, seconds))
            elif code in ("vote_cast", "vote_withdrawn"):
                self._accused.pop(params["voter"], None)

    # -- the day's talk -------------------------------------------------------

    def _talk_by_day(self) -> Action | None:
        if self.NOISE != 1.0 and self._jitter_day != self._phase:
            self._jitter_day = self._phase
            self._jitter = {s: j * self.NOISE for s, j in self._jitter.items()}
            self.beliefs.memo.clear()
        if self._queue:
            return self._queue.pop(0)
        if self.CLAIM_EARLY and self.beliefs.day == 1 and self._turn == 1 \
                and self.beliefs.role in INFO_ROLES:
            self._said_role = True
            return self._say(chat.CLAIM_ROLE, role=self.beliefs.role)
        if self._turn <= 3:
            said = self._plan() or self._challenge() or self._bluff()
            if said is not None:
                return said
        return self._converse() or super()._talk_by_day()

    def _talk_by_night(self) -> Action | None:
        return super()._talk_by_night() or self._converse()

    def _names(self) -> dict[int, str]:
        return {p["seat"]: p["name"] for p in self.view["players"]}

    def _fellows(self) -> list[int]:
        """The other alive TRUSIS this bot knows (a TRUSIS knows them all, R7)."""
        b = self.beliefs
        return sorted(s for s, f in b.known.items() if f == TRUSIS and s != self.seat
                      and s in b.alive)

    def _planner(self) -> bool:
        """Whether this bot speaks for its TRUSIS: the lowest alive TRUSIS seat."""
        b = self.beliefs
        return b.role == TRUSIS and all(s > self.seat for s in self._fellows())

    def _plan(self) -> Action | None:
        """The planning TRUSIS whispers the day's target to the others."""
        if not (self.COORDINATE and self._planner() and self._fellows()) or self._turn > 2:
            return None
        seats = self._seats("vote")
        target = tactics.best(tactics.trusis_scores(self.beliefs, seats, self._jitter))
        if not target:
            return None
        self.beliefs.plans[self.beliefs.day] = target
        return self._whisper_allies(chat.PLAN, target, self._names()[target])

    def _sweep_claimants(self) -> dict[int, int]:
        return {s: d for s, d in self.beliefs.role_claims.get(SWEEPER, {}).items()
                if s != self.seat and s in self.beliefs.alive}

    def _challenge(self) -> Action | None:
        """A Sweeper (real, or posing) calls any other Sweeper claimant a liar."""
        b = self.beliefs
        if not (b.role == SWEEPER or self._posing) or b.composition.get(SWEEPER, 0) != 1:
            return None
        for seat in sorted(self._sweep_claimants()):
            if seat not in self._challenged:
                self._challenged.add(seat)
                return self._say(chat.COUNTER, self._names()[seat], SWEEPER)
        return None

    def _bluff(self) -> Action | None:
        """The planning TRUSIS poses as the Sweeper (from Day 2: sweeps happen at night)."""
        b = self.beliefs
        if not (self.BLUFF and self._planner()) or b.day < 2 or self._turn > 2 \
                or not b.composition.get(SWEEPER) or b.day in self._bluffed:
            return None
        names = self._names()
        claimants = self._sweep_claimants()
        if claimants and not self._posing:
            # A Sweeper has spoken: if it named one of us, call it a liar and clear our own.
            accused = [c.about for _d, s, c, _p in b.claims if s in claimants
                       and c.kind == chat.SWEEP_TRUSIS and c.about in b.alive
                       and b.known.get(c.about) == TRUSIS]
            if not accused:
                return None
            self._posing = True
            self._bluffed.add(b.day)
            ally = accused[-1]
            self._challenged.update(claimants)
            if ally != self.seat:  # nobody can sweep themself
                self._queue.append(self._say(chat.SWEEP_CLEAR, names[ally]))
            return self._say(chat.COUNTER, names[min(claimants)], SWEEPER)
        if not self._posing and self.rng.random() < 0.3:
            return None  # not every TRUSIS bluffs
        seats = [s for s in self._seats("vote") if s not in self._posed]
        target = b.plans.get(b.day) or tactics.best(
            tactics.trusis_scores(b, seats, self._jitter))
        if not target or target in self._posed:
            return None
        self._posing = True
        self._posed.add(target)
        self._bluffed.add(b.day)
        return self._say(chat.SWEEP_TRUSIS, names[target])

    # -- the day's vote -------------------------------------------------------

    def _day(self) -> Action | None:
        b = self.beliefs
        if b.team not in (TEAM_HUMAN, TEAM_TRUSIS):
            return super()._day()  # a Castaway survives as the heuristic does
        seats = self._seats("vote")
        if not seats:
            return self.pass_()
        if b.role in (WHITE_KNIGHT, BLACK_KNIGHT):
            revive = self._revive()
            if revive is not None:
                return revive
        votes = {int(k): v for k, v in self.view["votes"].items() if int(k) != self.seat}
        mine = self._choice("vote") or (self._choice("illusion") or {}).get("target", 0)
        bus = self._bus(votes, seats)
        if bus is not None or (mine and self._turn > MAX_DAY_TURNS):
            return bus
        scores = self._scores(seats)
        if not scores:
            return None
        target = self._deliberate(scores, votes, mine)
        if not target or (not mine and not self._ready(target)):
            return None
        if target != mine and target in self._retorts(scores):
            return None  # ask first; answer a vote with a vote later, if at all
        if target != mine and self._accused and self.clock is not None and self._lone() \
                and not tactics.convinced(b, target) and target != self._lot(scores):
            return None  # D70: accused without evidence, it answers with words, not a vote
        explained = self._explain(target)
        if explained is not None:
            return explained  # the vote comes on the next turn, if it still stands
        if target != mine and self._owes_word(target):
            return None  # D70: the switch to the lot is said before it is voted
        if b.role == ILLUSIONIST:
            return self._illusion(seats, votes, target)
        return self._set("vote", target)

    def act(self) -> Action | None:
        if self.clock is not None and self._phase[0] == "day":
            # On a clock time itself is news: a hunch waits for its moment, a counter-vote
            # for its delay, so "nothing new since I waited" does not mean "same answer".
            self._news = True
        return super().act()

    def _retorts(self, scores: dict[int, float]) -> list[int]:
        """Seats whose vote is on this bot and that it may not vote back yet: a vote on
        it is a question before it is evidence, so without real evidence it answers a
        vote with a vote only once it had time to ask (RETORT_TURNS, or RETORT of the day
        on a clock)."""
        out = []
        for voter, (turn, seconds) in self._accused.items():
            if voter not in scores or tactics.convinced(self.beliefs, voter):
                continue
            clock = self.clock
            if clock is not None:
                if clock.seconds - seconds < _within(clock, *RETORT):
                    out.append(voter)
            elif self._turn - turn < RETORT_TURNS.get(self.beliefs.team, 0):
                out.append(voter)
        return out

    def _ready(self, target: int) -> bool:
        """Evidence votes at once; a hunch with chance FIRST per turn, always from turn 3
        or once nobody moved since this bot's last turn. On a server's clock a hunch waits
        for its moment of the day instead, never within the day's first seconds (HOLD)."""
        convinced = tactics.convinced(self.beliefs, target)
        clock = self.clock
        if clock is not None and not convinced:
            if self._moment[0] != self.beliefs.day:
                self._moment = (self.beliefs.day, self.rng.uniform(*MOMENT))
            return clock.seconds >= max(_within(clock, *HOLD), self._moment[1] * clock.length)
        if convinced or self._quiet:
            return True
        return self._turn >= 3 or self.rng.random() < self.FIRST * self._turn

    def _scores(self, seats: list[int]) -> dict[int, float]:
        b = self.beliefs
        if b.team == TEAM_HUMAN:
            scores = tactics.human_scores(b, seats, self._jitter)
        else:
            scores = tactics.trusis_scores(b, seats, self._jitter)
            plan = b.plans.get(b.day)
            if self.COORDINATE and plan in scores:
                scores[plan] += 1.5
            if self.COORDINATE:  # a vote against a trusted claimer gives a Trusis away:
                # the night is for claimers, unless the day's vote already turns on them
                counts = Counter(self.view["votes"].values())
                lead = tactics.join_min(b)
                for seat in b.claimers:
                    if seat in scores and seat not in b.liars | b.contested \
                            and counts.get(seat, 0) < lead:
                        scores[seat] -= CLAIMER_SHY
        pending = self._choice("extra_vote_today")
        if b.role == WISE_WOMAN and pending in scores:
            scores[pending] += 0.3
        return scores

    def _deliberate(self, scores: dict[int, float], votes: dict[int, int], mine: int) -> int:
        """The seat to vote for now: own judgement plus the table's votes, weighted by
        how far the day has gone; the current vote is kept unless clearly beaten."""
        b = self.beliefs
        lot = self._lot(scores)
        if lot:
            self._drew = (b.day, lot)
            return 0 if lot == self.seat else lot  # the seat drawn lets the others decide
        if not mine:  # a first vote is one's own, never a follower's; a hunch is spread
            top = tactics.best(scores)
            if tactics.convinced(b, top):
                return top
            # ... and never starts on a seat that passed without a vote (D23): it could
            # not answer, and passing is no reason to be voted out
            mute = self._mute()
            hunch = {s: v for s, v in scores.items() if s not in mute} or scores
            top = tactics.best(hunch)
            near = sorted(s for s, v in hunch.items() if v >= hunch[top] - self.SPREAD[b.team])
            if self._hunch[0] == b.day and self._hunch[1] in near:
                return self._hunch[1]  # the hunch it has (perhaps said), until it votes
            others = max(2, len(b.alive) - 1)
            cast = {int(k) for k in self.view["votes"]}
            weights = [1.0 if s in cast else (others - 1) / others for s in near]
            pick = self.rng.choices(near, weights)[0]
            self._hunch = (b.day, pick)
            return pick
        weight = 1.0 if self._quiet else min(1.0, (self._turn - 1) / self.DELIBERATION)
        social = self.SOCIAL[b.team] * weight
        alive = max(1, len(b.alive))
        counts = Counter(t for t in votes.values() if t in scores)
        lead = tactics.join_min(b)
        mute = self._mute()
        value = {}
        for seat, score in scores.items():
            backed = counts.get(seat, 0) / alive
            if seat in mute and counts.get(seat, 0) < lead and not tactics.convinced(b, seat):
                backed = 0.0  # D23: a lone accusation of a seat that cannot answer is no lead
            if b.team == TEAM_HUMAN and not (b.p_trusis(seat) >= 0.75 * b.prior
                                             or b.castaway(seat) > 0):
                backed = 0.0  # a Human does not join a vote on a seat it believes clear
            value[seat] = score + social * backed
        top = tactics.best(value)
        if mine in value and value[top] - value[mine] < self.STICKINESS[b.team]:
            return mine
        return top

    def _drawn(self, target: int) -> bool:
        return self._drew == (self.beliefs.day, target)

    def _lot_today(self) -> int:
        day, seat = self._drew
        if day != self.beliefs.day:  # not voted since the lot could be drawn: draw it now
            # (the same draw for every bot, D70; nothing is kept, the vote draws again)
            scores = self._scores(self._seats("vote")) if self.beliefs.kind == "day" else {}
            seat = self._lot(scores) if scores else 0
        return seat if seat != self.seat else 0

    def _lone(self) -> bool:
        """A table with one TRUSIS (five to seven seats of the standard set), where Day 1
        gives the Humans no evidence at all (no fellow TRUSIS to give itself away): D70."""
        return self.beliefs.composition.get(TRUSIS, 0) == 1

    def _lot(self, scores: dict[int, float]) -> int:
        """D70: on Day 1 of a lone-TRUSIS table, with no evidence against anyone, the Human
        bots agree on one seat by lot instead of racing their own hunches — a race that the
        seat which does not hunch back (a person voting late, say) loses more often than
        its share, since every bot's hunch may land on it and each bot's cannot land on
        itself. The lot draws among the seats that have not claimed a Human role nor
        passed without a vote, from a digest of the day's public lines up to its first vote
        and of that vote (a vote before any line waits for the next line or vote: D73): the
        same for every bot (they read the same stream), different from game to game, and
        unknown before that vote. A seat the table shows as a person's weighs so that it is
        drawn at most at a fair share of the table (D73, `tactics.draw_lot`). 0: no lot, the
        bot votes as usual; its own seat: it casts no new vote, leaving the others to decide."""
        b = self.beliefs
        if b.team != TEAM_HUMAN or b.day != 1 or not self._lone() or self._first_vote is None \
                or any(tactics.convinced(b, s) for s in scores):
            return 0
        mute = self._mute()
        trusted = (set(b.claimers) - b.liars - b.contested) | ({self.seat} if self._said_role
                                                                 else set())
        seats = sorted(s for s in b.alive if s not in mute and s not in trusted)
        if not seats:
            return 0
        lot = tactics.draw_lot(seats, self._people(), len(b.alive), self._first_vote)
        return lot if lot in scores or lot == self.seat else 0

    def _people(self) -> set[int]:
        """The seats the table shows as people's: not given to a bot before the start
        (`bot_seats`) nor taken over by one (`players[].bot`). Public: every person at the
        table sees the seats' bot badges (D73). Where the view does not say (the lab),
        every seat counts alike."""
        bots = set(self.view.get("bot_seats", ()))
        return {p["seat"] for p in self.view["players"] if not p["bot"] and p["seat"] not in bots}

    def _mute(self) -> set[int]:
        """Seats that passed without a vote today: they can no longer answer an accusation
        (vote back, change their vote), so following a lone vote against one is no
        judgement of it (D23). Passing itself is not evidence either way."""
        votes = self.view.get("votes", {})
        return {p["seat"] for p in self.view["players"]
                if p.get("passed") and str(p["seat"]) not in votes}

    def _bus(self, votes: dict[int, int], seats: list[int]) -> Action | None:
        """A deliberate vote against a doomed team-mate, explained to it first."""
        b = self.beliefs
        if b.team != TEAM_TRUSIS or not self.COORDINATE:
            return None
        counts = Counter(votes.values())
        for ally in self._fellows() if b.role == TRUSIS else []:
            if ally in seats and 2 * counts.get(ally, 0) > len(b.alive):
                if self._choice("vote") == ally:
                    return None
                key = (ally, b.day, chat.BUS)  # explained again each day it happens
                if key not in self._told and ally in self._seats("say"):
                    self._told.add(key)
                    return self._say(chat.BUS, self._names()[ally], to=ally)
                return Action("vote", self.seat, ally)
        return None


class EasyBot(NormalBot):
    """A gentler bot: listens but believes everyone, hurries, follows the crowd, never lies."""

    kind: ClassVar[str] = "easy"
    SCEPTIC: ClassVar[bool] = False
    BLUFF: ClassVar[bool] = False
    COORDINATE: ClassVar[bool] = False
    NOISE: ClassVar[float] = 8.0
    FIRST: ClassVar[float] = 0.7
    SOCIAL: ClassVar[dict[str, float]] = {TEAM_HUMAN: 2.0, TEAM_TRUSIS: 3.0}
    DELIBERATION: ClassVar[int] = 2
    CLAIMER_INNOCENCE: ClassVar[float] = 0.5
    CLAIM_EARLY: ClassVar[bool] = False
    KEEP_CLEAR: ClassVar[float] = 0.5
