"""Helpers for the rule tests: build a table from an explicit deal and play actions on it."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from trusis import (
    Action,
    Event,
    GameState,
    IllegalAction,
    apply,
    concrete_actions,
    new_game,
    view,
)

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon",
         "Kim", "Lea", "Max", "Ned", "Oli", "Pam", "Quin", "Ray", "Sue", "Tom",
         "Uma", "Val", "Wes", "Xia", "Yan", "Zoe", "Abe", "Bea", "Cal", "Dot"]


def table(*deal: str) -> GameState:
    """A new game with this explicit deal (seat 1 gets the first role)."""
    return new_game(NAMES[: len(deal)], deal=list(deal))


def act(state: GameState, do: str, seat: int | None = None, target: int | None = None,
        shown: int | None = None, text: str | None = None, to: int | None = None,
        by: str | None = None) -> list[Event]:
    """Apply one action (it must be accepted) and return its events."""
    return apply(state, Action(do, seat, target, shown, text, to, by))


def refuse(state: GameState, do: str, seat: int | None = None, target: int | None = None,
           shown: int | None = None, text: str | None = None, to: int | None = None,
           by: str | None = None) -> IllegalAction:
    """Apply an action that must be refused; check the state did not change at all."""
    before = state.to_dict()
    with pytest.raises(IllegalAction) as info:
        apply(state, Action(do, seat, target, shown, text, to, by))
    assert state.to_dict() == before
    return info.value


def pass_all(state: GameState) -> list[Event]:
    """Every alive, present seat that has not passed passes, in seat order: the phase ends."""
    kind, number = state.kind, state.number
    events: list[Event] = []
    for seat in range(1, state.n + 1):
        if (state.kind, state.number) != (kind, number) or not state.running:
            break
        if state.alive[seat] and not state.passed[seat] and not state.left[seat]:
            events += act(state, "pass", seat)
    return events


def day_vote(state: GameState, votes: dict[int, int]) -> list[Event]:
    """Cast these day votes, then everyone passes."""
    assert state.kind == "day"
    events: list[Event] = []
    for voter, target in votes.items():
        events += act(state, "vote", voter, target)
    return events + pass_all(state)


def night(state: GameState, actions: Iterable[tuple[str, int, int]]) -> list[Event]:
    """Make these night choices (do, seat, target), then everyone passes."""
    assert state.kind == "night"
    events: list[Event] = []
    for do, seat, target in actions:
        events += act(state, do, seat, target)
    return events + pass_all(state)


def codes(events: Iterable[Event]) -> list[str]:
    return [e.code for e in events]


def find(events: Iterable[Event], code: str) -> list[Event]:
    return [e for e in events if e.code == code]


def public_codes(events: Iterable[Event]) -> list[str]:
    return [e.code for e in events if e.audience == "public"]


def seen_by(events: Iterable[Event], seat: int | None) -> list[Event]:
    return [e for e in events if e.visible_to(seat)]


def dead(state: GameState) -> list[int]:
    return [s for s in range(1, state.n + 1) if not state.alive[s]]


def known(state: GameState, seat: int) -> dict[str, Any]:
    """What `seat`'s own view says it knows (seat -> fact)."""
    result: dict[str, Any] = view(state, seat)["known"]
    return result


def random_play(state: GameState, rng: random.Random, pass_chance: float,
                limit: int = 3000) -> Iterator[Action]:
    """Random legal play until the game ends: a random seat takes one of its concrete
    actions (never `leave`), or passes instead with `pass_chance`; yields each action
    once it is applied."""
    for _ in range(limit):
        if not state.running:
            return
        seat = rng.randint(1, state.n)
        options = [a for a in concrete_actions(state, seat) if a.do != "leave"]
        if not options:
            continue
        action = rng.choice(options)
        if action.do != "pass" and rng.random() < pass_chance:
            action = Action("pass", seat)
        apply(state, action)
        yield action
