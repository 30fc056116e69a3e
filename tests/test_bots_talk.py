"""Bots talk like players (issue 40): they answer direct questions in the table's language,
say why they vote, and never say the same line twice in a row."""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import pairwise

import pytest

from trusis.bots import BotDriver, create_bot, phrases, questions
from trusis.bots.talk import TalkingBot
from trusis.lab.simulate import game_seed, play_one
from trusis.rules.actions import Action
from trusis.rules.formats import EventData
from trusis.table.record import load_record
from trusis.table.table import Table

NAMES = ["Ann", "Basil", "Clara", "Dario", "Elsa", "Felix", "Greta", "Hugo"]
DEAL = ["HUMAN", "SWEEPER", "TRUSIS", "HUMAN", "PRIEST", "TRUSIS", "BUTCHER", "HUMAN"]
ASKED = {  # (language, text) -> what it asks: (kind, of whom, about whom, role)
    ("en", "why Clara?"): (questions.WHY, 0, 3, ""),
    ("en", "Basil, why Clara?"): (questions.WHY, 2, 3, ""),
    ("en", "basil why me??"): (questions.WHY, 2, 1, ""),
    ("en", "Who do you suspect, Basil?"): (questions.WHO, 2, 0, ""),
    ("en", "are you the sweeper, Basil?"): (questions.ROLE, 2, 0, "SWEEPER"),
    ("en", "Dario are you a trusis?"): (questions.ROLE, 4, 0, "TRUSIS"),
    ("fr", "pourquoi Clara ?"): (questions.WHY, 0, 3, ""),
    ("fr", "Basil, pourquoi moi ?"): (questions.WHY, 2, 1, ""),
    ("fr", "Basil, qui soupçonnes-tu ?"): (questions.WHO, 2, 0, ""),
    ("fr", "Basil, es-tu le Balayeur ?"): (questions.ROLE, 2, 0, "SWEEPER"),
    ("it", "perché Clara?"): (questions.WHY, 0, 3, ""),
    ("it", "Basil, perché io?"): (questions.WHY, 2, 1, ""),
    ("it", "Basil, chi sospetti?"): (questions.WHO, 2, 0, ""),
    ("it", "Basil, sei lo Spazzino?"): (questions.ROLE, 2, 0, "SWEEPER"),
}


@pytest.mark.parametrize(("lang", "text"), sorted(ASKED))
def test_direct_questions_are_understood_in_english_french_and_italian(lang: str,
                                                                       text: str) -> None:
    kind, to, about, role = ASKED[(lang, text)]
    assert questions.parse(text, NAMES, 1) == questions.Question(kind, to, about, role)


@pytest.mark.parametrize("text", ["I don't trust Clara", "vote Clara", "hi all, good luck",
                                  "je suis le Balayeur", "Basil est louche"])
def test_statements_are_no_questions(text: str) -> None:
    assert questions.parse(text, NAMES, 1) is None


def table(lang: str, seed: int = 4) -> tuple[Table, BotDriver]:
    """Ann (seat 1) is a person; seats 2-8 are `normal` bots speaking `lang`. Basil (2) is
    the Sweeper and says so on Day 1; Dario (4) is a plain Human."""
    game = Table(NAMES, seed, deal=DEAL)
    driver = BotDriver(game, {s: create_bot("normal", s, seed, lang) for s in range(2, 9)})
    driver.react(rounds=2)
    return game, driver


def answer(game: Table, driver: BotDriver, text: str, by: int, to: int | None = None
           ) -> EventData:
    """Ann says `text` (to everyone, or whispers it to `to`); the first line `by` says
    after it, within six bot rounds."""
    start = game.stream_length(1)
    game.play(Action("say", 1, text=text, to=to))
    for _ in range(6):
        driver.react(rounds=1)
        for event in game.events_after(1, start):
            if event["code"] in ("said", "whispered") and event["params"]["seat"] == by:
                return event
    raise AssertionError(f"no answer from seat {by} to {text!r}")


QUESTIONS = {  # per language: who do you suspect, why Clara, are you the Sweeper, a Trusis
    "en": ("Basil, who do you suspect?", "Dario, why Clara?", "Basil, are you the Sweeper?",
           "Dario, are you the Sweeper?", "Dario, are you a Trusis?"),
    "fr": ("Basil, qui soupçonnes-tu ?", "Dario, pourquoi Clara ?",
           "Basil, es-tu le Balayeur ?", "Dario, es-tu le Balayeur ?",
           "Dario, es-tu un Trusis ?"),
    "it": ("Basil, chi sospetti?", "Dario, perché Clara?", "Basil, sei lo Spazzino?",
           "Dario, sei lo Spazzino?", "Dario, sei un Trusis?"),
}


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_bots_answer_direct_questions_in_the_tables_language(lang: str) -> None:
    game, driver = table(lang)
    seats = {name: seat for seat, name in enumerate(NAMES, 1)}

    def kind_of(event: EventData) -> str:
        read = phrases.read(event["params"]["text"], seats, lang)
        assert read is not None, (lang, event["params"]["text"])
        return read[0]

    who, why, sweeper, not_sweeper, trusis = QUESTIONS[lang]
    assert kind_of(answer(game, driver, who, 2)) in (phrases.SUSPECT_NAME,
                                                       phrases.SUSPECT_NOBODY)
    assert kind_of(answer(game, driver, why, 4)) in (*phrases.REASONS, phrases.NOT_VOTING)
    assert kind_of(answer(game, driver, sweeper, 2)) == phrases.ROLE_YES  # it said so
    # Everyone who has not claimed a Human power role keeps it to themselves: holding it
    # or not, the answer is the same (the Trusis would know whom to kill).
    assert kind_of(answer(game, driver, not_sweeper, 4)) == phrases.ROLE_COY
    assert kind_of(answer(game, driver, trusis, 4)) == phrases.NOT_TRUSIS


def test_a_whispered_question_gets_a_whispered_answer() -> None:
    game, driver = table("en")
    event = answer(game, driver, "who do you suspect?", 4, to=4)
    assert event["code"] == "whispered" and event["params"]["to"] == 1


def test_a_question_to_nobody_in_particular_gets_one_answer() -> None:
    """'who do you suspect?' to the table: the first living seat after the asker's answers,
    and no other bot does."""
    game, driver = table("en")
    start = game.stream_length(1)
    game.play(Action("say", 1, text="who do you suspect?"))
    driver.react(rounds=6)
    seats = {name: seat for seat, name in enumerate(NAMES, 1)}
    kinds = {e["params"]["seat"]: (phrases.read(e["params"]["text"], seats) or ("", []))[0]
             for e in game.events_after(1, start) if e["code"] == "said"}
    answers = [seat for seat, kind in kinds.items()
               if kind in (phrases.SUSPECT_NAME, phrases.SUSPECT_NOBODY)]
    assert answers == [2]


def lines(lang: str, players: int, games: int) -> Iterator[tuple[int, list[EventData]]]:
    """Each game's chat events, `normal` bots everywhere, by game."""
    bots = dict.fromkeys(("HUMAN", "TRUSIS", "CASTAWAY"), "normal")
    for i in range(games):
        result = play_one(players, game_seed(40, players, i), None, bots, lang, i, True)
        assert result.record is not None
        game = Table.from_record(load_record(json.dumps(result.record)))
        yield i, [e for e in game.events_after(None, 0) if e["code"] == "said"]


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_never_the_same_line_twice_in_a_row(lang: str) -> None:
    """No bot says what it said last, nor what the table just heard; and bots explain
    their votes, in the table's language, without talking at every turn."""
    reasons = 0
    for i, said in lines(lang, 10, 4):
        last: dict[int, str] = {}
        for before, event in zip([None, *said], said, strict=False):
            seat, text = event["params"]["seat"], event["params"]["text"]
            assert last.get(seat) != text, (i, seat, text)
            assert before is None or before["params"]["text"] != text, (i, text)
            last[seat] = text
            read = phrases.read(text, {f"P{s}": s for s in range(1, 11)}, lang)
            reasons += read is not None and read[0] in phrases.REASONS
    assert reasons >= 4


def test_a_bot_leaves_a_turn_between_two_lines_of_conversation() -> None:
    """Asked three questions at once, a bot answers one every other turn, not all in a row."""
    game, driver = table("en")
    basil = driver.bots[2]
    assert isinstance(basil, TalkingBot)
    for text in ("Basil, why Clara?", "Basil, who do you suspect?", "Basil, why Dario?"):
        game.play(Action("say", 1, text=text))
    turns = []
    for _ in range(6):
        seen = game.stream_length(2)
        action = driver.decide(2)
        if action is not None:
            game.play(action)
        turns.append(any(e["code"] == "said" and e["params"]["seat"] == 2
                         for e in game.events_after(2, seen)))
    assert sum(turns) >= 2
    assert not any(a and b for a, b in pairwise(turns)), turns


def test_the_lab_stays_deterministic_with_talking_bots() -> None:
    """Same seed, same game — chat included — for the talking bots (docs/bots.md)."""
    bots = dict.fromkeys(("HUMAN", "TRUSIS", "CASTAWAY"), "normal")
    seed = game_seed(7, 10, 3)
    first = play_one(10, seed, None, bots, "it", 3, True)
    again = play_one(10, seed, None, bots, "it", 3, True)
    assert first.record == again.record
