"""Play again in real Chromium (issue 21, docs/rules.md D19): the host proposes a rematch
on the end screen (1280 px), a French friend on a phone (390 px) joins it with one click, the
bots keep their seats, the new game starts, and both pages show the series 1–0."""

from __future__ import annotations

import contextlib
import re
import time

import httpx
from playwright.sync_api import Page

from test_web_support import (
    DESKTOP,
    PHONE,
    Watched,
    chromium,
    create_table,
    fill_with_bots,
    finished,
    needs_chromium,
    pass_now,
    phase_of,
    shot,
    sign_in,
    sit,
    start,
)

pytestmark = needs_chromium

SCORE = {"HUMAN": "1 – 0", "TRUSIS": "0 – 1", "CASTAWAY": "0 – 0", "DRAW": "0 – 0"}
"""The series' score (Humans – Trusis) after one game, by its winner."""


def act_then_pass(page: Page) -> None:
    """Aim this seat's vote or power at the highest living other seat, then pass: deaths
    keep coming, so the game ends with a winner, not in the no-death draw of passers."""
    power = page.locator(".btn-power:not([disabled])")
    if power.count() and not page.locator(".actions-choices").inner_text().strip():
        with contextlib.suppress(Exception):
            page.locator(".seat:not(.is-dead):not(.is-me)").last.click(timeout=2000)
            power.first.click(timeout=2000)
            page.wait_for_timeout(200)
    pass_now(page)


def both_to_the_end(pages: list[Watched], timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while not all(finished(w.page) for w in pages):
        assert time.monotonic() < deadline, f"the game did not end; at {phase_of(pages[0].page)}"
        for w in pages:
            if not finished(w.page):
                act_then_pass(w.page)
        pages[0].page.wait_for_timeout(300)
    for w in pages:
        w.page.locator(".endscreen .end-roles tbody tr").first.wait_for()


def test_the_host_proposes_a_rematch_and_a_friend_joins_with_one_click(
        server) -> None:  # type: ignore[no-untyped-def]
    with chromium() as browser:
        ann = Watched(browser.new_context(viewport=DESKTOP, locale="en-GB"))
        bob = Watched(browser.new_context(viewport=PHONE, locale="fr-FR", is_mobile=True,
                                          has_touch=True))  # a French friend on a phone
        sign_in(ann.page, server.url, "Ann")
        old = create_table(ann.page, 5)
        sit(ann.page)
        bob.page.goto(f"{server.url}/t/{old}")
        bob.page.locator("form.name-form input").fill("Bob")
        bob.page.locator("form.name-form button[type=submit]").click()
        sit(bob.page)
        ann.page.locator(".wait-seat.is-taken").nth(1).wait_for()
        fill_with_bots(ann.page)
        bots = sorted(t for t in ann.page.locator(".wait-seat .wait-name").all_inner_texts()
                      if t.startswith("⚙"))
        assert len(bots) == 3
        start(ann.page)
        bob.page.locator(".seat").first.wait_for()
        both_to_the_end([ann, bob])

        # The host: "Play again" on the end screen, then the new table's waiting room.
        button = ann.page.locator(".btn-rematch")
        button.wait_for()
        assert "The same people" in ann.page.locator(".rematch").inner_text()
        shot(ann.page, "rematch-1280-end-host")
        button.click()
        ann.page.wait_for_url(re.compile(r"/t/(?!" + old + r")[^/?#]+"))
        new = ann.page.url.rsplit("/t/", 1)[1].split("?")[0]
        ann.page.locator(".waiting h1").wait_for()
        ann.page.locator(".wait-seat.is-me").wait_for()  # who proposes sits at once
        kept = ann.page.locator(".wait-seat", has=ann.page.locator(".badge-kept"))
        kept.wait_for()
        assert "Bob" in kept.inner_text()
        assert "Bob (seat 2)" in ann.page.locator(".rematch-host-hint").inner_text()
        assert ann.page.locator(".btn-start[disabled]").count() == 1  # the start waits for Bob
        assert "4/5" in ann.page.locator(".waiting-grid h2").first.inner_text()
        shot(ann.page, "rematch-1280-waiting-kept")
        assert sorted(t for t in ann.page.locator(".wait-seat .wait-name").all_inner_texts()
                      if t.startswith("⚙")) == bots  # the bots kept their seats

        # The friend, on the phone: the offer arrives on the end screen; one click joins.
        join = bob.page.locator(".btn-join")
        join.wait_for()
        # A watcher with no seat may take a bot's seat, which the bot only keeps (D19).
        cid = Watched(browser.new_context(viewport=DESKTOP, locale="en-GB"))
        cid.page.goto(f"{server.url}/t/{new}")
        cid.page.locator("form.name-form input").fill("Cid")
        cid.page.locator("form.name-form button[type=submit]").click()
        cid.page.locator(".btn-take-bot").nth(2).click()
        cid.page.locator(".wait-seat.is-me").wait_for()
        assert cid.page.locator(".wait-seat.is-me .seat-num").inner_text() == "5"
        assert cid.page.locator(".btn-take-bot").count() == 0
        ann.page.locator(".wait-seat", has_text="Cid").wait_for()
        cid.page.locator(".btn", has_text="Leave my seat").click()  # and gives it back
        cid.page.locator(".wait-seat.is-me").wait_for(state="detached")
        ann.page.locator(".wait-seat.is-free").wait_for()
        ann.page.locator(".wait-seat.is-free .btn", has_text="Bot here").click()
        ann.page.locator(".wait-seat.is-free").wait_for(state="detached")
        assert not cid.problems(), cid.problems()
        assert re.search(r"le siège 2 vous est gardé jusqu'à \d\d:\d\d",
                         bob.page.locator(".rematch").inner_text())
        assert bob.page.locator(".btn-join").inner_text() == "Rejoindre la revanche"
        bob.page.locator(".series-score strong").wait_for()
        bob_score = bob.page.locator(".series-score strong").inner_text()
        winner = httpx.get(f"{server.url}/api/tables/{old}/summary").json()["winner"]
        assert bob_score == SCORE[winner], (bob_score, winner)
        bob.page.locator(".rematch").scroll_into_view_if_needed()
        shot(bob.page, "rematch-390-end-offer")
        width = bob.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the phone's end screen is {width} px wide"
        join.click()
        bob.page.wait_for_url(re.compile(f"/t/{new}"))
        bob.page.locator(".wait-seat.is-me").wait_for()
        assert bob.page.locator(".wait-seat.is-me .wait-name").inner_text() == "Bob"
        assert bob.page.locator(".btn-take-bot").count() == 0  # seated: nothing to take
        bob.page.locator(".series-score strong").wait_for()
        assert bob.page.locator(".series-score strong").inner_text() == bob_score
        shot(bob.page, "rematch-390-waiting", full_page=True)

        # The host sees Bob take his seat, the series 1–0, and starts the new game.
        ann.page.locator(".badge-kept").wait_for(state="detached")
        assert ann.page.locator(".rematch-host-hint").count() == 0
        ann_score = ann.page.locator(".series-score strong")
        ann_score.wait_for()
        assert ann_score.inner_text() == bob_score
        assert "Game 1:" in ann.page.locator(".series-games").inner_text()
        shot(ann.page, "rematch-1280-waiting", full_page=True)
        # The series speaks the page's language as soon as it changes (it stayed English).
        ann.page.locator("#lang-select").select_option("fr")
        ann.page.locator(".series-games", has_text="Partie 1 :").wait_for()
        assert "Cette série" in ann.page.locator(".series h2").inner_text()
        ann.page.locator("#lang-select").select_option("en")
        ann.page.locator(".series-games", has_text="Game 1:").wait_for()
        start(ann.page)
        bob.page.locator(".role-chip:not([hidden])").wait_for()
        assert "Day 1" in phase_of(ann.page)
        shot(bob.page, "rematch-390-second-game")
        for w in (ann, bob):
            assert not w.problems(), w.problems()
