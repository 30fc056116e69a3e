"""A moderator hides a troll's chat line from the game page and from a report's excerpt,
and shows it again (issue 38, D71), in real Chromium against a real `trusis serve`: the
other open page's line becomes the placeholder at once, and comes back at the unhide."""

from __future__ import annotations

from typing import Any

from modhelp import account, grant
from serverplay import command, people
from test_web_support import DESKTOP, Watched, needs_chromium, shot

pytestmark = needs_chromium

TROLL = "TROLL-page-5d2e"
PLACEHOLDER = "(hidden by a moderator)"


def _signed_in(browser: Any, server: Any, name: str) -> tuple[Any, Watched]:
    account(server.url, name)
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    assert context.request.post(server.url + "/api/login",
                                data={"name": name, "password": "a long password"}).ok
    return context, watched


def _hide_or_show(line: Any, button: str, reason: str) -> None:
    """Press the line's control, say why, and send it."""
    line.get_by_role("button", name=button).first.click()
    line.locator(".hide-line-form input").fill(reason)
    line.locator(".hide-line-form").get_by_role("button", name=button).click()


def test_D71_a_moderator_hides_a_line_and_the_other_page_shows_the_placeholder(
        server: Any, browser: Any) -> None:
    table = people(server, 5)
    mod_context, mod = _signed_in(browser, server, "Mira")
    grant(server, "Mira", "moderator")
    other_context, other = _signed_in(browser, server, "Otto")  # a watcher, not staff
    try:
        assert command(table.conns[2], do="say", text=TROLL)["type"] == "ack"
        assert command(table.conns[3], do="say", text="a fair answer")["type"] == "ack"
        for watched in (mod, other):
            watched.page.goto(f"{server.url}/t/{table.id}")
            watched.page.locator(".chat-line", has_text=TROLL).wait_for()
        assert other.page.locator(".chat-line .hide-line").count() == 0  # staff only
        troll_line = mod.page.locator(".chat-line", has_text=TROLL)
        _hide_or_show(troll_line, "Hide line", "insults a player")

        hidden_there = other.page.locator(".chat-line .chat-hidden", has_text=PLACEHOLDER)
        hidden_there.wait_for()
        assert TROLL not in other.page.locator(".chat").inner_text()
        assert "a fair answer" in other.page.locator(".chat").inner_text()  # its place kept
        mod.page.locator(".chat-line.is-hidden-line", has_text=TROLL).locator(
            ".chat-hidden-mark", has_text="insults a player").wait_for()
        shot(mod.page, "hide-line-staff-en-1280")
        shot(other.page, "hide-line-placeholder-en-1280")

        _hide_or_show(mod.page.locator(".chat-line", has_text=TROLL), "Show again",
                      "it was a quote")
        other.page.locator(".chat-line", has_text=TROLL).wait_for()
        assert hidden_there.count() == 0

        # from a report's excerpt on the moderation page
        assert table.guests[3].http.post(f"/api/tables/{table.id}/reports", json={
            "seat": 2, "reason": "insults"}).status_code == 201
        mod.page.goto(server.url + "/moderation")
        report = mod.page.locator(".mod-report", has_text="insults")
        report.locator(".report-chat summary").click()
        _hide_or_show(report.locator(".report-chat-lines li", has_text=TROLL), "Hide line",
                      "insults again")
        hidden_there.wait_for()
        mod.page.locator(".mod-report .report-chat-lines li.is-hidden-line",
                         has_text=TROLL).wait_for(state="attached")  # the page drawn again
        assert not mod.problems() and not other.problems(), mod.problems() + other.problems()
    finally:
        mod_context.close()
        other_context.close()
        table.close()
