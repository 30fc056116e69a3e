"""Issue 37 in Debian's Chromium against a real `trusis serve`: a slow table created from the
lobby's form with the keyboard (D62: a preset, then hours of one's own), listed apart with its
pace; then "Your games" (D64): the count of games waiting in the lobby and in the title, the
page with the phase, the time left, what to do and a whisper that came while away, reached
and left with the keyboard, in English, Italian and French."""

from __future__ import annotations

import re
from typing import Any

from a11y_support import axe_problems
from serverproc import Guest, Player, ServerProcess
from test_web_support import (
    DESKTOP,
    PHONE,
    Watched,
    fill_with_bots,
    needs_chromium,
    pass_now,
    shot,
    sign_in,
    sit,
)

pytestmark = needs_chromium

HOUR = 3600


def test_D62_D64_a_slow_game_is_made_and_followed_from_your_games(
        server: ServerProcess, browser: Any) -> None:
    # axe-core is injected as a script (a11y_support.py): the page's CSP is bypassed for it;
    # the same walk without it found no CSP violation (the first runs of this test).
    context = browser.new_context(viewport=DESKTOP, locale="en-GB", bypass_csp=True)
    watched = Watched(context)
    page = watched.page
    sign_in(page, server.url, "Nora")

    # The pace, with the keyboard: Slow game, the "Evenings" preset, then hours of her own.
    page.locator("#ct-live").focus()
    page.keyboard.press("ArrowDown")  # the radio group's next choice
    assert page.locator("#ct-slow").is_checked()
    assert page.locator("#ct-day").is_hidden() and page.locator("#ct-grace").is_hidden()
    assert page.locator("#ct-day-hours").input_value() == "20"  # "a day a day" first
    page.locator("#ct-preset").select_option("evenings")
    assert (page.locator("#ct-day-hours").input_value(),
            page.locator("#ct-night-hours").input_value()) == ("3", "1")
    page.locator("#ct-day-hours").fill("30")
    assert page.locator("#ct-preset").input_value() == "custom"
    page.get_by_text("nobody is replaced for sleeping").wait_for()  # D63, said where it is chosen
    page.locator("#ct-name").fill("Across time zones")
    page.locator(".dealt-list").wait_for()
    shot(page, "slow-create-en", full_page=True)
    problems = axe_problems(page, "slow table form 1280")
    page.locator("form.create button[type=submit]").click()
    page.locator(".waiting h1").wait_for()
    table_id = re.search(r"/t/([^/?#]+)", page.url).group(1)  # type: ignore[union-attr]
    options = page.request.get(f"{server.url}/api/tables/{table_id}").json()["options"]
    assert (options["slow"], options["day_seconds"], options["night_seconds"]) == (
        True, 30 * HOUR, HOUR)

    head = page.locator(".waiting-head").inner_text()
    # A number and its unit never part at a line's end (no-break spaces): read as spaces here.
    head = head.replace("\xa0", " ")
    assert "slow: day 30 h, night 1 h" in head and "a bot takes over after 31 h away" in head
    ola = Guest(server.url, "Ola")
    sit(page)
    ola.sit(table_id)
    page.locator(".wait-seat", has_text="Ola").wait_for()
    fill_with_bots(page)
    page.locator(".btn-start").click()
    page.locator(".role-chip:not([hidden])").wait_for()
    # Hours left, not a clock: "29:59:58" read as a time of day to a new user; the end is its
    # title.
    countdown = page.locator(".statusbar .countdown")
    countdown.get_by_text(re.compile(r"^29\sh\s\d+\smin$")).wait_for()
    assert (countdown.get_attribute("title") or "").startswith("until ")
    shot(page, "slow-table-en")

    # Away from the game: the lobby counts it as waiting for her, and lists it apart.
    page.goto(server.url + "/")
    page.locator("#mine-waiting", has_text="1 game waits for you").wait_for()
    page.wait_for_function("() => document.title === '(1) Trusis'")
    row = page.locator(".slow-tables .table-row", has_text="Across time zones")
    assert "slow: day 30 h, night 1 h" in row.inner_text().replace("\xa0", " ")
    assert page.locator(".tables .table-row", has_text="Across time zones").count() == 0
    ola_page = Player(server, table_id, ola.token)
    ola_page.until(lambda p: p.view is not None and p.view["status"] == "running")
    nora_seat = next(s["seat"] for s in ola_page.view["players"] if s["name"] == "Nora")
    assert ola_page.command(do="say", text="Nora, who do you trust?", to=nora_seat)["type"] == "ack"
    assert ola_page.command(do="say", text="Good morning everyone")["type"] == "ack"
    shot(page, "slow-lobby-en", full_page=True)
    problems += axe_problems(page, "lobby with slow games 1280")

    # Your games, from the lobby's link, with the keyboard.
    page.locator("#all-games").focus()
    page.keyboard.press("Enter")
    page.get_by_role("heading", name="Your games", level=1).wait_for()
    assert page.url.endswith("/games")
    game = page.locator(".yours-row", has_text="Across time zones")
    game.get_by_text("Your turn: choose, then pass").wait_for()
    text = game.inner_text()
    assert "Day 1" in text and re.search(r"29\sh\s\d+\smin left", text), text
    # Her one line at least is new (the bots may have answered it meanwhile: D70's lot is
    # seeded by the day's first line, and a bot voting it says so), and one private message.
    new = re.search(r"(\d+) new messages?", text)
    assert new is not None and int(new.group(1)) >= 1 and "1 private message" in text, text
    assert "Who do you trust" not in page.content()  # counted, never quoted here
    page.wait_for_function("() => document.title === '(1) Your games — Trusis'")
    shot(page, "your-games-en", full_page=True)
    problems += axe_problems(page, "your games 1280")
    page.get_by_role("link", name="Open Across time zones").focus()
    page.keyboard.press("Enter")
    page.locator(".role-chip:not([hidden])").wait_for()
    page.locator(".btn-pass:not([disabled])").wait_for()
    assert pass_now(page)
    page.wait_for_function("() => !document.title.startsWith('(1)')")

    # Back in Your games: done for this phase, everything read, in French too.
    page.goto(server.url + "/games")
    game = page.locator(".yours-row", has_text="Across time zones")
    game.get_by_text("Done for this phase").wait_for()
    assert "nothing new" in game.inner_text()
    # A game leaves the list when it ends: the page says where it is then (a new user
    # found no way back to a finished game's replay).
    finished = page.locator("#games-finished")
    assert "are on your profile" in finished.inner_text()
    assert (finished.locator("a").get_attribute("href") or "").startswith("/p/")
    page.locator("#lang-select").select_option("fr")
    page.get_by_role("heading", name="Vos parties", level=1).wait_for()
    page.get_by_text("Fini pour cette phase").wait_for()
    page.get_by_text("Aucune partie ne vous attend.").wait_for()
    page.locator("#games-finished", has_text="sont sur votre profil").wait_for()
    page.locator("#lang-select").select_option("it")
    page.get_by_role("heading", name="Le tue partite", level=1).wait_for()
    page.get_by_text("Finito per questa fase").wait_for()
    page.locator("#lang-select").select_option("fr")
    page.get_by_role("heading", name="Vos parties", level=1).wait_for()
    page.set_viewport_size(PHONE)
    shot(page, "your-games-fr-phone", full_page=True)
    problems += axe_problems(page, "your games 390 fr")
    assert not problems, problems
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width  # nothing leaves a phone's screen
    assert not watched.problems(), watched.problems()
    ola_page.close()
    ola.close()
    context.close()


def test_your_games_is_a_link_of_the_top_bar_reached_with_the_keyboard(
        server: ServerProcess, browser: Any) -> None:
    """"Your games" (D64) was reached only from the lobby's own list, which shows once a
    game is there: the top bar now holds it, for whoever is signed in, named in the page's
    language (its words stay its name on a phone, where only its mark shows)."""
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    page.goto(server.url + "/")
    page.locator("#account-button").wait_for()
    assert page.locator("#tools a[href='/games']").count() == 0  # nobody signed in yet
    sign_in(page, server.url, "Tess")
    link = page.locator("#tools a[href='/games']")
    assert page.get_by_role("link", name="Your games", exact=True).count() == 1
    page.locator("#brand").focus()
    for _ in range(12):  # Tab from the brand along the top bar
        page.keyboard.press("Tab")
        if link.evaluate("el => el === document.activeElement"):
            break
    else:
        raise AssertionError("Tab never reached Your games")
    shot(page, "top-bar-your-games-phone")
    page.keyboard.press("Enter")
    page.locator(".your-games-page h1", has_text="Your games").wait_for()
    assert page.url.endswith("/games")
    page.locator("#lang-select").select_option("fr")
    page.get_by_role("link", name="Vos parties", exact=True).wait_for()
    page.locator("#lang-select").select_option("it")
    page.get_by_role("link", name="Le tue partite", exact=True).wait_for()
    assert watched.problems() == []
    context.close()
