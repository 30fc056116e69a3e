"""The page's words (issue 38): a button's name holds its visible label in every language
(WCAG 2.5.3: French said "M'asseoir ici" for a visible "S'asseoir ici"); Italian says "host"
for a table's host and "ospite" for a guest, one word each; names are shown as their players
wrote them, at the start of a sentence too ("gnp.exe has passed", never "Gnp.exe"); and a
chat command's answer ("Sent: you pass.") goes with its phase."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from a11y_support import command, spoken, wait_spoken
from test_web_support import (
    DESKTOP,
    Helper,
    Watched,
    create_table,
    needs_chromium,
    shot,
    sign_in,
    sit,
    sit_and_fill,
    start,
)

LOCALES = Path(__file__).parent.parent / "src" / "trusis" / "web" / "locales"


def text_of(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def test_italian_has_one_word_for_a_host_and_one_for_a_guest() -> None:
    """A table's host is "host" (l'host), a player without an account "ospite": every
    string that speaks of one uses its word, and never the other's ("chi ospita", "ospiti"
    for hosting, "ospite" for a host all were there)."""
    en = json.loads((LOCALES / "en.json").read_text(encoding="utf-8"))
    it = json.loads((LOCALES / "it.json").read_text(encoding="utf-8"))
    wrong = []
    for key, english in en.items():
        said = text_of(it[key]).lower()
        host = re.search(r"\bhost(s|ed|ing)?\b", text_of(english), re.I)
        guest = re.search(r"\bguests?\b", text_of(english), re.I)
        if host and ("host" not in said or "ospit" in said):
            wrong.append((key, it[key]))
        if guest and ("ospit" not in said or "host" in said):
            wrong.append((key, it[key]))
    assert wrong == []
    assert not [k for k, v in it.items() if "chi ospita" in text_of(v).lower()]


NAMES_AND_LABELS = """() => [...document.querySelectorAll('button[aria-label], a[aria-label]')]
  .filter((el) => el.offsetParent !== null)
  .map((el) => { const copy = el.cloneNode(true);
    copy.querySelectorAll('[aria-hidden=true], .sr-only').forEach((n) => n.remove());
    return [el.getAttribute('aria-label'), copy.textContent.replace(/\\s+/g, ' ').trim()]; })"""


@needs_chromium
def test_a_controls_name_holds_its_visible_label_in_every_language(server: Any, browser: Any
                                                                   ) -> None:
    """WCAG 2.5.3: in the waiting room (host's tools, free seats) and at the table, every
    button named by an aria-label says its visible words first, in en, fr and it."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    try:
        sign_in(page, server.url, "Ann")
        create_table(page, 5)
        sit(page)
        bad: list[tuple[str, str, str]] = []
        for code in ("fr", "it", "en"):
            page.locator("#lang-select").select_option(code)
            page.wait_for_function("c => document.documentElement.lang === c", arg=code)
            page.wait_for_timeout(300)
            for name, label in page.evaluate(NAMES_AND_LABELS):
                if label and not name.startswith(label):
                    bad.append((code, name, label))
            if code == "fr":
                shot(page, "words-waiting-fr")
        assert bad == []
        assert watched.problems() == []
    finally:
        context.close()


@needs_chromium
def test_names_as_written_and_an_answer_that_goes_with_its_phase(server: Any, browser: Any
                                                                ) -> None:
    """A player called "gnp.exe" votes and passes: the log, the chat's system lines and the
    announcer say "gnp.exe (seat 2) …". Ann types /pass: "Sent: you pass." shows under the
    chat, and goes once the night has begun (after showing 3 s at least)."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    helper = Helper(server, "gnp.exe")
    try:
        sign_in(page, server.url, "Ann")
        table_id = create_table(page, 8, day_seconds=120)  # 8: day 1 cannot end the game
        sit_and_fill(page, table_id, helper.guest)
        start(page)
        helper.connect(table_id)
        assert helper.player is not None
        helper.player.command(do="vote", target=1)  # R20
        wait_spoken(page, "gnp.exe (seat 2) votes for Ann (seat 1)")
        page.locator("#tab-d-log").click()
        page.locator(".log-text", has_text="gnp.exe (seat 2) votes for Ann (seat 1)").wait_for()
        page.locator("#tab-d-chat").click()
        answer = command(page, "/pass")  # R11
        assert answer == "Sent: you pass.", answer
        assert page.locator(".chat-answer").is_visible()
        helper.pass_now()
        wait_spoken(page, "gnp.exe (seat 2) has passed")
        page.locator("body.theme-night").wait_for()
        page.locator(".chat-answer").wait_for(state="hidden", timeout=5000)  # 3 s at least
        page.locator("#tab-d-log").click()
        page.locator(".log-text", has_text="gnp.exe (seat 2) has passed").wait_for()
        shot(page, "words-names-as-written")
        everything = " ".join([*spoken(page), page.locator(".log").inner_text()])
        assert "Gnp.exe" not in everything
        assert watched.problems() == []
    finally:
        helper.close()
        context.close()
