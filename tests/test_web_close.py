"""D51 in real Chromium against a real `trusis serve`: the host of a waiting table closes it.

Ann hosts and sits; Bob, whose browser speaks another language, sits beside her. Ann
presses "Close table", confirms, and is back in the lobby, told that she closed it; Bob's
page says at once, in his language, that the host closed the table, and its one button
takes him back to the lobby, where the table is listed nowhere. Desktop (1280 px) and phone
(390 px); axe-core finds nothing serious on the way (when tests/a11y holds it), and the
screenshots are looked at (build/screenshots/close-*.png).
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

TOLD = {  # err.table_closed, as Bob's page says it
    "fr": "L'hôte a fermé cette table avant le début de la partie",
    "it": "L'host ha chiuso questo tavolo prima dell'inizio della partita",
}
BACK = {"fr": "Retour au salon", "it": "Torna alla sala"}


@pytest.mark.parametrize(("size", "viewport", "lang"), [("desktop", DESKTOP, "fr"),
                                                        ("phone", PHONE, "it")])
def test_D51_the_host_closes_the_table_and_a_seated_player_is_sent_back_to_the_lobby(
        server: Any, browser: Any, size: str, viewport: dict[str, int], lang: str) -> None:
    problems: list[str] = []
    ann_w, bob_w = host_and_guest(browser, viewport, lang)
    ann, bob = ann_w.page, bob_w.page
    sign_in(ann, server.url, "Ann")
    table = create_table(ann, 5)
    sit(ann)
    sign_in(bob, server.url, "Bob")
    bob.goto(f"{server.url}/t/{table}")
    sit(bob)
    ann.locator(".wait-seat", has_text="Bob").wait_for()
    assert bob.locator(".btn-close-table").count() == 0  # the host's alone

    button = ann.locator(".btn-close-table")
    assert button.inner_text() == "Close table"
    ann.evaluate("document.querySelector('.btn-close-table').scrollIntoView({block: 'center'})")
    shot(ann, f"close-{size}-host-waiting-room")
    problems += axe_problems(ann, f"waiting room with Close table {size}")
    shot(ann, f"close-{size}-host-waiting-room-full", full_page=True)
    button.click()
    dialog = ann.locator("dialog.dialog")
    assert "Close “Trusis table”?" in dialog.locator("h2").inner_text()
    shot(ann, f"close-{size}-host-confirm")
    problems += axe_problems(ann, f"Close table's question {size}")
    dialog.locator(".btn-danger").click()

    # Ann: back in the lobby, told that she closed it.
    ann.wait_for_url(f"{server.url}/")
    ann.locator(".banner", has_text="You closed the table “Trusis table”.").wait_for()
    shot(ann, f"close-{size}-host-back-in-the-lobby")
    # Bob: told at once, in his language, and offered the way back.
    notice = bob.locator(".notice-closed")
    notice.wait_for()
    assert TOLD[lang] in notice.inner_text()
    assert bob.locator(".waiting").is_hidden()
    assert bob.locator(".statusbar").is_hidden()  # no "reconnecting…", no spinner
    back = notice.locator("a.btn")
    assert back.inner_text() == BACK[lang]
    assert bob.evaluate("document.activeElement.textContent") == BACK[lang]
    shot(bob, f"close-{size}-{lang}-seated-player-told")
    problems += axe_problems(bob, f"table closed notice {size}")
    back.click()
    bob.wait_for_url(f"{server.url}/")
    bob.locator(".tables").wait_for()
    for page in (ann, bob):
        page.locator(".tables .btn-small").click()  # the list asked again now
        assert page.locator(f"a[href='/t/{table}']").count() == 0  # nowhere: list, your games
    assert ann_w.problems() == [] and bob_w.problems() == []
    assert problems == []

    bob.goto(f"{server.url}/t/{table}")  # the link, later
    bob.locator(".notice-closed", has_text=TOLD[lang]).wait_for()
    for watched in (ann_w, bob_w):
        watched.page.context.close()
