"""The host's "Link for a person" (R53, D52, issue 38), in real Chromium against a real `trusis
serve` whose D52 wait is 8 s: while the server would still refuse it, the departed seat's card
says from when a person may take the seat, and offers no button; once that moment comes, the
button shows in the same card — not at the page's left edge — and makes the link."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from serverproc import ServerProcess, new_database
from test_web_support import (
    DESKTOP,
    PHONE,
    Helper,
    Watched,
    needs_chromium,
    shot,
    sign_in,
    sit,
    start,
)

pytestmark = needs_chromium

WAIT = 8  # seconds: the server's handover_to_person_seconds here (180 by default)


@pytest.fixture(scope="module", name="server")
def short_wait_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder: Path = tmp_path_factory.mktemp("handover")
    server = ServerProcess(new_database("sqlite", folder), bot_pace=0.0, log=folder / "serve.log",
                           extra=["--limit", f"handover_to_person_seconds={WAIT}"])
    server.start()
    try:
        yield server
    finally:
        server.stop()


BOXES = """(seat) => {
  const card = document.querySelector(`.departed[data-seat="${seat}"]`);
  const button = card && card.querySelector('.btn-link');
  const box = (el) => el && el.getBoundingClientRect().toJSON();
  return { card: box(card), button: box(button), page: document.documentElement.clientWidth,
           text: card ? card.innerText : '' };
}"""


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_link_for_a_person_shows_in_the_seat_card_when_it_is_possible(
        server: Any, browser: Any, viewport: dict[str, int]) -> None:
    context = browser.new_context(viewport=viewport, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    bea = Helper(server, "Bea")
    try:
        sign_in(page, server.url, "Ann")
        made = page.request.post(server.url + "/api/tables", data={
            "name": "Hand-over", "seats": 5, "day_seconds": 300, "night_seconds": 60,
            "grace_seconds": 5, "bots_take_over": True})
        assert made.status == 201, made.text()
        table_id = made.json()["id"]
        page.goto(f"{server.url}/t/{table_id}")
        sit(page)
        bea.guest.sit(table_id)
        page.locator(".wait-seat", has_text="Bea").wait_for()
        page.locator(".host-tools .btn").nth(1).click()  # fill with bots
        page.locator(".btn-start:not([disabled])").wait_for()
        start(page)
        bea.connect(table_id)
        assert bea.player is not None
        page.wait_for_timeout(300)
        bea.player.close()  # Bea's phone locks: 5 s of grace, then a bot plays her seat (R52)
        card = page.locator('.departed[data-seat="2"]')
        card.wait_for(timeout=20000)
        # D52: a person may not take it yet — the card says from when, and offers no link.
        seen = page.evaluate(BOXES, 2)
        assert re.search(r"from \d\d:\d\d:\d\d", seen["text"]), seen["text"]
        assert seen["button"] is None, seen
        shot(page, f"handover-wait-{viewport['width']}", full_page=True)
        # Then the button, in the same card, where the card's other button is (not at the
        # page's left edge).
        card.locator(".btn-link").wait_for(timeout=(WAIT + 5) * 1000)
        seen = page.evaluate(BOXES, 2)
        button, box = seen["button"], seen["card"]
        assert box["left"] <= button["left"] and button["right"] <= box["right"], seen
        assert button["left"] > 0.15 * seen["page"] or viewport is PHONE, seen
        assert "from" not in seen["text"], seen["text"]
        shot(page, f"handover-ready-{viewport['width']}", full_page=True)
        card.locator(".btn-link").click()
        card.locator(".claim-url").wait_for()
        assert "#claim=" in (card.locator(".claim-url").input_value())
        assert watched.problems() == []
    finally:
        bea.close()
        context.close()
