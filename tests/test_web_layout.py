"""Small screens (issue 38), in real Chromium against a real `trusis serve`: at 200% zoom
(640 px wide, 400 or 360 px high) the chat keeps room for its lines beside the pinned action
bar (WCAG 1.4.10); on a phone the players' statistics (17 columns) scroll sideways under the
player's name, which stays — the Role column was a sliver beside a name 200 px wide."""

from __future__ import annotations

from typing import Any

from test_web_support import (
    DESKTOP,
    PHONE,
    Watched,
    create_table,
    needs_chromium,
    play_to_end,
    shot,
    sign_in,
    sit_and_fill,
    start,
)

pytestmark = needs_chromium

CHAT_ROOM = """() => {
  const lines = document.querySelector('.chat-lines').getBoundingClientRect();
  const input = document.querySelector('#chat-input').getBoundingClientRect();
  const bar = document.querySelector('.actions').getBoundingClientRect();
  const bottom = Math.min(innerHeight, bar.top);
  return { room: Math.max(0, Math.min(lines.bottom, bottom) - Math.max(lines.top, 0)),
           inputShown: input.top >= 0 && input.bottom <= bottom, bar: bar.height };
}"""


def test_200_percent_zoom_leaves_room_for_the_chat(server: Any, browser: Any) -> None:
    """A 1280×800 and a 1280×720 window at 200% (640×400, 640×360): the Chat tab shows at
    least five lines' height of chat above the pinned action bar, and the box to write in."""
    context = browser.new_context(viewport={"width": 640, "height": 400}, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    try:
        sign_in(page, server.url, "Ann")
        table_id = create_table(page, 8, day_seconds=300)
        sit_and_fill(page, table_id)
        start(page)
        for height in (400, 360):
            page.set_viewport_size({"width": 640, "height": height})
            page.locator("#tab-p-table").click()
            page.evaluate("() => window.scrollTo(0, 0)")
            page.locator("#tab-p-chat").click()
            page.wait_for_timeout(400)
            seen = page.evaluate(CHAT_ROOM)
            shot(page, f"layout-zoom-chat-{height}")
            assert seen["room"] >= 5 * 27 and seen["inputShown"], (height, seen)
            # Alt+Shift+C from the Table tab: the same, with the box focused.
            page.locator("#tab-p-table").click()
            page.evaluate("() => window.scrollTo(0, 0)")
            page.keyboard.press("Alt+Shift+C")
            page.wait_for_timeout(400)
            seen = page.evaluate(CHAT_ROOM)
            assert seen["room"] >= 5 * 27 and seen["inputShown"], (height, seen)
        assert watched.problems() == []
    finally:
        context.close()


STATS_ROW = """() => {
  const table = document.querySelector('.stats-players');
  const region = table.parentElement;
  region.scrollLeft = region.scrollWidth;
  const box = region.getBoundingClientRect();
  const name = table.querySelector('tbody th').getBoundingClientRect();
  const role = table.querySelector('tbody td').getBoundingClientRect();
  return { scrolled: region.scrollLeft > 0, left: name.left - box.left,
           right: box.right - name.right, nameWidth: name.width, regionWidth: box.width,
           roleWidth: role.width };
}"""


def test_the_players_statistics_keep_whose_they_are_on_a_phone(server: Any, browser: Any
                                                               ) -> None:
    """R62: at 390 px, scrolled to its last column, each row of the players' statistics
    still shows whose it is (the name stays at the left edge, in at most 40% of the width),
    in en, fr and it; the Role column beside it is a column, not a sliver."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    try:
        sign_in(page, server.url, "Annabella-Maria")
        table_id = create_table(page, 5)
        sit_and_fill(page, table_id)
        start(page)
        play_to_end(page)
        page.locator(".stats-players").wait_for()
        page.set_viewport_size(PHONE)
        for code in ("fr", "it", "en"):
            page.locator("#lang-select").select_option(code)
            page.wait_for_function("c => document.documentElement.lang === c", arg=code)
            page.locator(".stats-players").wait_for()
            page.wait_for_timeout(500)
            page.locator(".stats-players").scroll_into_view_if_needed()
            page.locator(".stats-players").evaluate("t => { t.parentElement.scrollLeft = 0; }")
            start_role = page.evaluate(STATS_ROW.replace("region.scrollWidth", "0"))
            assert start_role["roleWidth"] >= 60, (code, start_role)
            shot(page, f"layout-stats-390-{code}")
            seen = page.evaluate(STATS_ROW)
            shot(page, f"layout-stats-390-{code}-scrolled")
            assert seen["scrolled"], seen
            assert seen["left"] >= -1 and seen["right"] > 0, (code, seen)
            assert seen["nameWidth"] <= 0.4 * seen["regionWidth"], (code, seen)
        assert watched.problems() == []
    finally:
        context.close()
