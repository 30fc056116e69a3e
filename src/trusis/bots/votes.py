"""What day votes say about the voters, for `trusis.bots.beliefs`.

A vote for a seat the bot believes innocent makes the voter look like a Trusis,
a vote for an exposed Trusis makes it look honest, and a vote for a seat the
Trusis later killed at night (likely an innocent) looks a little guilty. The
finished days are weighed once and kept (`PastVotes`): a new day or a new night
victim is added on, and everything is weighed again only when what the votes
are judged by — the bot's facts and the public claims — has moved.
"""

from __future__ import annotations

from collections.abc import Mapping

# Weights of the evidence, in log-odds (see beliefs.py for the others).
W_VOTE_INNOCENT = 0.7  # voted (by day) for a seat this bot knows is not a Trusis
W_VOTE_TRUSIS = -0.7  # voted for a known or publicly exposed Trusis
W_VOTE_NIGHT_VICTIM = 0.35  # voted for a seat the Trusis then killed: likely an innocent


def innocence_weight(innocence: Mapping[int, float], target: int) -> float:
    """The evidence a vote for `target` gives about its voter, from `target`'s innocence
    (1 = surely not a Trusis, -1 = surely one, 0 = unknown)."""
    score = innocence.get(target, 0.0)
    if score > 0:
        return W_VOTE_INNOCENT * score
    if score < 0:
        return W_VOTE_TRUSIS * -score
    return 0.0


def vote_weight(innocence: Mapping[int, float], victims: set[int], target: int) -> float:
    """The whole evidence of one vote for `target` about its voter."""
    weight = innocence_weight(innocence, target)
    if target in victims:
        weight += W_VOTE_NIGHT_VICTIM
    return weight


class PastVotes:
    """The evidence of the finished days' votes, kept between phases."""

    def __init__(self) -> None:
        self.voted_trusis: dict[int, int] = {}  # voter -> days it voted for a known TRUSIS
        self._weights: dict[int, float] = {}  # voter -> innocence-based evidence
        self._hits: dict[int, int] = {}  # voter -> votes for a later night victim
        self._days: set[int] = set()
        self._victims: set[int] = set()
        self._key: tuple[object, ...] = ()

    def forget(self) -> None:
        """Weigh everything again at the next `evidence` call."""
        self._key = ()

    def evidence(self, day_votes: Mapping[int, Mapping[int, int]], today: int,
                 certain: Mapping[int, bool | None], innocence: Mapping[int, float],
                 victims: set[int]) -> dict[int, float]:
        """Voter -> evidence from the days in `day_votes` but `today` (0 at night)."""
        if (certain, innocence) != self._key:
            self._key = (dict(certain), dict(innocence))
            self._weights, self._hits, self.voted_trusis = {}, {}, {}
            self._days, self._victims = set(), set()
        weights, hits, voted_trusis = self._weights, self._hits, self.voted_trusis
        fresh = victims - self._victims
        if fresh:
            self._victims |= fresh
            for day in self._days:
                for voter, target in day_votes[day].items():
                    if target in fresh:
                        hits[voter] = hits.get(voter, 0) + 1
        for day, votes in day_votes.items():
            if day in self._days or day == today:
                continue
            self._days.add(day)
            for voter, target in votes.items():
                weight = innocence_weight(innocence, target)
                if weight:
                    weights[voter] = weights.get(voter, 0.0) + weight
                if target in self._victims:
                    hits[voter] = hits.get(voter, 0) + 1
                if certain.get(target):
                    voted_trusis[voter] = voted_trusis.get(voter, 0) + 1
        total = dict(weights)
        for voter, count in hits.items():
            total[voter] = total.get(voter, 0.0) + W_VOTE_NIGHT_VICTIM * count
        return total
