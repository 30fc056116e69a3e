"""The lobby in real Chromium against a real `trusis serve`: changing one's name (D46, D47)
and finding one's games again ("Your games", D48).

A player renamed from the lobby in one tab is the same player in the other: their waiting
room shows the new name on their seat and they are still its host; in a running game the
page says why the name waits for the end, and the game tab still plays the seat. An
account renamed stays signed in, under its new name. Screenshots go where
test_web_support puts them (build/screenshots/lobby-*.png).
"""

from __future__ import annotations

from typing import Any

import pytest

from serverproc import Guest
from test_web_accounts import PASSWORD, register_in_page
from test_web_support import (
    DESKTOP,
    PHONE,
    Watched,
    create_table,
    fill_with_bots,
    needs_chromium,
    shot,
    sign_in,
    sit,
    start,
)

pytestmark = needs_chromium
LOCALES = {"en": "en-GB", "fr": "fr-FR", "it": "it-IT"}
IN_GAME = {  # the refusal of a rename while playing (err.rename_in_game)
    "en": "once that game has ended",
    "fr": "une fois cette partie terminée",
    "it": "quando quella partita sarà finita",
}
RENAMED = {"en": "You play as", "fr": "Vous jouez sous le nom", "it": "Giochi come"}


def rename_in_lobby(page: Any, name: str) -> None:
    form = page.locator("form.name-form")
    form.locator("input").fill(name)
    form.locator("button[type=submit]").click()


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_D46_change_name_keeps_the_player_at_their_table(server: Any, browser: Any,
                                                         lang: str) -> None:
    context = browser.new_context(viewport=DESKTOP if lang != "fr" else PHONE,
                                  locale=LOCALES[lang])
    game = Watched(context)
    page = game.page
    sign_in(page, server.url, "Gus")
    create_table(page, 5)
    sit(page)
    lobby = Watched(context)  # a second tab of the same browser
    lobby.page.goto(server.url + "/")
    rename_in_lobby(lobby.page, f"Gus Fixed {lang}")
    lobby.page.locator("form.name-form .hint").filter(
        has_text=f"{RENAMED[lang]} Gus Fixed {lang}").wait_for()
    shot(lobby.page, f"lobby-renamed-{lang}")

    # The waiting room follows: the same seat, renamed, and he is still its host.
    page.locator(".wait-seat.is-me", has_text=f"Gus Fixed {lang}").wait_for()
    fill_with_bots(page)
    start(page)

    # While he plays, the name waits for the end of the game, and the page says so.
    rename_in_lobby(lobby.page, "Gus Again")
    error = lobby.page.locator("form.name-form .form-error")
    error.filter(has_text=IN_GAME[lang]).wait_for()
    shot(lobby.page, f"lobby-rename-in-game-{lang}")
    page.reload()
    page.locator(".role-chip:not([hidden])").wait_for()  # he plays his seat, not watches
    page.locator(".seat.is-me", has_text=f"Gus Fixed {lang}").wait_for()
    assert lobby.page.evaluate("() => window.trusis.me.name") == f"Gus Fixed {lang}"
    assert game.problems() == []
    assert [p for p in lobby.problems() if "409 (Conflict)" not in p] == []  # the refusal
    context.close()


def test_D47_an_account_renamed_stays_signed_in_under_its_new_name(server: Any,
                                                                   browser: Any) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    page.goto(server.url + "/")
    register_in_page(page, "Carla")
    before = page.evaluate("() => window.trusis.me")
    form = page.locator("form.name-form")
    assert "sign in with the new one" in form.inner_text()
    rename_in_lobby(page, "Carla Bee")
    page.locator(".acct-button", has_text="Carla Bee").wait_for()  # still the account
    after = page.evaluate("() => window.trusis.me")
    assert after == {**before, "name": "Carla Bee"}
    page.reload()
    page.locator(".acct-button", has_text="Carla Bee").wait_for()
    # The new name signs in; the old one is nobody's any more.
    other = Guest(server.url, "Dan")
    assert other.http.post("/api/login", json={"name": "Carla Bee", "password":
                                               PASSWORD}).status_code == 200
    other.close()
    assert watched.problems() == []
    context.close()


@pytest.mark.parametrize(("lang", "viewport"), [("en", DESKTOP), ("it", PHONE)])
def test_D48_a_private_table_is_found_again_after_closing_its_tab(
        server: Any, browser: Any, lang: str, viewport: dict[str, int]) -> None:
    hana = Guest(server.url, "Hana")  # hosts a private table, and does not sit
    table = hana.create(name=f"Secret {lang}", seats=5, private=True)
    tid, invite = table["id"], table["invite"]
    context = browser.new_context(viewport=viewport, locale=LOCALES[lang])
    first = Watched(context)
    sign_in(first.page, server.url, f"Gus {lang}")
    first.page.goto(f"{server.url}/t/{tid}?invite={invite}")  # the link Hana sent him
    sit(first.page)
    first.page.close()  # the tab is gone, and the link with it

    watched = Watched(context)
    page = watched.page
    answers: list[str] = []
    page.on("response", lambda r: answers.append(r.text()) if "/api/me/tables" in r.url
            else None)
    page.goto(server.url + "/")
    mine = page.locator("section.your-games")
    row = mine.locator(".table-row", has_text=f"Secret {lang}")
    row.wait_for()
    assert page.locator("section.your-games h2").inner_text() == {
        "en": "Your games", "it": "Le tue partite"}[lang]
    shot(page, f"lobby-your-games-{lang}-{viewport['width']}")
    if viewport is PHONE:
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    row.locator("a.btn").click()  # back to his seat, with no invite in the link
    page.locator(".wait-seat.is-me", has_text=f"Gus {lang}").wait_for()
    assert f"/t/{tid}" in page.url and "invite" not in page.url
    assert answers and all(invite not in text for text in answers)  # never his to see
    assert watched.problems() == [] and first.problems() == []
    context.close()
    hana.close()


def test_D48_nothing_of_yours_no_section(server: Any, browser: Any) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    sign_in(page, server.url, "Newcomer")
    page.locator("#tables-title").wait_for()
    page.wait_for_timeout(500)  # the first listing has come
    assert page.locator("section.your-games").is_hidden()
    assert watched.problems() == []
    context.close()


def test_a_full_waiting_table_is_listed_as_waiting_for_its_start_with_watch(
        server: Any, browser: Any) -> None:
    """A new user saw "waiting for players · 7/7 seats taken" and a Join button: there is
    nothing to join there, only a start to wait for (issue 38's trial)."""
    host = Guest(server.url, "Full host")
    full = host.create(seats=5, name="Every seat taken")["id"]
    host.sit(full, 1)
    host.bots(full, 4)
    room = host.create(seats=5, name="A seat for you")["id"]
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    sign_in(page, server.url, "Looker")
    row = page.locator(".table-row", has_text="Every seat taken")
    row.wait_for()
    assert "waiting for the start" in row.inner_text() and "5/5" in row.inner_text()
    assert row.locator("a.btn").inner_text() == "Watch"
    other = page.locator(".table-row", has_text="A seat for you")
    assert "waiting for players" in other.inner_text()
    assert other.locator("a.btn").inner_text() == "Join"
    assert watched.problems() == []
    context.close()
    for table in (full, room):
        host.http.delete(f"/api/tables/{table}")
