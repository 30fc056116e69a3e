"""What one bot believes about every seat, built only from its own view and events.

Roles are never revealed by death (R40), so beliefs come from three sources:
certain facts (`known` in the view: own role, R7, sweeps, visions, graves),
what people said (claims parsed by `trusis.bots.chat`), and how people voted
(a seat that votes for someone this bot knows is not a Trusis looks like a
Trusis; one that votes for a known Trusis looks honest). They are condensed
into `p_trusis(seat)`: a rough probability that the seat holds the TRUSIS role,
the one number the heuristic bot's every decision turns on.

Bots take many turns per phase, so the conclusions are kept, not rebuilt: facts
are re-read only when `known` or a tip changes, claims only when one is made,
finished days' votes are added once, and a moved vote re-weighs only its voter.
A test plays whole games both ways and checks that they are identical.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from trusis.bots import chat
from trusis.bots.base import EventData, View
from trusis.bots.votes import PastVotes, vote_weight
from trusis.rules.roles import CASTAWAY, ROLE_IDS, TEAM_OF, TRUSIS

# Weights of the evidence, in log-odds; tuned by playing heuristic bots against random ones.
W_SWEEP_TRUSIS = 3.5
W_SWEEP_CLEAR = -2.0
W_SUSPECT = 0.25
W_LIAR = 3.0  # a claim this bot knows to be false marks the speaker
W_NIGHT_VICTIM = -2.0  # killed at night: the Trusis rarely kill their own
W_CLAIMER = -1.0  # published a sweep or a grave result that nothing this bot knows belies
CLAIMER_INNOCENCE = 0.5  # ... so voting against that claimer looks a little guilty
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
        self._today: dict[int, float] = {}  # evidence from today's visible votes
        self._moved: set[int] | None = None  # voters whose vote moved (None: look at all)
        self._teams: dict[int, str | None] = {}
        self._raw_known: dict[str, str] | None = None
        self._raw_votes: dict[str, int] | None = None
        self.memo: dict[tuple[str, tuple[int, ...]], dict[int, float]] = {}
        """Scores derived from these beliefs (tactics); emptied whenever a conclusion moves."""
        self._prior = 0.0
        self._base = 0.0  # the prior in log-odds
        self._certain: dict[int, bool | None] = {}
        self._innocence: dict[int, float] = {}
        self._castaway: dict[int, float] = {}
        self._past = PastVotes()
        self._suspicion: dict[int, float] = {}  # what "I don't trust X" added, per seat
        self._settled: dict[int, float] = {}
        self._dirty = True  # the settled evidence must be summed again
        self._facts_dirty = True  # ... and first the certain facts (known, tips) read again
        self._claims_dirty = True  # ... and the public claims weighed again
        self._claim_evidence: dict[int, float] = {}
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
        was_day = self.kind == "day"
        day_before = self.day
        for event in events:
            self._event(event)
        phase = view["phase"]
        self.kind = phase["kind"]
        self.day = phase["number"]
        if was_day and (self.kind != "day" or self.day != day_before):
            self._dirty = True  # yesterday's votes become settled evidence
        if events or not self.alive:  # deaths and revivals always come with events
            self.alive = set(view["alive"])
        raw = view["known"]
        if raw != self._raw_known:  # compared raw: no dict is rebuilt on a quiet turn
            self._raw_known = dict(raw)
            self._dirty = self._facts_dirty = True
            self.known = {int(s): f for s, f in raw.items()}
        if self.kind == "day":
            raw_votes = view["votes"]
            if raw_votes != self._raw_votes:
                self._raw_votes = dict(raw_votes)
                votes = {int(k): v for k, v in raw_votes.items()}
                if votes != self.day_votes.get(self.day):  # not expected: events tell all
                    self._votes_dirty = True
                    self._moved = None
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
            self._moved_vote(params["voter"])
        elif code == "vote_withdrawn":
            self.day_votes.setdefault(self.day, {}).pop(params["voter"], None)
            self._moved_vote(params["voter"])
        elif code == "vote_killed":
            self.day_victims[params["seat"]] = self.day
        elif code == "died" and self.kind == "night":
            self.night_victims.add(params["seat"])
            self._dirty = True
        elif code in ("said", "whispered") and params["seat"] != self.seat:
            claim = chat.parse(params["text"], self.names)
            if claim is not None:
                self._claim(params["seat"], claim, code == "whispered")

    def _moved_vote(self, voter: int) -> None:
        self._votes_dirty = True
        if self._moved is not None:
            self._moved.add(voter)

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
        self.memo.clear()  # an ally's whisper changes the Trusis team's scores too
        if private:
            pass
        elif claim.kind == chat.SUSPECT and not (self._claims_dirty or self._facts_dirty):
            self._dirty = True  # the common chat: added on, nothing weighed again
            self._suspect(speaker, claim.about, self._suspicion)
        else:
            self._dirty = self._claims_dirty = True
        if private and claim.kind == chat.ALLY:
            self.allies.add(speaker)
        elif private and claim.kind == chat.TIP and claim.about:
            self.tips[claim.about] = claim.role
            self._dirty = self._facts_dirty = True
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
        if self._dirty:
            self._recompute()
        return self._teams.get(seat)

    def _team_of(self, seat: int) -> str | None:
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
        return self._past.voted_trusis.get(seat, 0)

    def refresh(self) -> None:
        """Bring the conclusions (and `memo`) up to date with everything folded in."""
        if self._dirty or self._votes_dirty:
            self._recompute()

    def tables(self) -> tuple[Mapping[int, float], Mapping[int, float], Mapping[int, str | None],
                              Mapping[int, int]]:
        """`p_trusis`, `castaway`, `team_of` and `voted_trusis` of every seat at once, up to
        date, for the loops that score every seat (read-only views, not copies)."""
        self.refresh()
        return self._p, self._castaway, self._teams, self._past.voted_trusis

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
        changed; today's votes whenever they move, and the probabilities only when that
        evidence actually moved (most vote changes carry no evidence for this bot)."""
        settled = self._dirty
        if settled:
            self._settle()
        self._votes_dirty = False
        votes = self.day_votes.get(self.day, {}) if self.kind == "day" else {}
        moved, self._moved = self._moved, set()
        seats: Iterable[int] = range(1, self.n + 1)
        if settled or moved is None:
            today: dict[int, float] = {}
            for voter, target in votes.items():
                weight = self._vote_weight(voter, target)
                if weight:
                    today[voter] = weight
            if not settled and today == self._today:
                return
        else:  # only the voters whose vote moved are weighed again
            today = dict(self._today)
            changed = []
            for voter in moved:
                weight = (self._vote_weight(voter, votes[voter])
                          if voter in votes else 0.0)
                if weight != today.get(voter, 0.0):
                    changed.append(voter)
                    if weight:
                        today[voter] = weight
                    else:
                        del today[voter]
            if not changed:
                return
            seats = changed
        if settled:
            self._base = math.log(self._prior / (1 - self._prior))
        self._today = today
        self.memo.clear()
        evidence = self._settled
        base = self._base
        p = self._p
        for seat in seats:
            known = self._certain[seat]
            if known is not None:
                p[seat] = 1.0 if known else 0.0
                continue
            logit = base + evidence.get(seat, 0.0) + today.get(seat, 0.0)
            p[seat] = 1 / (1 + math.exp(-max(-30.0, min(30.0, logit))))

    def _vote_weight(self, voter: int, target: int) -> float:
        """The evidence today's vote of `voter` for `target` gives about `voter` (a hook:
        `trusis.bots.weigh` also asks what the voter knew when it voted)."""
        return vote_weight(self._innocence, self.night_victims, target)

    def _settle(self) -> None:
        """Sum the settled evidence, re-reading facts and claims only when they changed
        (a death or a new night, the usual reasons to come here, change neither)."""
        self._dirty = False
        if self._facts_dirty:
            self._facts()
        if self._claims_dirty:
            self._weigh_claims()
        evidence = dict(self._claim_evidence)
        for seat, weight in self._suspicion.items():
            evidence[seat] = evidence.get(seat, 0.0) + weight
        today = self.day if self.kind == "day" else 0
        for seat, weight in self._past.evidence(self.day_votes, today, self._certain,
                                                self._innocence, self.night_victims).items():
            evidence[seat] = evidence.get(seat, 0.0) + weight
        for seat in self.night_victims:
            evidence[seat] = evidence.get(seat, 0.0) + W_NIGHT_VICTIM
        self._settled = evidence

    def _facts(self) -> None:
        self._facts_dirty = False
        self._claims_dirty = True
        certain = {s: self.certain_trusis(s) for s in range(1, self.n + 1)}
        self._certain = certain
        self._teams = {s: self._team_of(s) for s in range(1, self.n + 1)}
        unknown = sum(1 for c in certain.values() if c is None)
        found = sum(1 for c in certain.values() if c)
        self._prior = min(0.95, max(0.02, (self.trusis_total - found) / max(1, unknown)))

    def _weigh_claims(self) -> None:
        self._claims_dirty = False
        certain = self._certain
        evidence: dict[int, float] = {}
        innocence: dict[int, float] = {s: (0.0 if c is None else (-1.0 if c else 1.0))
                                       for s, c in certain.items()}
        castaway: dict[int, float] = {}
        suspicion: dict[int, float] = {}
        self._suspicion = suspicion

        def add(seat: int, weight: float) -> None:
            evidence[seat] = evidence.get(seat, 0.0) + weight

        liars: set[int] = set()
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
                    liars.add(speaker)
                add(about, W_SWEEP_TRUSIS * trust)
                if truth is None and not liar:
                    innocence[about] = max(-1.0, innocence[about] - 1.0)
            elif kind in (chat.SWEEP_CLEAR, chat.GRAVE_CLEAR, chat.SWEEP_CASTAWAY):
                if truth is True:
                    add(speaker, W_LIAR)
                    liars.add(speaker)
                add(about, W_SWEEP_CLEAR * trust)
                if truth is None and not liar:
                    innocence[about] = min(1.0, innocence[about] + 1.0)
                if kind == chat.SWEEP_CASTAWAY:
                    castaway[about] = min(1.0, castaway.get(about, 0.0) + 0.6)
            elif kind == chat.SUSPECT:
                self._suspect(speaker, about, suspicion)
        for speaker in self.claimers:
            if speaker not in liars and certain.get(speaker) is None:
                add(speaker, W_CLAIMER)
                innocence[speaker] = max(innocence[speaker], CLAIMER_INNOCENCE)
        for seat in range(1, self.n + 1):
            fact = self.known.get(seat) or self.tips.get(seat)
            if fact == CASTAWAY:
                castaway[seat] = 1.0
            elif fact in ROLE_IDS or fact in (TRUSIS, "NEITHER"):
                castaway.pop(seat, None)
        self._castaway = castaway
        self._innocence = innocence
        self._claim_evidence = evidence

    def _suspect(self, speaker: int, about: int, suspicion: dict[int, float]) -> None:
        if about:
            trust = 0.3 if self._certain.get(speaker) else 1.0
            suspicion[about] = suspicion.get(about, 0.0) + W_SUSPECT * trust
