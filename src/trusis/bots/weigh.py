"""Beliefs that listen: free-text claims weighed by who made them and whether they fit.

`ListeningBeliefs` is the heuristic bot's `Beliefs` with two changes. It reads
every message with `trusis.bots.listen` (people's free text as well as the bots'
templates), and it weighs claims against each other and against what it knows:

- **Counter-claims.** More seats claim a role (outright, or by publishing a sweep
  or a grave result) than the composition deals: each claimant is suspect, and
  none of them gets the trust an unchallenged claimer gets. A bot that holds the
  role itself knows the others lie.
- **Impossible claims.** A sweep result on Day 1 (nobody has swept yet), a role
  the table does not deal, a result contradicted by this bot's facts: the speaker
  is a liar and the claim is dropped.
- **Conflicting results.** One seat says X is a Trusis and another that X is clear:
  one of the two lies, so both lose trust.
- **The rest of the talk.** Accusations and calls to vote add a little suspicion,
  vouching takes a little away; vouching for a seat this bot knows is a Trusis, or
  calling to vote a seat it knows is innocent, makes the speaker look guilty.
- **Whispers among the TRUSIS.** A call to vote whispered by a known TRUSIS is the
  team's plan for the day (`plans`).
"""

from __future__ import annotations

from collections.abc import Sequence

from trusis.bots import chat, listen, phrases
from trusis.bots.base import EventData, View
from trusis.bots.beliefs import W_LIAR, W_SUSPECT, Beliefs
from trusis.bots.chat import Claim
from trusis.rules.roles import (
    GRAVEKEEPER,
    HUMAN,
    KAMIKAZE,
    PRIEST,
    SWEEPER,
    TRUSIS,
    WHITE_KNIGHT,
    WISE_WOMAN,
)

W_COUNTER = 1.0  # a claimant of a role claimed by more seats than the table deals
W_CONFLICT = 0.6  # published a result that another seat's result contradicts
W_ROLE = -0.3  # claimed a Human power role, unchallenged
W_VOUCH = -0.2  # someone vouched for the seat
W_CALL = 0.15  # someone called to vote the seat out
W_BAD_TALK = 0.8  # vouched for a known Trusis, or called to vote a known innocent
UNKNOWING = 0.25  # a vote cast before its target claimed a Human role: it weighs this much
SELF_INNOCENCE = 0.35  # a vote for this bot, which alone knows it is no Trusis: weak evidence
INFO_ROLES = frozenset({SWEEPER, GRAVEKEEPER, PRIEST, WISE_WOMAN, WHITE_KNIGHT})
RESULTS = {chat.SWEEP_TRUSIS: SWEEPER, chat.SWEEP_CLEAR: SWEEPER, chat.SWEEP_CASTAWAY: SWEEPER,
           chat.GRAVE_TRUSIS: GRAVEKEEPER, chat.GRAVE_CLEAR: GRAVEKEEPER}
SWEEPS = frozenset({chat.SWEEP_TRUSIS, chat.SWEEP_CLEAR, chat.SWEEP_CASTAWAY})
_BASE_KINDS = frozenset({*RESULTS, chat.SUSPECT, chat.ALLY, chat.TIP})


class ListeningBeliefs(Beliefs):
    """`Beliefs` that read free text and check claims against each other.

    `listen=False` reads only the bot templates (as the heuristic bot does);
    `sceptic=False` takes every claim at face value (no counter-claim checks);
    `claimer_innocence`: how innocent an unchallenged claimer looks, so how guilty
    voting against it looks (the heuristic's is 0.5).
    """

    def __init__(self, seat: int, listen: bool = True, sceptic: bool = True,
                 claimer_innocence: float = 1.0) -> None:
        super().__init__(seat)
        self.listen = listen
        self.sceptic = sceptic
        self.claimer_innocence = claimer_innocence
        self.martyrs = False  # a claimer the Trusis killed at night proves its claim (expert)
        self.composition: dict[str, int] = {}
        self.name_list: tuple[str, ...] = ()
        self.plans: dict[int, int] = {}  # day -> the seat a fellow TRUSIS whispered to vote
        self.contested: set[int] = set()  # claimants caught in a counter-claim or a conflict
        self.liars: set[int] = set()  # seats whose claim this bot knows is false or impossible
        self.role_claims: dict[str, dict[int, int]] = {}  # role -> seat -> day it claimed it
        self.killed_at_night: dict[int, int] = {}  # seat -> the night it died (the last one)
        self._seen = 0  # events folded in so far: the order of votes and claims
        self._cast_at: dict[int, int] = {}  # today's voter -> when it cast its vote
        self._claimed_at: dict[int, int] = {}  # claimer -> when it first claimed

    def update(self, view: View, events: Sequence[EventData]) -> None:
        if not self.n:
            self.composition = dict(view["composition"])
            self.name_list = tuple(p["name"] for p in sorted(view["players"],
                                                              key=lambda p: p["seat"]))
        super().update(view, events)

    def _event(self, event: EventData) -> None:
        code, params = event["code"], event["params"]
        self._seen += 1
        if code == "vote_cast":
            self._cast_at[params["voter"]] = self._seen
        elif code == "phase_started":
            self._cast_at = {}
        if code == "died" and self.kind == "night":
            self.killed_at_night[params["seat"]] = self.day
        if code not in ("said", "whispered") or params["seat"] == self.seat:
            super()._event(event)
            return
        speaker, text = params["seat"], params["text"]
        line = phrases.read(text, self.names)
        if line is not None:  # a bot's reason or answer: read exactly, never as free text
            claims = [Claim(c.kind, c.about or speaker, c.role) for c in line[1]]
        else:
            claims = listen.parse(text, self.name_list, speaker) if self.listen else []
            template = chat.parse(text, self.names)
            if template is not None and template not in claims:
                claims.append(template)
        for claim in claims:
            self._claim(speaker, claim, code == "whispered")

    def _claim(self, speaker: int, claim: Claim, private: bool) -> None:
        if claim.kind in _BASE_KINDS:
            super()._claim(speaker, claim, private)
        else:
            self.claims.append((self.day, speaker, claim, private))
            self.memo.clear()
            self._dirty = self._claims_dirty = True
        if private:
            if claim.kind == listen.VOTE_CALL and self.known.get(speaker) == TRUSIS:
                self.plans[self.day] = claim.about
            return
        role = RESULTS.get(claim.kind) or (claim.role if claim.kind == listen.ROLE
                                           and claim.about == speaker else "")
        if role:
            self.role_claims.setdefault(role, {})[speaker] = self.day
            if role in INFO_ROLES:
                self.claimers[speaker] = self.day
                self._claimed_at.setdefault(speaker, self._seen)

    def _vote_weight(self, voter: int, target: int) -> float:
        """A vote is judged by what its voter knew: one cast before its target claimed a
        Human role, and kept, is no vote against a claimer (someone who votes early and
        then waits must not look like a Trusis for it)."""
        weight = super()._vote_weight(voter, target)
        if weight > 0 and self._unchecked(target):
            return 0.0
        if weight > 0 and self._cast_at.get(voter, 0) < self._claimed_at.get(target, 0):
            weight *= UNKNOWING
        return weight

    def _unchecked(self, target: int) -> bool:
        """D70: on Day 1 of a table with one TRUSIS nothing can check a claim yet, and no
        fellow TRUSIS gives the team away: a vote on a seat that claimed a Human role there
        is a question to its voter, not the evidence that convicts it (a person who votes
        at random lands on a claimer a third of the time at seven seats)."""
        return self.day == 1 and self.composition.get(TRUSIS, 0) == 1 \
            and target in self._claimed_at

    def innocence(self, seat: int, public: bool = False) -> float:
        """How surely `seat` is not a Trusis, from -1 to 1 (`trusis.bots.votes`); with
        `public`, from what everyone heard only (a trusted claimer, a published clear
        sweep), leaving out what this seat alone knows."""
        self.refresh()
        if not public:
            return self._innocence.get(seat, 0.0)
        if seat in self.liars or seat in self.contested:
            return -0.5 if seat in self.liars else 0.0
        if seat in self.claimers:
            return self.claimer_innocence
        for _day, speaker, claim, private in self.claims:
            if (not private and claim.about == seat and claim.kind in
                    (chat.SWEEP_CLEAR, chat.GRAVE_CLEAR) and speaker not in self.liars):
                return 1.0
        return 0.0

    def _weigh_claims(self) -> None:
        certain = self._certain
        liars: set[int] = set()
        contested: set[int] = set()
        dropped: set[int] = set()  # indices of claims not believed at all
        if self.sceptic:
            for role, who in self.role_claims.items():
                if role == HUMAN or role == TRUSIS:
                    continue
                cap = self.composition.get(role, 0)
                mine = self.role == role
                others = [s for s in who if s != self.seat]
                martyrs = [s for s in others if s in self.night_victims] \
                    if self.martyrs and not self.composition.get(KAMIKAZE) else []
                if cap == 0 or (mine and cap == 1 and others):
                    liars.update(others)  # the role is not dealt, or this bot holds it
                elif cap == 1 and len(martyrs) == 1:
                    # the Trusis killed one claimer at night: that one was no Trusis (with
                    # no Kamikaze, of the Trusis team, dying by its own strike), so the
                    # living claimers of its one role lie
                    liars.update(s for s in others if s not in martyrs
                                 and certain.get(s) is None)
                elif len(who) + (mine and self.seat not in who) > cap:
                    contested.update(s for s in who if certain.get(s) is None)
            verdicts: dict[int, dict[bool, set[int]]] = {}
            for i, (day, speaker, claim, private) in enumerate(self.claims):
                if private or claim.kind not in RESULTS:
                    continue
                if claim.kind in SWEEPS and day == 1:  # nobody has swept before Night 1
                    liars.add(speaker)
                    dropped.add(i)
                    continue
                guilty = claim.kind in (chat.SWEEP_TRUSIS, chat.GRAVE_TRUSIS)
                verdicts.setdefault(claim.about, {}).setdefault(guilty, set()).add(speaker)
            for sides in verdicts.values():
                if len(sides) == 2:
                    contested.update(s for side in sides.values() for s in side
                                     if certain.get(s) is None)
            for i, (_day, speaker, _claim, private) in enumerate(self.claims):
                if speaker in liars and not private:
                    dropped.add(i)
        self.liars, self.contested = liars, contested - liars
        real, claimers = self.claims, self.claimers
        self.claims = [c for i, c in enumerate(real) if i not in dropped]
        self.claimers = {s: d for s, d in claimers.items() if s not in liars | contested}
        try:
            super()._weigh_claims()
        finally:
            self.claims, self.claimers = real, claimers
        evidence, innocence = self._claim_evidence, self._innocence

        def add(seat: int, weight: float) -> None:
            if seat:
                evidence[seat] = evidence.get(seat, 0.0) + weight

        for seat in liars:
            add(seat, W_LIAR)
            innocence[seat] = min(innocence.get(seat, 0.0), -0.5)
        for seat in self.contested:
            add(seat, W_COUNTER)
        for seat in self.claimers:
            if seat not in liars | contested and certain.get(seat) is None:
                innocence[seat] = max(innocence.get(seat, 0.0), self.claimer_innocence)
        if certain.get(self.seat) is False and self.seat not in self.claimers:
            # Only this bot knows it is innocent, and whoever voted for it could not: on a
            # hunch a Human lands on it about as often as a Trusis does.
            innocence[self.seat] = min(innocence.get(self.seat, 0.0), SELF_INNOCENCE)
        for role, who in self.role_claims.items():
            if role in INFO_ROLES:
                for seat in who:
                    if seat not in liars | contested and certain.get(seat) is None:
                        add(seat, W_ROLE)
        for _day, speaker, claim, private in self.claims:
            if private or speaker in liars:
                continue
            about, truth = claim.about, certain.get(claim.about)
            trust = 0.3 if certain.get(speaker) else 1.0
            if claim.kind == listen.VOUCH:
                add(about, W_VOUCH * trust)
                if truth:
                    add(speaker, W_BAD_TALK)
            elif claim.kind == listen.VOTE_CALL:
                add(about, W_CALL * trust)
                if truth is False and about != self.seat:
                    add(speaker, W_BAD_TALK * 0.5)
            elif claim.kind == chat.SUSPECT and truth is False and about != self.seat:
                add(speaker, W_SUSPECT)
