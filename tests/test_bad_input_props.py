"""Issue 7, as properties: `apply` given actions of any Python type in every field.

Whatever `do`, `seat`, `target`, `shown`, `text`, `to` and `by` hold — bools,
floats, str, bytes, huge ints, containers, arbitrary objects — the engine
answers with events or an `IllegalAction`; a refusal changes no seat's view
(nor the state); an accepted action leaves a state that round-trips through
`to_dict`, and the record the `Game` exports loads again and replays to the
same game.
"""

from __future__ import annotations

import enum
import json
import os
import random
from decimal import Decimal
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from randomgames import tables
from trusis import Action, Game, GameState, IllegalAction, concrete_actions, view
from trusis.rules.actions import DOS
from trusis.rules.errors import quoted
from trusis.table.game import replay
from trusis.table.record import load_record


class Colour(enum.IntEnum):
    RED = 1


class MyInt(int):
    pass


class MyStr(str):
    pass


class BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


ODD: tuple[Any, ...] = (
    True, False, 1.0, 2.5, float("nan"), float("inf"), -0.0, "1", "2", b"x", b"1", "",
    " ", "\n", "bot", "Ann\ud800", "a\x00b", "x" * 501, "\u2028", 10**5000, -(10**5000), 2**64,
    Colour.RED, MyInt(1), MyStr("vote"), MyStr("hi"), Decimal(1), Fraction(1, 1), 1j,
    [1], [2, 3], ("a",), {1: 2}, {1}, frozenset(), object(), BadRepr(), Ellipsis, int,
    None,
)

ANY = st.one_of(
    st.sampled_from(ODD),
    st.integers(min_value=-3, max_value=33),
    st.integers(),
    st.floats(),
    st.text(max_size=30),
    st.binary(max_size=8),
    st.lists(st.one_of(st.integers(0, 9), st.text(max_size=3)), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
FIELDS = ("do", "seat", "target", "shown", "text", "to", "by")
DO = st.one_of(st.sampled_from(sorted(DOS)), ANY)


def seat_values(n: int) -> st.SearchStrategy[Any]:
    return st.one_of(st.integers(min_value=1, max_value=n), st.none(), ANY)


@st.composite
def odd_actions(draw: st.DrawFn, n: int) -> Action:
    seat = seat_values(n)
    return Action(draw(DO), draw(seat), draw(seat), draw(seat),
                  draw(st.one_of(st.text(max_size=20), ANY)), draw(seat),
                  draw(st.one_of(st.none(), st.just("bot"), st.text(max_size=10), ANY)))


def views_of(state: GameState) -> str:
    """Every seat's view (and the public one), serialised: what a refusal must not change."""
    return json.dumps([view(state, s) for s in (None, *range(1, state.n + 1))],
                      sort_keys=True, allow_nan=False)


def state_text(state: GameState) -> str:
    return json.dumps(state.to_dict(), sort_keys=True, allow_nan=False)


def advance(game: Game, rng: random.Random, steps: int) -> None:
    """Play `steps` random legal actions (and a timeout now and then)."""
    for _ in range(steps):
        state = game.state
        if not state.running:
            return
        if rng.random() < 0.05:
            game.play(Action("timeout"))
            continue
        seat = rng.choice(state.living or (1,))
        options = list(concrete_actions(state, seat))
        if options:
            game.play(rng.choice(options))


# More examples with TRUSIS_SLOW=1, as the other property tests.
SETTINGS = settings(max_examples=800 if os.environ.get("TRUSIS_SLOW") else 60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(tables(max_players=12), st.integers(0, 2**32), st.integers(0, 60), st.data())
def test_any_action_is_a_result_or_a_refusal_and_a_refusal_changes_nothing(
        table: Any, seed: int, steps: int, data: st.DataObject) -> None:
    game = table.new_game()
    advance(game, random.Random(seed), steps)
    for _ in range(data.draw(st.integers(1, 12))):
        state = game.state
        action = data.draw(odd_actions(state.n))
        note("action: " + ", ".join(f"{k}={quoted(getattr(action, k))}" for k in FIELDS))
        before_views, before = views_of(state), state_text(state)
        try:
            events = game.play(action)
        except IllegalAction as refusal:
            assert views_of(state) == before_views
            assert state_text(state) == before
            reason = refusal.message()
            assert isinstance(reason, str) and "\n" not in reason and reason.isprintable()
            json.dumps(refusal.as_dict(), allow_nan=False)
            for lang in ("fr", "it"):
                assert "\n" not in refusal.message(lang)
            continue
        assert isinstance(events, list)
        copy = GameState.from_dict(json.loads(state_text(state)))
        assert state_text(copy) == state_text(state)
    # Whatever was accepted, the exported record loads again and replays to the same game.
    text = json.dumps(game.record.to_dict(), allow_nan=False)
    played = replay(load_record(text))
    assert not played.refused
    assert state_text(played.state) == state_text(game.state)


@SETTINGS
@given(st.lists(st.one_of(st.text(max_size=12), st.sampled_from(ODD)), min_size=5,
                max_size=9), st.one_of(st.integers(), ANY))
def test_new_game_takes_clean_names_and_plain_int_seeds_or_refuses(
        names: list[Any], seed: Any) -> None:
    from trusis import SetupError, new_game

    try:
        state = new_game(names, seed)
    except SetupError as refusal:
        assert "\n" not in str(refusal) and str(refusal).isprintable()
        return
    assert type(seed) is int
    for name in state.names[1:]:
        assert name and name == name.strip() and name.isprintable() and "  " not in name
    game = Game(names, seed)
    text = json.dumps(game.record.to_dict(), allow_nan=False)
    again = replay(load_record(text))
    assert state_text(again.state) == state_text(game.state)
