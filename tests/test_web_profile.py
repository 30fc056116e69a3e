"""A draw on the profile page in real Chromium (D49): a game the server's staff ended as a
draw (D38) shows as a draw, never as lost, and the draws are counted beside the wins (en,
fr, it; 1280 and 390 px; build/screenshots/profile-draw-*.png)."""

from __future__ import annotations

from typing import Any

import pytest

from test_web_draw import ops  # noqa: F401  (a fixture: an admin of the module's server)
from test_web_support import (
    DESKTOP,
    PHONE,
    Watched,
    create_table,
    needs_chromium,
    shot,
    sign_in,
    sit_and_fill,
    start,
)

pytestmark = needs_chromium

DRAW = {"en": ("draw", "1 draw", "lost"), "fr": ("nulle", "1 nulle", "perdue"),
        "it": ("patta", "1 patta", "persa")}


@pytest.mark.parametrize(("lang", "viewport"), [("en", DESKTOP), ("fr", PHONE),
                                                ("it", DESKTOP)])
def test_D49_a_drawn_game_is_a_draw_on_the_profile(server: Any, browser: Any, ops: Any,  # noqa: F811
                                                   lang: str, viewport: dict[str, int]) -> None:
    context = browser.new_context(viewport=viewport, locale={"en": "en-GB", "fr": "fr-FR",
                                                             "it": "it-IT"}[lang])
    watched = Watched(context)
    page = watched.page
    sign_in(page, server.url, f"Ann {lang}")
    table_id = create_table(page, 5, day_seconds=3600)  # nothing ends Day 1 but Ann
    sit_and_fill(page, table_id)
    start(page)
    done = ops.post(f"/api/admin/tables/{table_id}/draw", json={"reason": "stuck"})
    assert done.status_code == 200, done.text
    page.wait_for_function("() => document.querySelector('.endscreen h1') !== null")

    me = page.evaluate("() => window.trusis.me.id")
    page.goto(f"{server.url}/p/{me}")
    row = page.locator(".game-row").first
    row.wait_for()
    draw, drawn, lost = DRAW[lang]
    result = row.locator(".game-result")
    assert result.inner_text().strip() == draw and lost not in row.inner_text()
    assert "is-draw" in (row.get_attribute("class") or "")
    facts = page.locator(".profile-facts").inner_text()
    assert drawn in facts
    shot(page, f"profile-draw-{lang}-{viewport['width']}")
    if viewport is PHONE:
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert watched.problems() == []
    context.close()
