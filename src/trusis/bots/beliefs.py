"""What one bot believes about every seat, built only from its own view and events.

Roles are never revealed by death (R40), so beliefs come from three sources:
certain facts (`known` in the view: own role, R7, sweeps, visions, graves),
what people said (claims parsed by `trusis.bots.chat`), and how people voted
(a seat that votes for someone this bot knows is not a Trusis looks like a
Trusis; one that votes for a known Trusis looks honest). They are condensed
into `p_trusis(seat)`: a rough probability that the seat holds the TRUSIS role,
the one number the heuristic bot's every decision turns on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from trusis.bots import chat
from trusis.bots.base import EventData, View
from trusis.roles import CASTAWAY, ROLE_IDS, TEAM_OF, TRUSIS

# Weights of the evidence, in log-odds; tuned by playing heuristic bots against random ones.
W_SWEEP_TRUSIS = 3.5
W_SWEEP_CLEAR = -2.0
W_SUSPECT = 0.25
W_LIAR = 3.0  # a claim this bot knows to be false marks the speaker
W_VOTE_INNOCENT = 0.7  # voted (by day) for a seat this bot knows is not a Trusis
W_VOTE_TRUSIS = -0.7  # voted for a known or publicly exposed Trusis
W_VOTE_NIGHT_VICTIM = 0.35  # voted for a seat the Trusis then killed: likely an innocent
W_NIGHT_VICTIM = -2.0  # killed at night: the Trusis rarely kill their own
NOT_TRUSIS_FACTS = frozenset({"NEITHER", "NOT_TRUSIS", CASTAWAY})


class Beliefs:
    """Beliefs of the bot at `seat`; call `update` with every view and event batch."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.role = ""
        self.team = ""
        self.n = 0
        self.day = 1
        self.kind = "day"
        self.alive: set[int] = set()
        self.known: dict[int, str] = {}
        self.names: dict[str, int] = {}
        self.trusis_total = 0
        # Final visible day votes: day number -> voter -> shown target.
        self.day_votes: dict[int, dict[int, int]] = {}
        self.night_victims: set[int] = set()
        self.day_victims: dict[int, int] = {}  # seat -> day it was voted out
        self.claims: list[tuple[int, int, chat.Claim, bool]] = []  # (day, speaker, claim, private)
        self.claimers: dict[int, int] = {}  # seat -> last day it publicly claimed information
        self.allies: set[int] = set()  # seats that told this bot they are on its side
        self.tips: dict[int, str] = {}  # seat -> role, whispered by an ally
        self.kill_votes: dict[int, int] = {}  # the TRUSIS night votes seen tonight
        self.failed_kills: set[int] = set()  # last night's TRUSIS target, when it survived
        self._p: dict[int, float] = {}
        self._prior = 0.0
        self._certain: dict[int, bool | None] = {}
        self._innocence: dict[int, float] = {}
        self._castaway: dict[int, float] = {}
        self._voted_trusis: dict[int, int] = {}
        self._settled: dict[int, float] = {}
        self._dirty = True
        self._votes_dirty = True

    # -- folding in what the bot sees -----------------------------------------

    def update(self, view: View, events: Sequence[EventData]) -> None:
        """Fold in a new view and the events seen since the last one."""
        if not self.n:
            self.n = len(view["players"])
            self.role = view.get("role", "")
            self.team = view.get("team", "")
            self.trusis_total = view["composition"].get(TRUSIS, 0)
            self.names = {p["name"]: p["seat"] for p in view["players"]}
        day_before = (self.kind, self.day)
        for event in events:
            self._event(event)
        self.kind = view["phase"]["kind"]
        self.day = view["phase"]["number"]
        if (self.kind, self.day) != day_before:
            self._dirty = True  # yesterday's votes become settled evidence
        alive = set(view["alive"])
        if alive != self.alive:
            self._dirty = True
            self.alive = alive
        known = {int(s): f for s, f in view["known"].items()}
        if known != self.known:
            self._dirty = True
            self.known = known
        if self.kind == "day":
            votes = {int(k): v for k, v in view["votes"].items()}
            if votes != self.day_votes.get(self.day):
                self._votes_dirty = True
                self.day_votes[self.day] = votes

    def _event(self, event: EventData) -> None:
        code = event["code"]
        params = event["params"]
        if code == "phase_started":
            if self.kind == "night" and self.kill_votes:
                self._night_ended()
            self.kind = params["kind"]
            self.day = params["number"]
        elif code == "trusis_vote":
            self.kill_votes[params["voter"]] = params["target"]
        elif code == "trusis_vote_withdrawn":
            self.kill_votes.pop(params["voter"], None)
        elif code == "vote_cast" and self.kind == "day":
            self.day_votes.setdefault(self.day, {})[params["voter"]] = params["target"]
            self._votes_dirty = True
        elif code == "vote_withdrawn":
            self.day_votes.setdefault(self.day, {}).pop(params["voter"], None)
            self._votes_dirty = True
        elif code == "vote_killed":
            self.day_victims[params["seat"]] = self.day
        elif code == "died" and self.kind == "night":
            self.night_victims.add(params["seat"])
        elif code in ("said", "whispered") and params["seat"] != self.seat:
            claim = chat.parse(params["text"], self.names)
            if claim is not None:
                self._dirty = True
                self._claim(params["seat"], claim, code == "whispered")

    def _night_ended(self) -> None:
        """A TRUSIS learns whether its team's kill went through (a failure means a Priest)."""
        counts: dict[int, int] = {}
        for target in self.kill_votes.values():
            counts[target] = counts.get(target, 0) + 1
        top = max(counts.values())
        leaders = [t for t, c in counts.items() if c == top]
        self.failed_kills = set()
        if len(leaders) == 1 and leaders[0] not in self.night_victims:
            self.failed_kills.add(leaders[0])
        self.kill_votes = {}

    def _claim(self, speaker: int, claim: chat.Claim, private: bool) -> None:
        self.claims.append((self.day, speaker, claim, private))
        if private and claim.kind == chat.ALLY:
            self.allies.add(speaker)
        elif private and claim.kind == chat.TIP and claim.about:
            self.tips[claim.about] = claim.role
        elif not private and claim.kind not in (chat.SUSPECT, chat.ALLY, chat.TIP):
            self.claimers[speaker] = self.day

    # -- what the bot concludes -----------------------------------------------

    def fact(self, seat: int) -> str | None:
        """The most precise certain fact this bot holds about `seat`."""
        return self.known.get(seat)

    def certain_trusis(self, seat: int) -> bool | None:
        """True/False when this bot knows whether `seat` holds the TRUSIS role, else None."""
        fact = self.known.get(seat)
        if fact is None:
            tip = self.tips.get(seat)
            return None if tip is None else tip == TRUSIS
        if fact == TRUSIS:
            return True
        return False if fact in NOT_TRUSIS_FACTS or fact in ROLE_IDS else None

    def team_of(self, seat: int) -> str | None:
        """The team of `seat` if this bot knows it (own role, R7, vision, tip)."""
        fact = self.known.get(seat) or self.tips.get(seat)
        if fact in ROLE_IDS:
            return TEAM_OF[fact]
        if fact == CASTAWAY:
            return "CASTAWAY"
        return None

    def castaway(self, seat: int) -> float:
        """How strongly `seat` looks like a Castaway (known, or claimed by someone)."""
        if self._dirty:
            self._recompute()
        return self._castaway.get(seat, 0.0)

    def voted_trusis(self, seat: int) -> int:
        """On how many days `seat` voted for a seat this bot knows is a TRUSIS."""
        if self._dirty:
            self._recompute()
        return self._voted_trusis.get(seat, 0)

    def p_trusis(self, seat: int) -> float:
        """A rough probability that `seat` holds the TRUSIS role."""
        if self._dirty or self._votes_dirty:
            self._recompute()
        return self._p.get(seat, 0.0)

    @property
    def prior(self) -> float:
        """The chance that a seat this bot knows nothing about is a TRUSIS."""
        if self._dirty:
            self._recompute()
        return self._prior

    def _recompute(self) -> None:
        """Refresh the conclusions: settled evidence only when facts, claims or deaths
        changed; today's votes whenever they move (the frequent, cheap case)."""
        if self._dirty:
            self._settle()
        evidence = dict(self._settled)
        if self.kind == "day":
            self._vote_evidence(self.day_votes.get(self.day, {}), evidence)
        base = math.log(self._prior / (1 - self._prior))
        p: dict[int, float] = {}
        for seat in range(1, self.n + 1):
            known = self._certain[seat]
            if known is not None:
                p[seat] = 1.0 if known else 0.0
                continue
            logit = max(-30.0, min(30.0, base + evidence.get(seat, 0.0)))
            p[seat] = 1 / (1 + math.exp(-logit))
        self._p = p
        self._votes_dirty = False

    def _settle(self) -> None:
        self._dirty = False
        certain = {s: self.certain_trusis(s) for s in range(1, self.n + 1)}
        self._certain = certain
        unknown = sum(1 for c in certain.values() if c is None)
        found = sum(1 for c in certain.values() if c)
        self._prior = min(0.95, max(0.02, (self.trusis_total - found) / max(1, unknown)))
        evidence: dict[int, float] = {}
        innocence: dict[int, float] = {s: (0.0 if c is None else (-1.0 if c else 1.0))
                                       for s, c in certain.items()}
        castaway: dict[int, float] = {}

        def add(seat: int, weight: float) -> None:
            evidence[seat] = evidence.get(seat, 0.0) + weight

        for _day, speaker, claim, private in self.claims:
            if private or not claim.about:
                continue
            about = claim.about
            truth = certain.get(about)
            liar = certain.get(speaker)
            trust = 0.3 if liar else 1.0
            kind = claim.kind
            if kind in (chat.SWEEP_TRUSIS, chat.GRAVE_TRUSIS):
                if truth is False:
                    add(speaker, W_LIAR)
                add(about, W_SWEEP_TRUSIS * trust)
                if truth is None and not liar:
                    innocence[about] = max(-1.0, innocence[about] - 1.0)
            elif kind in (chat.SWEEP_CLEAR, chat.GRAVE_CLEAR, chat.SWEEP_CASTAWAY):
                if truth is True:
                    add(speaker, W_LIAR)
                add(about, W_SWEEP_CLEAR * trust)
                if truth is None and not liar:
                    innocence[about] = min(1.0, innocence[about] + 1.0)
                if kind == chat.SWEEP_CASTAWAY:
                    castaway[about] = min(1.0, castaway.get(about, 0.0) + 0.6)
            elif kind == chat.SUSPECT:
                add(about, W_SUSPECT * trust)
        for seat in range(1, self.n + 1):
            fact = self.known.get(seat) or self.tips.get(seat)
            if fact == CASTAWAY:
                castaway[seat] = 1.0
            elif fact in ROLE_IDS or fact in (TRUSIS, "NEITHER"):
                castaway.pop(seat, None)
        self._castaway = castaway
        self._innocence = innocence
        voted_trusis: dict[int, int] = {}
        for day, votes in self.day_votes.items():
            if self.kind == "day" and day == self.day:
                continue
            self._vote_evidence(votes, evidence)
            for voter, target in votes.items():
                if certain.get(target):
                    voted_trusis[voter] = voted_trusis.get(voter, 0) + 1
        self._voted_trusis = voted_trusis
        for seat in self.night_victims:
            add(seat, W_NIGHT_VICTIM)
        self._settled = evidence

    def _vote_evidence(self, votes: dict[int, int], evidence: dict[int, float]) -> None:
        """Votes for the innocent look guilty, votes for exposed TRUSIS look honest."""
        innocence = self._innocence
        victims = self.night_victims
        for voter, target in votes.items():
            score = innocence.get(target, 0.0)
            weight = 0.0
            if score > 0:
                weight = W_VOTE_INNOCENT * score
            elif score < 0:
                weight = W_VOTE_TRUSIS * -score
            if target in victims:
                weight += W_VOTE_NIGHT_VICTIM
            if weight:
                evidence[voter] = evidence.get(voter, 0.0) + weight
