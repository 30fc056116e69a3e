"""How a heuristic bot ranks seats: whom to vote out, kill, check, protect or revive
(and how the `normal` bots draw D70's lot).

Each function reads the bot's `Beliefs` (never the game state) and returns a
score per seat; the bot then acts on the best one. Two goals drive them. The
Human team wins only when no TRUSIS is alive (R31), so it hunts the seats most
likely to hold the TRUSIS role. The Trusis team wins when the TRUSIS outnumber
everyone else, so it removes the seats that threaten it most: those that
claimed information (Sweepers, Gravekeepers), those its Oracle named, and the
Castaways, who would steal any victory while alive (R32).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from trusis.bots.beliefs import Beliefs
from trusis.rules.roles import (
    CASTAWAY,
    GRAVEKEEPER,
    PRIEST,
    SWEEPER,
    TEAM_HUMAN,
    TEAM_TRUSIS,
    TRUSIS,
    WHITE_KNIGHT,
    WISE_WOMAN,
)

# How much the Trusis team gains by removing a seat of each known role.
ROLE_THREAT: Mapping[str, float] = {
    SWEEPER: 3.0, PRIEST: 2.0, GRAVEKEEPER: 2.0, WISE_WOMAN: 1.5, WHITE_KNIGHT: 1.5,
    CASTAWAY: 1.5,
}
CLAIMER_THREAT = 2.5
JOIN_MIN = 2  # a lone first vote is an accusation, not a lead worth joining without evidence
JOIN_SHARE = 5  # ... and at big tables a lead needs a fifth of the living behind it
CONVINCED_RATIO = 1.6  # a Human is convinced when p_trusis is this many times the prior
CONVINCED_THREAT = 2.0  # the Trusis team is convinced by a real threat (a claimer, a role)


def best(scores: Mapping[int, float]) -> int:
    """The seat with the highest score (0 when there is none)."""
    return max(scores, key=lambda s: (scores[s], -s)) if scores else 0


def leader(votes: Mapping[int, int]) -> tuple[int, int]:
    """The seat with strictly the most visible votes and its count, or (0, top count)."""
    counts: dict[int, int] = {}
    for target in votes.values():
        counts[target] = counts.get(target, 0) + 1
    lead, top, tied = 0, 0, False
    for target, count in counts.items():
        if count > top:
            lead, top, tied = target, count, False
        elif count == top:
            tied = True
    return (0, top) if tied else (lead, top)


def is_ally(b: Beliefs, seat: int) -> bool:
    """Whether `seat` is on this bot's team as far as it can tell."""
    if seat == b.seat:
        return True
    team = b.team_of(seat)
    if b.team == TEAM_HUMAN:
        return team == TEAM_HUMAN
    if b.team == TEAM_TRUSIS:
        if team is not None:
            return team == TEAM_TRUSIS
        return seat in b.allies or b.p_trusis(seat) >= 0.6
    return False


def human_scores(b: Beliefs, seats: Iterable[int], jitter: Mapping[int, float]) -> dict[int, float]:
    """Human team: how much voting `seat` out helps (a likely TRUSIS, or a Castaway).

    Kept in `b.memo` until the beliefs move (the bot empties it when its jitter changes):
    most turns of a day see no new evidence, so this is the one computation they reuse."""
    b.refresh()
    seats = tuple(seats)
    key = ("human", seats)
    cached = b.memo.get(key)
    if cached is None:
        p, castaway, teams, _voted = b.tables()
        cached = {
            s: p.get(s, 0.0) + 0.8 * castaway.get(s, 0.0) + jitter.get(s, 0.0)
            for s in seats if s != b.seat and teams.get(s) != TEAM_HUMAN
        }
        b.memo[key] = cached
    return dict(cached)


def threat(b: Beliefs, seat: int) -> float:
    """Trusis team: how much this seat endangers the team (claims, Oracle tips, Castaway)."""
    value = 1.0 - b.p_trusis(seat)
    fact = b.known.get(seat) or b.tips.get(seat)
    if fact is not None:
        value += ROLE_THREAT.get(fact, 0.0)
    if seat in b.claimers and b.p_trusis(seat) < 0.5:
        value += CLAIMER_THREAT
    value += 1.5 * b.castaway(seat)
    if b.role == TRUSIS:  # seats that voted for a fellow TRUSIS suspect the team
        value += 0.4 * b.voted_trusis(seat)
    return value


def trusis_scores(b: Beliefs, seats: Iterable[int],
                  jitter: Mapping[int, float]) -> dict[int, float]:
    """Trusis team: the value of removing each non-ally seat (memoised like `human_scores`)."""
    b.refresh()
    seats = tuple(seats)
    key = ("trusis", seats)
    cached = b.memo.get(key)
    if cached is None:
        p, castaway, teams, voted = b.tables()
        known, tips, claimers, allies = b.known, b.tips, b.claimers, b.allies
        trusis, side = b.role == TRUSIS, b.team
        cached = {}
        for s in seats:  # `is_ally` and `threat`, inlined: this loop runs on every new vote
            team = teams.get(s)
            ps = p.get(s, 0.0)
            if s == b.seat or (side == TEAM_HUMAN and team == TEAM_HUMAN) or (
                    side == TEAM_TRUSIS and (team == TEAM_TRUSIS if team is not None
                                             else s in allies or ps >= 0.6)):
                continue
            value = 1.0 - ps
            fact = known.get(s) or tips.get(s)
            if fact is not None:
                value += ROLE_THREAT.get(fact, 0.0)
            if s in claimers and ps < 0.5:
                value += CLAIMER_THREAT
            value += 1.5 * castaway.get(s, 0.0)
            if trusis:
                value += 0.4 * voted.get(s, 0)
            cached[s] = value + jitter.get(s, 0.0)
        b.memo[key] = cached
    return dict(cached)


def convinced(b: Beliefs, seat: int) -> bool:
    """Whether this bot holds real evidence against `seat` (a fact, a claim, telling votes),
    not a hunch: only then does it vote at once, or follow a lone first accuser."""
    if not seat:
        return False
    if b.team == TEAM_HUMAN:
        if b.certain_trusis(seat) or b.castaway(seat) > 0:
            return True
        p = b.p_trusis(seat)
        return p >= CONVINCED_RATIO * b.prior and p >= b.prior + 0.1
    if b.team == TEAM_TRUSIS:
        return threat(b, seat) >= CONVINCED_THREAT
    return False


def join_min(b: Beliefs) -> int:
    """Visible votes a lead needs before a bot without evidence of its own joins it."""
    return max(JOIN_MIN, -(-len(b.alive) // JOIN_SHARE))


def _plausible(b: Beliefs, seat: int) -> bool:
    """A Human does not join a vote on a seat it believes clearer than average."""
    if b.team != TEAM_HUMAN:
        return True
    return b.p_trusis(seat) >= 0.75 * b.prior or b.castaway(seat) > 0


def day_target(b: Beliefs, seats: list[int], votes: Mapping[int, int],
               jitter: Mapping[int, float], bonus: Mapping[int, float] | None = None,
               current: int = 0) -> int:
    """The seat this bot wants voted out today, joining a leading vote when it is good enough.

    Joining matters as much as judging: a split vote is a tie, and a tie kills nobody (R23).
    A bot keeps its `current` vote unless the new one leads or is clearly better, so that
    the table settles instead of see-sawing.
    """
    choice = _day_choice(b, seats, votes, jitter, bonus)
    if not current or current == choice or current not in seats or (is_ally(b, current) \
            and b.team != "CASTAWAY"):
        return choice
    lead, _count = leader({v: t for v, t in votes.items() if t in seats})
    if current == lead or (choice != lead and b.team != "CASTAWAY"):
        return current
    return choice


def _day_choice(b: Beliefs, seats: list[int], votes: Mapping[int, int],
                jitter: Mapping[int, float], bonus: Mapping[int, float] | None) -> int:
    lead, count = leader({v: t for v, t in votes.items() if t in seats})
    if b.team == TEAM_TRUSIS:
        scores = trusis_scores(b, seats, jitter)
        margin = 1.0
    elif b.team == TEAM_HUMAN:
        scores = human_scores(b, seats, jitter)
        margin = 0.25
    else:  # Castaway: survive — go with the crowd, never stand out
        scores = {s: b.p_trusis(s) + jitter.get(s, 0.0) for s in seats if s != b.seat}
        margin = 10.0
    for seat, extra in (bonus or {}).items():
        if seat in scores:
            scores[seat] += extra
    top = best(scores)
    if lead and lead in scores and scores[lead] >= scores[top] - margin and \
            (count >= join_min(b) or convinced(b, lead)) and _plausible(b, lead):
        return lead
    if lead and lead not in scores and b.team == TEAM_TRUSIS:
        # An ally leads: put the weight on the most voted non-ally instead.
        tally = Counter(t for t in votes.values() if t in scores)
        if tally:
            return max(tally, key=lambda s: (tally[s], scores[s]))
    return top


def kill_target(b: Beliefs, seats: list[int], night_votes: Mapping[int, int],
                jitter: Mapping[int, float]) -> int:
    """The TRUSIS night kill: follow a fellow TRUSIS's vote, else the biggest threat."""
    scores = trusis_scores(b, seats, jitter)
    theirs = Counter(t for v, t in night_votes.items() if v != b.seat and t in scores)
    if theirs:
        return max(theirs, key=lambda s: (theirs[s], scores[s]))
    for seat in b.failed_kills:  # a Priest saved it: it may well be protected again
        if seat in scores:
            scores[seat] -= 1.5
    return best(scores)


def sweep_target(b: Beliefs, seats: list[int], jitter: Mapping[int, float]) -> int:
    """The most suspicious seat this Sweeper knows nothing certain about."""
    scores = {s: b.p_trusis(s) + jitter.get(s, 0.0) for s in seats
              if s != b.seat and b.certain_trusis(s) is None and b.team_of(s) is None}
    return best(scores)


def foresee_target(b: Beliefs, seats: list[int], jitter: Mapping[int, float]) -> int:
    """An unknown seat, preferring those who claimed information (likely Sweepers)."""
    scores = {s: (2.0 if s in b.claimers else 0.0) + b.p_trusis(s) + jitter.get(s, 0.0)
              for s in seats if s != b.seat and s not in b.known and s not in b.tips}
    return best(scores)


def protect_target(b: Beliefs, seats: list[int], jitter: Mapping[int, float]) -> int:
    """The seat the Trusis most likely attack tonight: a trusted claimer, else oneself."""
    scores = {s: 2.0 + b.claimers[s] + jitter.get(s, 0.0) for s in b.claimers
              if s in seats and b.p_trusis(s) < 0.5}
    return best(scores) or b.seat


def revive_target(b: Beliefs, dead: list[int]) -> int:
    """The most valuable dead ally to bring back, or 0 if none is worth a Knight's life."""
    scores: dict[int, float] = {}
    for s in dead:
        if b.team == TEAM_HUMAN:
            fact = b.known.get(s)
            value = (2.0 if s in b.claimers and b.p_trusis(s) < 0.3 else 0.0) + (
                ROLE_THREAT.get(fact, 0.0) if fact is not None and b.team_of(s) == TEAM_HUMAN
                else 0.0)
        else:
            value = 2.0 * b.p_trusis(s) if s not in b.night_victims else 0.0
            if b.certain_trusis(s):
                value = 3.0
        if value >= 1.5:
            scores[s] = value
    return best(scores)


def draw_lot(seats: list[int], people: set[int], living: int, digest: bytes) -> int:
    """D73: one seat of `seats` by lot, from `digest`, each person's seat weighed so that
    it is drawn no more often than its fair share of the whole table (1 / `living`):
    the seats spared (claimers, D70) are bots' more often than not, and a person, who
    does not claim, would otherwise carry their share (living / unclaimed, up to 1.5x)."""
    mine = [s for s in seats if s in people]
    weight = 1.0
    if mine and len(mine) < len(seats) and living > len(mine):
        weight = min(1.0, (len(seats) - len(mine)) / (living - len(mine)))
    if weight == 1.0:  # no person to weigh: the plain draw of D70
        return seats[int.from_bytes(digest, "big") % len(seats)]
    weights = [weight if s in people else 1.0 for s in seats]
    point = int.from_bytes(digest, "big") / 2.0 ** (8 * len(digest)) * sum(weights)
    for seat, w in zip(seats, weights, strict=True):
        point -= w
        if point < 0:
            return seat
    return seats[-1]
