"""Why a bot votes for a seat, in words a person can weigh: true, or a plausible lie.

A Human bot gives its real reason: the strongest piece of evidence it holds against
the seat, in the order its beliefs weigh them (`trusis.bots.weigh`) — a published sweep
nobody contests, a claim that cannot be true or is claimed twice, a vote for a seat it
knows is clear, a vote for a seat the Trusis then killed, others' accusations, the
crowd (a split vote kills nobody) — or says it is a hunch. A bot of the Trusis team
cannot say its real reason (the seat threatens its team), so it gives one a person can
check and find true in the public record — the same facts, read from what everybody
saw — or a hunch. Either way the reason names only what its seat knows.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from trusis.bots import chat, listen, phrases
from trusis.bots.weigh import ListeningBeliefs
from trusis.rules.roles import TEAM_HUMAN

_CLEAR = 0.5  # innocence (trusis.bots.votes) from which a seat is "clear" in a reason


@dataclass(frozen=True, slots=True)
class Reason:
    """A reason to vote `about`: its kind (`trusis.bots.phrases`), a second seat it names
    (`other`, 0 if none) and a role (WHY_CONTESTED)."""

    kind: str
    about: int
    other: int = 0
    role: str = ""


def _accusers(b: ListeningBeliefs, target: int) -> list[int]:
    return [speaker for _d, speaker, claim, private in b.claims
            if not private and claim.about == target and speaker != target
            and claim.kind in (chat.SUSPECT, listen.VOTE_CALL)]


def facts(b: ListeningBeliefs, target: int, votes: dict[int, int], public: bool) -> list[Reason]:
    """Every reason this bot could give against `target`, strongest first. With `public`,
    only those anyone at the table can check (no fact known to this seat alone)."""
    out: list[Reason] = []
    for _day, speaker, claim, private in b.claims:
        if (not private and claim.about == target and speaker != b.seat
                and claim.kind in (chat.SWEEP_TRUSIS, chat.GRAVE_TRUSIS)
                and speaker not in b.liars | b.contested):
            out.append(Reason(phrases.WHY_SWEPT, target, speaker))
            break
    if target in b.liars:
        out.append(Reason(phrases.WHY_LIAR, target))
    if target in b.contested:
        role = next((r for r, who in b.role_claims.items() if target in who), "")
        if role:
            out.append(Reason(phrases.WHY_CONTESTED, target, 0, role))
    days = sorted(b.day_votes)
    for day in reversed(days):
        voted = b.day_votes[day].get(target)
        if not voted:
            continue
        if voted == b.seat:  # public; for a TRUSIS, a plausible lie
            out.append(Reason(phrases.WHY_VOTED_ME, target, b.seat))
        elif voted != b.seat and b.innocence(voted, public) >= _CLEAR:
            out.append(Reason(phrases.WHY_VOTED_CLEAR, target, voted))
        if b.killed_at_night.get(voted) == day:
            out.append(Reason(phrases.WHY_VOTED_VICTIM, target, voted))
    mine = votes.get(target)
    if mine and mine in b.claimers and mine not in b.liars | b.contested and mine != b.seat:
        out.append(Reason(phrases.WHY_AGAINST_CLAIMER, target, mine))
    if _accusers(b, target):
        out.append(Reason(phrases.WHY_ACCUSED, target))
    counts = Counter(votes.values())
    if counts and counts.get(target, 0) >= 2 and counts.most_common(1)[0][0] == target \
            and list(counts.values()).count(counts[target]) == 1:
        out.append(Reason(phrases.WHY_CROWD, target))
    return out


def why(b: ListeningBeliefs, target: int, votes: dict[int, int], rng: random.Random) -> Reason:
    """The reason this bot gives for voting `target` (`votes`: today's visible votes)."""
    if b.team == TEAM_HUMAN:
        found = facts(b, target, votes, public=False)
        return found[0] if found else Reason(phrases.WHY_HUNCH, target)
    found = [r for r in facts(b, target, votes, public=True)
             if r.kind != phrases.WHY_VOTED_ME or b.team_of(target) != b.team]
    if not found or rng.random() < 0.25:
        return Reason(phrases.WHY_HUNCH, target)
    return found[0] if rng.random() < 0.6 else rng.choice(found)
