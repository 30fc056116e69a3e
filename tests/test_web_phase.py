"""The browser client says which phase each choice was made in (docs/protocol.md, `action.phase`).

A vote chosen in Day 1 and a pass confirmed in its dialog go out with `phase: {kind: "day",
number: 1}`, so that the server refuses them as `stale_phase` if Day 1 is over when they
arrive (R12: the timer ends a phase whatever the client shows), instead of applying them
to a phase the player never saw. Chat and leaving are not tied to a phase.
"""

from __future__ import annotations

import json
from typing import Any

from test_web_support import (
    DESKTOP,
    Watched,
    create_table,
    needs_chromium,
    sign_in,
    sit_and_fill,
    start,
)

pytestmark = needs_chromium

DAY_1 = {"kind": "day", "number": 1}


def sent_actions(watched: Watched) -> list[dict[str, Any]]:
    out = []
    for text in watched.sent:
        data = json.loads(text)
        if isinstance(data, dict) and data.get("type") == "act":
            out.append(data["action"])
    return out


def test_the_browser_sends_the_phase_of_each_choice(server: Any, browser: Any) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    sign_in(page, server.url, "Ann")
    table_id = create_table(page, 5)
    sit_and_fill(page, table_id)
    start(page)
    page.locator(".seat.is-me").focus()
    page.keyboard.press("ArrowRight")
    target = int(page.locator(".seat[aria-checked=true]").get_attribute("data-seat") or 0)
    page.locator(".btn-power[data-do=vote]").click()
    page.locator(".actions-choices", has_text="You vote for").wait_for()
    page.locator(".btn-pass").click()
    page.locator("dialog[open] .btn-primary").click()
    for _ in range(100):  # the pass goes out once its dialog closes
        if any(a["do"] == "pass" for a in sent_actions(watched)):
            break
        page.wait_for_timeout(100)
    actions = sent_actions(watched)
    assert {"do": "vote", "target": target, "phase": DAY_1} in actions
    assert {"do": "pass", "phase": DAY_1} in actions
    assert all(a["phase"] == DAY_1 for a in actions if a["do"] not in ("say", "leave"))
    assert watched.problems() == []
    context.close()
