"""Scripted people for the fairness measurements (bench/fairness.py, issue 40).

A person at a table of bots plays Day 1 in one of the ways people play, none of
which is evidence of anything (D23 says so of passing; the same holds of voting
on a hunch, early or late, and of talking much or little):

- `early`: votes for a random seat in the first second, then waits like everyone else;
- `late`: says nothing, votes for a random seat when four fifths of the day are gone;
- `pass`: passes in the first second, without a vote;
- `quiet`: says hello, votes for a random seat at mid-day;
- `chatty`: talks all day (greetings, questions, a suspicion of a random seat, which
  it then votes for at two fifths of the day).

Every style but `pass` then waits for the timer. A person's whole Day 1 is drawn at
the start (everyone is alive on Day 1), so the same seed gives the same person in
the lab and on the server.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from trusis.rules.actions import PASS, SAY, Action

STYLES = ("early", "late", "pass", "quiet", "chatty")
NAMES = ("Ada", "Basil", "Clara", "Dario", "Elsa", "Felix", "Greta", "Hugo", "Iris", "Jonas",
         "Kira", "Leo", "Mila", "Nico", "Olga", "Pablo", "Quinn", "Rosa", "Sami", "Tess")
"""Seat names: bots' names, so that a chatty person's lines name seats as people would."""

CHATTER = (
    "hi all, good luck",
    "so, who do we think it is?",
    "I don't trust {x}",
    "{y}, who do you suspect?",
    "let's not rush this",
    "{x} is very quiet...",
    "I'm just a Human, promise",
    "why {x}? anyone?",
    "ok, I vote {x}",
    "still {x} for me",
)


@dataclass(frozen=True)
class Move:
    """One thing the person does, `at` seconds into the day."""

    at: float
    action: Action


def plan(style: str, seat: int, seats: int, day: float, rng: random.Random,
         names: Mapping[int, str] | None = None) -> list[Move]:
    """The person's Day 1 in `style`, at a table of `seats` seats whose day lasts `day` s
    (`names`: the seats' names, NAMES by default)."""
    others = [s for s in range(1, seats + 1) if s != seat]
    x = rng.choice(others)
    y = rng.choice([s for s in others if s != x])
    names = names or {s: NAMES[s - 1] for s in range(1, seats + 1)}

    def say(at: float, text: str) -> Move:
        return Move(at, Action(SAY, seat, text=text.format(x=names[x], y=names[y])))

    vote = Action("vote", seat, x)
    if style == "early":
        return [Move(1.0, vote)]
    if style == "late":
        return [Move(0.8 * day, vote)]
    if style == "pass":
        return [Move(0.5, Action(PASS, seat))]
    if style == "quiet":
        return [say(2.0, "hi"), Move(0.5 * day, vote)]
    if style == "chatty":
        moves = [say(2.0 + i * day / 9, line) for i, line in enumerate(CHATTER[:8])]
        moves.append(Move(0.4 * day, vote))
        moves += [say(0.45 * day + i * day / 9, line) for i, line in enumerate(CHATTER[8:])]
        return sorted(moves, key=lambda m: m.at)
    raise ValueError(f"unknown style {style!r}; choose one of {', '.join(STYLES)}")
