"""The moderation page and menu a moderator met in the group's trial (issue 38), in real
Chromium against a real `trusis serve`: a ban asks first and can last an hour, the reason's
label says what it is for, a warning's "not read yet" follows its player's reading without
a reload, and the "Moderation" menu item appears without a reload once a player is made
moderator."""

from __future__ import annotations

import time
from typing import Any

from modhelp import account, grant, sanction
from serverplay import people
from serverproc import Guest
from test_web_support import DESKTOP, Watched, needs_chromium, shot

pytestmark = needs_chromium


def _signed_in(browser: Any, server: Any, name: str) -> tuple[Any, Watched]:
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    assert context.request.post(server.url + "/api/login",
                                data={"name": name, "password": "a long password"}).ok
    return context, watched


def _navigations(page: Any) -> int:
    return int(page.evaluate("() => performance.getEntriesByType('navigation').length"))


def test_a_ban_asks_first_may_last_an_hour_and_the_reason_says_what_it_is(
        server: Any, browser: Any) -> None:
    """A ban took effect on one click, the shortest was a day, and the reason field was
    labelled as a warning's for mutes and bans too."""
    mod, _ = account(server.url, "Mabel")
    grant(server, "Mabel", "moderator")
    table = people(server, 5)
    context, watched = _signed_in(browser, server, "Mabel")
    page = watched.page
    try:
        cid = table.guests[3]
        assert table.guests[2].http.post(f"/api/tables/{table.id}/reports", json={
            "seat": 3, "reason": "threats"}).status_code == 201
        page.goto(server.url + "/moderation")
        page.locator(".mod-report", has_text="threats").get_by_role(
            "button", name="Their record").click()
        page.locator("#mod-player-title", has_text="Cid").wait_for()
        label = page.locator("label[for=mod-reason]")
        labels = {}
        for kind in ("warning", "mute", "ban"):
            page.locator("#mod-kind").select_option(kind)
            labels[kind] = label.inner_text()
        assert len(set(labels.values())) == 3, labels
        assert "warning" in labels["warning"].lower() and "ban" in labels["ban"].lower()
        assert "mute" in labels["mute"].lower()
        lengths = page.locator("#mod-length option").all_inner_texts()
        assert lengths[0] == "1 hour", lengths
        page.locator("#mod-length").select_option("60")
        page.locator("#mod-reason").fill("threats in the chat")
        page.locator(".mod-sanction button[type=submit]").click()
        ask = page.locator("dialog[open]", has_text="Ban Cid?")
        ask.wait_for()
        assert "1 hour" in ask.inner_text() and "threats in the chat" in ask.inner_text()
        shot(page, "moderation-ban-confirm-en-1280")
        ask.get_by_role("button", name="Cancel").click()
        ask.wait_for(state="detached")
        page.wait_for_timeout(300)
        assert mod.get(f"/api/moderation/players/{cid.id}").json()["banned"] is False
        page.locator(".mod-sanction button[type=submit]").click()
        page.locator("dialog[open]", has_text="Ban Cid?").get_by_role(
            "button", name="Ban", exact=True).click()
        page.locator("#mod-player-title .state-ban").wait_for()
        record = mod.get(f"/api/moderation/players/{cid.id}").json()
        [ban] = [s for s in record["sanctions"] if s["kind"] == "ban"]
        assert abs(ban["until"] - ban["at"] - 3600) < 5, ban
    finally:
        context.close()
        table.close()


def test_a_warning_read_by_its_player_shows_on_the_page_without_a_reload(
        server: Any, browser: Any) -> None:
    """The page showed a warning "not read yet" until it was refreshed."""
    mod, _ = account(server.url, "Wanda")
    grant(server, "Wanda", "moderator")
    table = people(server, 5)
    context, watched = _signed_in(browser, server, "Wanda")
    page = watched.page
    try:
        dee = table.guests[4]
        warning = sanction(mod, dee.id, "warning", "mind your words")
        assert table.guests[1].http.post(f"/api/tables/{table.id}/reports", json={
            "seat": 4, "reason": "rude"}).status_code == 201
        page.goto(server.url + "/moderation")
        page.locator(".mod-report", has_text="rude").get_by_role(
            "button", name="Their record").click()
        item = page.locator("#mod-player .mod-sanctions li", has_text="mind your words")
        item.filter(has_text="not read yet").wait_for()
        loads = _navigations(page)
        seen = dee.http.post(f"/api/me/warnings/{warning['id']}/seen")
        assert seen.status_code == 200, seen.text
        start = time.monotonic()
        item.filter(has_text="read").filter(has_not_text="not read yet").wait_for(timeout=15000)
        assert time.monotonic() - start < 15 and _navigations(page) == loads
        # a report filed meanwhile shows as well
        assert table.guests[2].http.post(f"/api/tables/{table.id}/reports", json={
            "seat": 4, "reason": "spam again"}).status_code == 201
        page.locator(".mod-report", has_text="spam again").wait_for(timeout=15000)
        assert _navigations(page) == loads
    finally:
        context.close()
        table.close()


def test_the_moderation_menu_item_appears_without_a_reload(server: Any, browser: Any) -> None:
    """A player made moderator saw the "Moderation" item only after a reload."""
    account(server.url, "Newt")
    context, watched = _signed_in(browser, server, "Newt")
    page = watched.page
    try:
        page.goto(server.url + "/")
        page.locator("#account-button").click()
        page.locator("#account-menu").wait_for()
        page.wait_for_timeout(500)
        assert page.locator("#account-menu", has_text="Moderation").count() == 0
        page.keyboard.press("Escape")
        loads = _navigations(page)
        grant(server, "Newt", "moderator")
        page.locator("#account-button").click()
        entry = page.locator("#account-menu a", has_text="Moderation")
        entry.wait_for(timeout=10000)
        assert _navigations(page) == loads
        entry.click()
        page.locator(".mod-reports").wait_for()
        assert watched.problems() == []
    finally:
        context.close()


def test_a_report_about_staff_is_marked_and_its_buttons_say_who_decides(
        server: Any, browser: Any) -> None:
    """The API said `about_staff` on each report (D36) but the page did not show it: a
    moderator met buttons the server refused (403 not_admin, 409 own_report). The report is
    marked "about a moderator", and its buttons say who decides it: an admin, or for one's
    own report another moderator or an admin; the report about a guest is as before."""
    mira, _ = account(server.url, "Mira")
    otis, _ = account(server.url, "Otis")
    rhea, _ = account(server.url, "Rhea")
    grant(server, "Mira", "moderator")
    grant(server, "Otis", "moderator")
    grant(server, "Rhea", "admin")
    host = Guest(server.url, "Hugh")
    table = host.create(seats=5)
    host.sit(table["id"], 1)
    for seat, client in ((2, mira), (3, otis)):
        assert client.post(f"/api/tables/{table['id']}/seats", json={"seat": seat}
                           ).status_code == 200
    gil = Guest(server.url, "Gil")
    gil.sit(table["id"], 4)
    for seat, why in ((2, "about mira"), (3, "about otis"), (4, "about gil")):
        assert host.http.post(f"/api/tables/{table['id']}/reports", json={
            "seat": seat, "reason": why}).status_code == 201
    for who in ("Mira", "Rhea"):
        context, watched = _signed_in(browser, server, who)
        page = watched.page
        try:
            page.goto(server.url + "/moderation")
            items = {why: page.locator(".mod-report", has_text=why)
                     for why in ("about mira", "about otis", "about gil")}
            items["about gil"].wait_for()
            for why in ("about mira", "about otis"):
                marker = items[why].locator(".about-staff")
                assert "about a moderator" in marker.inner_text().lower()
            assert items["about gil"].locator(".about-staff").count() == 0
            gil_buttons = items["about gil"].get_by_role("button", name="Dismiss")
            assert gil_buttons.is_enabled()
            assert items["about gil"].locator(".mod-who-decides").count() == 0
            otis_say = items["about otis"].locator(".mod-who-decides").inner_text()
            mira_say = items["about mira"].locator(".mod-who-decides").inner_text()
            if who == "Mira":  # a moderator: neither is theirs to decide
                assert "only an admin" in otis_say.lower(), otis_say
                assert "about you" in mira_say.lower() and "admin" in mira_say, mira_say
                for why in ("about mira", "about otis"):
                    for name in ("Mark acted on", "Dismiss"):
                        assert items[why].get_by_role("button", name=name).is_disabled()
                shot(page, "moderation-about-staff-moderator-en-1280")
            else:  # the admin, not involved: both are theirs
                assert "you may" in otis_say.lower(), otis_say
                shot(page, "moderation-about-staff-admin-en-1280")
                items["about otis"].get_by_role("button", name="Dismiss").click()
                items["about otis"].wait_for(state="detached")  # the list shows open ones
                states = {r["reason"]: r["state"] for r in
                          rhea.get("/api/moderation/reports").json()["reports"]}
                assert states["about otis"] == "dismissed", states
            assert watched.problems() == []
        finally:
            context.close()
    host.http.close()
    gil.http.close()
