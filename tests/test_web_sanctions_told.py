"""A sanctioned player is told what happened to them, in real Chromium (D36, D53): a banned
player's game page says, the moment the ban lands and after a reload, that a moderator
banned them, until when (their own date format) and why, and offers nothing a ban stops;
a banned account's sign-in says the same; a mute's refusal says when it ends; a warning
given mid-game shows at once. Screenshots at 1280 and 390 px, in en and fr."""

from __future__ import annotations

import datetime
from typing import Any
from zoneinfo import ZoneInfo

import httpx

from modhelp import grant, sanction
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

ZONE = "Europe/Rome"


def moderator(server: Any, name: str) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=10)
    assert client.post("/api/accounts", json={"name": name, "password": "a long password"}
                       ).status_code == 201
    grant(server, name, "moderator")
    return client


def playing(browser: Any, server: Any, name: str, locale: str = "en-GB") -> tuple[Any, Watched]:
    """A person in a running game (bots at the other seats), and their page."""
    context = browser.new_context(viewport=DESKTOP, locale=locale, timezone_id=ZONE)
    watched = Watched(context)
    sign_in(watched.page, server.url, name)
    table = create_table(watched.page, 5, day_seconds=600)
    sit_and_fill(watched.page, table)
    start(watched.page)
    return context, watched


def problems(watched: Watched) -> list[str]:
    """A banned page's own requests answer 403 `banned`: that is the point, not a fault."""
    return [p for p in watched.problems() if "403" not in p]


def in_both(page: Any, name: str, ready: str) -> None:
    """Screenshots in en and fr, at 1280 and 390 px."""
    for code in ("en", "fr"):
        page.set_viewport_size(DESKTOP)
        page.locator("#lang-select").select_option(code)
        page.wait_for_function("c => document.documentElement.lang === c", arg=code)
        page.locator(ready).wait_for()
        for size, label in ((DESKTOP, "1280"), (PHONE, "390")):
            page.set_viewport_size(size)
            page.wait_for_timeout(150)
            shot(page, f"sanctions-{name}-{code}-{label}")
    page.locator("#lang-select").select_option("en")
    page.set_viewport_size(DESKTOP)


def local_date(page: Any, epoch: float, locale: str) -> str:
    """The end as the page's own format says it (its locale, its time zone)."""
    return str(page.evaluate("([u, l]) => new Date(u * 1000).toLocaleString(l, "
                             "{dateStyle: 'medium', timeStyle: 'short'})", [epoch, locale]))


def test_a_banned_player_is_told_until_when_and_why(server: Any, browser: Any) -> None:
    mona = moderator(server, "Mona")
    context, game = playing(browser, server, "Cid")
    page = game.page
    try:
        lobby = Watched(context).page  # a second tab, on the lobby
        lobby.goto(server.url + "/")
        lobby.locator(".your-games .table-row").wait_for()
        me = page.evaluate("() => window.trusis.me.id")
        given = sanction(mona, me, "ban", "threats in the chat", minutes=24 * 60)
        card = page.locator(".banned-card")
        card.wait_for()
        told = card.inner_text()
        end = local_date(page, given["until"], "en-GB")
        assert f"A moderator has banned you until {end}." in told, told
        assert "Reason: threats in the chat" in told and "reload this page" in told
        # nothing left that a ban stops: no game, no name form, no sign-in, no "Disconnected"
        for gone in ("form.name-form", ".table-screen", "#account-button", ".statusbar"):
            assert page.locator(gone).count() == 0, gone
        lobby.locator(".banned-card", has_text="threats in the chat").wait_for(timeout=15000)
        assert lobby.locator("form.name-form").count() == 0
        in_both(page, "ban-now", ".banned-card")
        page.reload()
        page.locator(".banned-card", has_text="threats in the chat").wait_for()
        assert f"until {end}" in page.locator(".banned-card").inner_text()
        assert page.locator("form.name-form").count() == 0
        in_both(page, "ban-reload", ".banned-card")
        page.locator("#lang-select").select_option("fr")
        page.wait_for_function("() => document.documentElement.lang === 'fr'")
        french = page.locator(".banned-card").inner_text()
        assert f"Un modérateur vous a banni jusqu'au {local_date(page, given['until'], 'fr')}" \
            in french and "Motif : threats in the chat" in french, french
        assert problems(game) == []
    finally:
        context.close()
    # an account banned for good, signing in from a clean browser: the same sentence
    badger = httpx.Client(base_url=server.url, timeout=10)
    reply = badger.post("/api/accounts", json={"name": "Badger", "password": "a long password"})
    sanction(mona, reply.json()["player"]["id"], "ban", "cheating")
    fresh = browser.new_context(viewport=PHONE, locale="fr-FR", timezone_id=ZONE)
    try:
        page = Watched(fresh).page
        page.goto(server.url + "/")
        page.locator("#account-button").click()
        page.locator("#acct-name").fill("Badger")
        page.locator("#acct-password").fill("a long password")
        page.locator(".account-form button[type=submit]").click()
        error = page.locator(".account-form .form-error", has_text="définitivement")
        error.wait_for()
        assert error.inner_text() == "Un modérateur vous a banni définitivement. " \
                                     "Motif : cheating", error.inner_text()
        shot(page, "sanctions-ban-login-fr-390")
    finally:
        fresh.close()


def test_a_mute_refusal_says_when_it_ends(server: Any, browser: Any) -> None:
    mona = moderator(server, "Mods")
    context, game = playing(browser, server, "Mia")
    page = game.page
    try:
        me = page.evaluate("() => window.trusis.me.id")
        muted = sanction(mona, me, "mute", "flooding the chat", minutes=30)
        end = datetime.datetime.fromtimestamp(muted["until"], ZoneInfo(ZONE))
        today = end.date() == datetime.datetime.now(ZoneInfo(ZONE)).date()
        for code, words, until in (("en", "your messages are refused", "until"),
                                   ("fr", "vos messages sont refusés", "jusqu")):
            page.locator("#lang-select").select_option(code)
            page.wait_for_function("c => document.documentElement.lang === c", arg=code)
            page.locator("#chat-input").fill(f"hello? ({code})")
            page.locator("#chat-input").press("Enter")
            error = page.locator(".chat-error", has_text=words)
            error.wait_for()
            said = error.inner_text()
            assert f"{until}" in said and end.strftime("%H:%M") in said, said
            if today:
                assert said.endswith(end.strftime("%H:%M")), said
            for size, label in ((DESKTOP, "1280"), (PHONE, "390")):
                page.set_viewport_size(size)
                if size is PHONE:
                    page.locator("#tab-p-chat").click()
                page.wait_for_timeout(150)
                shot(page, f"sanctions-mute-{code}-{label}")
            page.set_viewport_size(DESKTOP)
        assert problems(game) == []
    finally:
        context.close()


def test_a_warning_shows_mid_game_without_a_reload(server: Any, browser: Any) -> None:
    mona = moderator(server, "Modo")
    context, game = playing(browser, server, "Wes", locale="fr-FR")
    page = game.page
    try:
        me = page.evaluate("() => window.trusis.me.id")
        loads = page.evaluate("() => performance.getEntriesByType('navigation').length")
        given = sanction(mona, me, "warning", "please keep the chat friendly")
        dialog = page.locator("dialog[open].warning-dialog")
        dialog.locator(".report-reason", has_text="please keep the chat friendly").wait_for()
        assert page.evaluate("() => performance.getEntriesByType('navigation').length") == loads
        assert page.locator(".seat").count() == 5  # the game is still there, under it
        shot(page, "sanctions-warning-fr-1280")
        page.set_viewport_size(PHONE)
        shot(page, "sanctions-warning-fr-390")
        page.set_viewport_size(DESKTOP)
        dialog.locator(".btn-primary").click()
        dialog.wait_for(state="detached")
        page.wait_for_timeout(500)
        assert not page.request.get(server.url + "/api/me/warnings").json()["warnings"]
        assert given["kind"] == "warning"
        page.reload()
        page.locator(".seat").first.wait_for()
        page.wait_for_timeout(800)
        assert page.locator("dialog[open]").count() == 0  # seen: shown once
        assert problems(game) == []
    finally:
        context.close()
