"""Every refusal and event code renders in English, French and Italian (docs/ux.md "Languages")."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any, get_args

import pytest

from trusis.rules.errors import IllegalAction
from trusis.rules.i18n import LANGUAGES, catalogue, render
from trusis.rules.roles import ROLE_TABLE

EVENT_CODES = [
    "choice_made", "choice_withdrawn", "died", "foresee_result", "game_over",
    "gravedigger_result", "gravekeeper_result", "illusion_made", "left", "nobody_killed",
    "operator_draw", "passed", "phase_limit", "phase_started", "quiet_night", "replaced",
    "returned", "revived",
    "said",
    "stalemate",
    "sweep_result", "timed_out", "trusis_vote", "trusis_vote_withdrawn", "vote_cast",
    "vote_killed", "vote_withdrawn", "whispered",
]
REFUSAL_CODES = [
    "actor_dead", "actor_left", "already_foreseen", "already_left", "already_passed",
    "already_swept", "cannot_withdraw", "empty_message", "game_over", "message_too_long",
    "missing_shown", "night_vote_not_trusis", "no_such_seat", "not_left", "recipient_left",
    "shown_dead", "shown_self", "target_alive", "target_dead", "target_self",
    "timeout_finished", "unknown_action", "whisper_self", "wrong_phase_day",
    "wrong_phase_night", "wrong_role",
]


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_catalogues_have_the_same_keys_and_placeholders() -> None:
    english = catalogue("en")
    for lang in LANGUAGES:
        other = catalogue(lang)
        assert set(other) == set(english), lang
        for key, template in english.items():
            assert fields(other[key]) == fields(template), (lang, key)


def test_D53_a_sanction_says_its_end_and_reason_in_every_language() -> None:
    for lang in LANGUAGES:
        page = _web(lang)
        assert "{until}" in str(page["err.banned"]) and "{reason}" in str(page["ban.reason"])
        assert {"ban.title", "ban.after", "ban.after_never"} <= set(page), lang
        engine = catalogue(lang)
        assert "{until}" in engine["refusal.muted"], lang
        assert {"until.time", "until.date", "until.never"} <= set(engine), lang


@pytest.mark.parametrize("code", EVENT_CODES)
def test_every_event_code_has_a_message(code: str) -> None:
    for lang in LANGUAGES:
        assert f"event.{code}" in catalogue(lang)


@pytest.mark.parametrize("code", REFUSAL_CODES)
def test_every_refusal_code_has_a_message(code: str) -> None:
    for lang in LANGUAGES:
        assert f"refusal.{code}" in catalogue(lang)


def test_refusals_render_with_names_in_each_language() -> None:
    """R14: the reason reads well to a player, with the names the table uses."""
    names = {5: "Eve", 3: "Cid"}
    error = IllegalAction("actor_dead", seat=5)
    assert error.message() == "seat 5 is dead"
    assert error.message("en", names.__getitem__) == "Eve is dead"
    assert "Eve" in error.message("fr", names.__getitem__)
    assert "Eve" in error.message("it", names.__getitem__)
    wrong = IllegalAction("wrong_role", power="sweep", holders=["SWEEPER"])
    assert wrong.message() == "only the Sweeper can sweep"
    assert "Balayeur" in wrong.message("fr")
    assert "Spazzino" in wrong.message("it")
    assert IllegalAction("target_self", power="vote").message() == "you cannot vote for yourself"
    assert IllegalAction("already_swept").message() == "the Sweeper has already swept tonight"


def test_R53_a_seat_handed_to_a_bot_is_played_by_a_bot() -> None:
    """It read "seat 2 is now played by bot"; a name is still said as it is."""
    assert render("event.replaced", {"seat": 2, "by": "bot"}) == "seat 2 is now played by a bot"
    assert render("event.replaced", {"seat": 2, "by": "bot"}, "fr").endswith("par un bot")
    assert render("event.replaced", {"seat": 2, "by": "bot"}, "it").endswith("da un bot")
    assert render("event.replaced", {"seat": 2, "by": "Newt"}).endswith("played by Newt")


def test_results_render_role_and_fact_names() -> None:
    text = render("event.foresee_result", {"target": 3, "role": "WISE_WOMAN"}, "it")
    assert "Suocera" in text and "posto 3" in text
    assert "neither" in render("event.sweep_result", {"target": 2, "result": "NEITHER"})
    assert "Nuit 2" in render("event.phase_started", {"kind": "night", "number": 2}, "fr")


def test_no_placeholder_is_left_unrendered() -> None:
    samples = {"seat": 1, "target": 2, "shown": 3, "to": 4, "voter": 5, "role": "ORACLE",
               "result": "TRUSIS", "power": "vote", "holders": ["PRIEST"], "kind": "day",
               "winner": "HUMAN", "seats": [1]}
    for lang in LANGUAGES:
        for key, template in catalogue(lang).items():
            params = {name: samples.get(name, 7) for name in fields(template)}
            params.pop("power_on", None)  # derived from `power` by render
            if "power_on" in fields(template):
                params["power"] = "vote"
            text = render(key, params, lang)
            assert not re.search(r"\{[a-z_]+\}", text), (lang, key, text)


def test_role_names_in_three_languages() -> None:
    """The role table of docs/rules.md §2, names included (Macellaio is a decision)."""
    by_id = {r.id: r for r in ROLE_TABLE}
    assert by_id["BUTCHER"].it == "Macellaio"
    assert by_id["GRAVEDIGGER"].fr == "Profanatrice"
    assert by_id["WISE_WOMAN"].name("fr") == "Commère"
    assert by_id["WHITE_KNIGHT"].name("it") == "Paladino bianco"
    assert len(ROLE_TABLE) == 14


WEB_LOCALES = Path(__file__).parent.parent / "src/trusis/web/locales"
WEB = WEB_LOCALES.parent


def _web(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((WEB_LOCALES / f"{lang}.json").read_text("utf-8"))
    return data


def _placeholders(value: Any) -> set[str]:
    texts = value.values() if isinstance(value, dict) else [value]
    return {name for text in texts for name in re.findall(r"\{(\w+)\}", text)}


def test_the_pages_strings_have_the_same_keys_placeholders_and_plurals_in_each_language(
        ) -> None:
    """docs/ux.md, "Languages": every string of the page in en, fr and it, with the same
    placeholders, and a plural (an object of Intl.PluralRules forms) wherever English has
    one; every key the scripts name literally exists."""
    english = _web("en")
    for lang in ("fr", "it"):
        other = _web(lang)
        assert set(other) == set(english), (lang, set(other) ^ set(english))
        for key, value in english.items():
            assert _placeholders(other[key]) == _placeholders(value), (lang, key)
            assert isinstance(other[key], dict) == isinstance(value, dict), (lang, key)
            if isinstance(value, dict):
                assert "other" in other[key] and "one" in other[key], (lang, key)
    named = {key for script in WEB.glob("*.js")
             for key in re.findall(r"""\bt\(\s*["']([\w.]+)["']""", script.read_text("utf-8"))}
    assert named and named <= set(english), named - set(english)


def test_the_moderation_page_says_every_audit_action_in_each_language() -> None:
    """The page shows each line's action translated (`mod.action_*`), the lines written
    before lifts said what they lifted included (`lift`)."""
    from trusis.server.data.audit import AuditAction

    for lang in ("en", "fr", "it"):
        strings = _web(lang)
        for action in (*get_args(AuditAction), "lift"):
            assert f"mod.action_{action}" in strings, (lang, action)
