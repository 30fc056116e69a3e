"""D38 in real Chromium: a player at a stuck game sees the end screen when an admin ends it
as a draw, saying the server's staff did it (en, fr and it; 1280 and
390 px; the screenshots are looked at, build/screenshots/draw-*.png)."""

from __future__ import annotations

from typing import Any

import pytest

from modhelp import account, grant
from test_web_support import (
    DESKTOP,
    PHONE,
    Watched,
    create_table,
    finished,
    needs_chromium,
    shot,
    sign_in,
    sit_and_fill,
    start,
)

pytestmark = needs_chromium

SAID = {
    "en": "The server's staff ended this game",
    "fr": "L'équipe du serveur a arrêté cette partie",
    "it": "Lo staff del server ha chiuso questa partita",
}


@pytest.fixture(scope="module")
def ops(server: Any) -> Any:
    client, _ = account(server.url, "Ops")
    grant(server, "Ops", "admin")
    return client


@pytest.mark.parametrize(("lang", "viewport"), [("en", DESKTOP), ("fr", PHONE),
                                                ("it", DESKTOP)])
def test_D38_a_player_sees_the_end_screen_of_a_game_the_staff_ended(
        server: Any, browser: Any, ops: Any, lang: str, viewport: dict[str, int]) -> None:
    context = browser.new_context(viewport=viewport, locale={"en": "en-GB", "fr": "fr-FR",
                                                             "it": "it-IT"}[lang])
    watched = Watched(context)
    page = watched.page
    sign_in(page, server.url, "Ann")
    table_id = create_table(page, 5, day_seconds=3600)  # nothing ends Day 1 but Ann
    sit_and_fill(page, table_id)
    start(page)
    done = ops.post(f"/api/admin/tables/{table_id}/draw", json={"reason": "stuck"})
    assert done.status_code == 200, done.text
    page.wait_for_function("() => document.querySelector('.endscreen h1') !== null")
    assert finished(page)
    assert any('"operator_draw"' in frame for frame in watched.received)
    assert SAID[lang].casefold() in page.locator(".endscreen .end-why").inner_text().casefold()
    name = f"draw-{lang}-{viewport['width']}"
    shot(page, name)
    shot(page, name + "-full", full_page=True)
    assert watched.problems() == []
    context.close()
