"""D55 in real Chromium against a real `trusis serve`: the host removes a person from the
waiting room, and that person's page says so at once.

Ann hosts and sits; Bob, whose browser speaks another language, sits beside her (and, on a
desktop, has begun a line in the chat). Ann presses Remove beside Bob and confirms; Bob's
page says at once, in his language, that the host removed him from this table, shows no
seat and no chat box, and its one button — focused — takes him back to the lobby. Opening
the table's link again (a private table's invite link on the desktop) says the same.
Desktop (1280 px, a private table) and phone (390 px); axe-core finds nothing serious on
the way (when tests/a11y holds it), and the screenshots are looked at
(build/screenshots/removed-*.png).
"""

from __future__ import annotations

from typing import Any

import pytest

from a11y_support import axe_problems
from test_web_support import (
    DESKTOP,
    PHONE,
    create_table,
    host_and_guest,
    needs_chromium,
    shot,
    sign_in,
    sit,
)

pytestmark = needs_chromium

TOLD = {"fr": "L'hôte vous a retiré de cette table.",  # err.removed, as Bob's page says it
        "it": "L'host ti ha rimosso da questo tavolo."}
TITLE = {"fr": "Vous n'êtes plus à cette table", "it": "Non sei più a questo tavolo"}
BACK = {"fr": "Retour au salon", "it": "Torna alla sala"}


def nothing_to_use(page: Any) -> None:
    """Only the notice is shown: no seat button, no chat box, no status that reconnects."""
    for hidden in (".waiting", ".statusbar", ".side", "#chat-input"):
        assert page.locator(hidden).first.is_hidden(), hidden
    screen = page.locator(".table-screen")
    assert screen.locator("button:visible, input:visible, textarea:visible").count() == 0


@pytest.mark.parametrize(("size", "viewport", "lang", "private"),
                         [("desktop", DESKTOP, "fr", True), ("phone", PHONE, "it", False)])
def test_D55_the_host_removes_bob_and_his_page_says_so_and_leads_back_to_the_lobby(
        server: Any, browser: Any, size: str, viewport: dict[str, int], lang: str,
        private: bool) -> None:
    problems: list[str] = []
    ann_w, bob_w = host_and_guest(browser, viewport, lang)
    ann, bob = ann_w.page, bob_w.page
    sign_in(ann, server.url, "Ann")
    table = create_table(ann, 5, private=private)
    sit(ann)
    invite = ann.evaluate(f"fetch('/api/tables/{table}').then((r) => r.json())")["invite"]
    link = f"{server.url}/t/{table}" + (f"?invite={invite}" if private else "")
    sign_in(bob, server.url, "Bob")
    bob.goto(link)
    sit(bob)
    ann.locator(".wait-seat", has_text="Bob").wait_for()
    if size == "desktop":  # he was writing a line when it happened
        bob.locator("#chat-input").fill("bonjour à tous")
    shot(bob, f"removed-{size}-{lang}-bob-seated")

    remove = ann.locator(".wait-seat", has_text="Bob").locator(".btn-ghost")
    assert remove.inner_text() == "Remove"
    remove.click()
    dialog = ann.locator("dialog.dialog")
    assert "Remove Bob?" in dialog.locator("h2").inner_text()
    dialog.locator(".btn-danger").click()
    ann.locator(".wait-seat", has_text="Bob").wait_for(state="detached")

    # Bob: told at once, in his language; nothing else is offered but the way back.
    notice = bob.locator(".notice-closed")
    notice.wait_for()
    assert notice.locator("h2").inner_text() == TITLE[lang]
    assert TOLD[lang] in notice.inner_text()
    nothing_to_use(bob)
    back = notice.locator("a.btn")
    assert back.inner_text() == BACK[lang]
    assert bob.evaluate("document.activeElement.textContent") == BACK[lang]
    shot(bob, f"removed-{size}-{lang}-bob-told")
    problems += axe_problems(bob, f"removed notice {size}")

    back.click()
    bob.wait_for_url(f"{server.url}/")
    bob.locator(".tables").wait_for()
    shot(bob, f"removed-{size}-{lang}-bob-in-the-lobby")
    assert ann_w.problems() == [] and bob_w.problems() == []

    # The link again, later (the invite link of a private table): the same card at once.
    bob.goto(link)
    again = bob.locator(".notice-closed", has_text=TOLD[lang])
    again.wait_for()
    nothing_to_use(bob)
    shot(bob, f"removed-{size}-{lang}-bob-opens-the-link-again")
    assert ann.locator(".wait-seat.is-free").count() == 4  # Ann's waiting room goes on
    assert problems == []
    for watched in (ann_w, bob_w):
        watched.page.context.close()
