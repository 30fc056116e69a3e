"""`trusis play`'s role card says what a TRUSIS really knows: its fellow TRUSIS when there are
any (R7), and that it is the only one when the standard set deals one (R2, 5-7 seats)."""

from __future__ import annotations

import pytest
from rich.console import Console

from trusis.play import PlayOptions, ScriptedTerminal, Session
from trusis.rules.i18n import render
from trusis.rules.setup import deal_roles


def intro(players: int, lang: str) -> tuple[str, str]:
    """The start of a game played as a TRUSIS seat (the first seed that deals one to seat
    1 at this size), flattened to one line; and the seat's own card text."""
    seed = next(s for s in range(100) if deal_roles(players, s, None)[0] == "TRUSIS")
    console = Console(record=True, width=300, no_color=True, force_terminal=False)
    options = PlayOptions(players=players, seat=1, seed=seed, seed_given=True, name="Ann",
                          bots="heuristic", lang=lang)
    Session(options, console, ScriptedTerminal(["quit"], console)).run()
    out = console.export_text()
    return " ".join(out.replace("│", " ").split()), out


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_R2_the_lone_trusis_card_says_it_is_the_only_one(lang: str) -> None:
    flat, _ = intro(5, lang)
    assert render("play.power.TRUSIS_alone", {}, lang) in flat
    assert render("play.power.TRUSIS", {}, lang) not in flat


def test_R7_two_trusis_read_of_their_fellow() -> None:
    flat, _ = intro(8, "en")
    assert render("play.power.TRUSIS", {}, "en") in flat
    assert "the only Trusis" not in flat
