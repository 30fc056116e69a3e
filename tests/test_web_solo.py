"""The browser client against a real `trusis serve`: a whole game from the lobby to the end
screen, and a reload in the middle of a night (issue 9)."""

from __future__ import annotations

import json
import re
import socket
import time

from test_web_support import (
    DESKTOP,
    Helper,
    Watched,
    create_table,
    frames_of,
    needs_chromium,
    pass_now,
    phase_of,
    play_to_end,
    serve,
    shot,
    sign_in,
    sit_and_fill,
    start,
)

pytestmark = needs_chromium


def test_one_person_and_four_bots_from_the_lobby_to_the_end_screen(server, browser) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    sign_in(page, server.url, "Ann")
    page.locator("#ct-seats").fill("5")
    page.locator(".bal-row").first.wait_for(timeout=60000)  # the balance lab's estimate
    shot(page, "lobby-desktop", full_page=True)
    table_id = create_table(page, 5)
    sit_and_fill(page, table_id)
    assert page.locator(".wait-seat.is-taken").count() == 5
    start(page)

    assert re.fullmatch(r"☀ Day 1", phase_of(page))
    assert page.locator(".seat").count() == 5
    assert page.locator(".seat.is-me").count() == 1
    assert re.search(r"\d\d:\d\d", page.locator(".countdown").inner_text())
    assert page.locator(".role-chip").inner_text().startswith("You are ")
    # The seat list is a radio group with one tab stop; arrows move the choice.
    assert page.locator(".ring[role=radiogroup] .seat[tabindex='0']").count() == 1
    page.locator(".seat.is-me").focus()
    page.keyboard.press("ArrowRight")
    selected = page.locator(".seat[aria-checked=true]")
    assert selected.count() == 1
    target = selected.get_attribute("data-seat")
    vote = page.locator(".btn-power[data-do=vote]")
    assert vote.is_enabled()
    vote.click()
    page.locator(".actions-choices", has_text="You vote for").wait_for()
    page.locator(f".seat[data-seat='{target}'] .seat-votes").wait_for()  # the server's tally
    # The vote is cast: the bar no longer asks to press Vote for the seat still selected
    # (a new player read "press 'Vote for …' to make it your choice" as a vote not cast).
    page.locator(".actions-hint", has_text="is your choice already").wait_for()
    assert vote.is_disabled()
    shot(page, "day-desktop")

    page.locator(".btn-pass").click()
    dialog = page.locator("dialog[open]")
    assert "passing locks it" in dialog.inner_text()
    assert f"(seat {target})" in dialog.inner_text()
    dialog.locator(".btn-primary").click()
    play_to_end(page)

    end = page.locator(".endscreen")
    assert end.locator("h1").inner_text().strip()
    assert end.locator(".end-roles tbody tr").count() == 5
    end.locator(".vote-grid").wait_for()  # drawn once the summary, fetched after the end, is in
    assert end.locator(".vote-grid").count() == 1
    assert end.locator(".stats-table tr").count() > 3
    assert end.locator(".stats-players tbody tr").count() == 5
    link = end.locator("a[download]")
    assert link.get_attribute("href") == f"/api/tables/{table_id}/record"
    record = page.request.get(server.url + link.get_attribute("href"))
    assert record.ok and json.loads(record.text())["format"] == "trusis-record/1"
    page.locator("#banners .banner").wait_for(state="detached", timeout=15000)
    shot(page, "end-desktop")
    page.locator(".panel-table").evaluate("el => el.scrollTo(0, el.scrollHeight)")
    shot(page, "end-desktop-stats")
    # The end screen stays until the player leaves it.
    page.wait_for_timeout(1500)
    assert page.locator(".endscreen h1").count() == 1
    page.locator(".end-buttons .btn-primary").click()
    page.locator(".lobby").wait_for()
    assert watched.problems() == []
    context.close()


def test_a_reload_in_the_middle_of_a_night_resumes_the_seat(server, browser) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    helper = Helper(server, "Bea")
    try:
        sign_in(page, server.url, "Ann")
        # 8: Day 1 cannot end the game; a long night: neither person passes in it, and the
        # notebook, the shots and the reload below outlast a 15-second one on a loaded machine.
        table_id = create_table(page, 8, night_seconds=600)
        sit_and_fill(page, table_id, helper.guest)
        start(page)
        helper.connect(table_id)
        page.locator(".chat-row input").fill("good evening")
        page.keyboard.press("Enter")
        page.locator(".chat-line .chat-text", has_text="good evening").wait_for()
        pass_now(page)
        helper.pass_now()
        page.locator("body.theme-night").wait_for()
        page.locator(".statusbar .phase", has_text="Night 1").wait_for()
        page.wait_for_timeout(900)  # dusk: the theme's colours fade in
        shot(page, "night-desktop")
        page.locator("#tab-d-notebook").click()
        page.locator(".nb-row").first.wait_for()
        assert page.locator(".nb-row").count() == 8
        assert page.locator(".nb-row .fact").first.inner_text().startswith("◆")
        page.locator(".nb-row").nth(1).locator("select").first.select_option("suspect")
        page.locator(".nb-row").nth(1).locator("input").fill("too quiet")
        # The note is kept after a short pause in typing (a timer, late on a loaded machine).
        page.wait_for_function("() => Object.keys(localStorage).some("
                               "(k) => (localStorage.getItem(k) || '').includes('too quiet'))")
        shot(page, "notebook-desktop")

        role = page.locator(".role-chip").inner_text()
        log_before = page.locator(".log-line").count()
        seq_before = int(page.evaluate(f"() => sessionStorage.getItem('trusis.seq.{table_id}')"))
        watched.sent.clear()
        watched.received.clear()
        page.reload()
        page.locator(".seat").first.wait_for()
        page.locator(".role-chip:not([hidden])").wait_for()

        hello = json.loads(next(f for f in watched.sent if '"hello"' in f))
        assert hello["last_seq"] >= seq_before  # resumed, not started over
        assert not frames_of(watched, "snapshot")  # the missed events, not a snapshot
        assert "Night 1" in phase_of(page)
        assert page.locator("body.theme-night").count() == 1
        assert page.locator(".role-chip").inner_text() == role
        assert page.locator(".seat.is-me").count() == 1
        page.locator("#tab-d-log").click()
        assert page.locator(".log-line").count() >= log_before
        page.locator("#tab-d-chat").click()
        assert page.locator(".chat-line .chat-text", has_text="good evening").count() == 1
        page.locator("#tab-d-notebook").click()
        row = page.locator(".nb-row").nth(1)
        assert row.locator("select").first.input_value() == "suspect"
        assert row.locator("input").input_value() == "too quiet"
        assert "suspect" in page.locator(".seat").nth(1).inner_text()
        assert watched.problems() == []
    finally:
        helper.close()
        context.close()


def port_free(port: int, timeout: float = 30.0) -> None:
    """Wait until the port can be bound again after the server stopped."""
    deadline = time.monotonic() + timeout
    while True:
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            try:
                sock.bind(("127.0.0.1", port))
                return
            except OSError:
                assert time.monotonic() < deadline, f"port {port} stays taken"
        time.sleep(0.2)


def test_the_client_reconnects_after_the_server_restarts(browser, tmp_path) -> None:
    """The page reconnects by itself when its server is killed and started again, and
    resumes the seat. (Set up over HTTP: the lobby's balance estimate is not needed here.)"""
    with serve(tmp_path) as server:
        context = browser.new_context(viewport=DESKTOP, locale="en-GB")
        watched = Watched(context)
        page = watched.page
        helper = Helper(server, "Bea")
        try:
            api = context.request  # the browser's own cookie
            assert api.post(server.url + "/api/guest", data={"name": "Ann"}).ok
            table = helper.guest.create(seats=8, day_seconds=300, night_seconds=300)
            table_id = table["id"]
            assert api.post(f"{server.url}/api/tables/{table_id}/seats", data={}).ok
            helper.guest.sit(table_id)
            helper.guest.bots(table_id, 6)
            helper.guest.start(table_id)
            page.goto(f"{server.url}/t/{table_id}")
            page.locator(".role-chip:not([hidden])").wait_for()
            helper.connect(table_id)
            page.locator(".seat").nth(3).click()
            page.locator(".btn-power[data-do=vote]").click()
            choice = page.locator(".actions-choices", has_text="You vote for")
            choice.wait_for()
            voted = choice.inner_text()
            role = page.locator(".role-chip").inner_text()

            server.kill()  # a crash: the page notices and says so
            page.locator(".conn.is-bad", has_text="reconnecting").wait_for()
            port_free(server.port)
            server.start()
            page.locator(".conn.is-bad").wait_for(state="detached", timeout=30000)
            assert page.locator(".role-chip").inner_text() == role
            assert page.locator(".actions-choices").inner_text() == voted
            assert phase_of(page) == "☀ Day 1"
            page.locator(".chat-row input").fill("back again")
            page.keyboard.press("Enter")
            page.locator(".chat-line .chat-text", has_text="back again").wait_for()
            assert watched.errors == []  # (the console shows the refused connections)
        finally:
            helper.close()
            context.close()
