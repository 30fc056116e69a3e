"""One WebSocket a page, from the waiting room into the game (issue 36), in Debian's Chromium
against a real `trusis serve`.

The server sends every change of the waiting room and the start on the sockets that are
open: a seat taken, left or taken again, a bot added or removed, the host filling the
table, the start (each client's first view as a `snapshot`). Bob's page watches, sits,
stands, sits again and then sees the game start; Ann's page hosts, sits, adds a bot,
removes it, fills the table and starts. Each page opens one WebSocket for all of it, hears
one `welcome` and one `snapshot`; Bob's seat shows connected to Ann as soon as he sits (his
open connection plays it), and his chat box talks to everyone. A real drop still
reconnects with `last_seq` (tests/test_web_connection.py).
"""

from __future__ import annotations

from typing import Any

from test_web_support import (
    DESKTOP,
    Watched,
    create_table,
    frames_of,
    needs_chromium,
    shot,
    sign_in,
    sit,
)

pytestmark = needs_chromium


def quiet(*pages: Watched) -> None:
    """Let what the server sent for the last step reach the pages (a coalesced `table`
    leaves within 0.1 s)."""
    pages[0].page.wait_for_timeout(400)


def says(page: Any, placeholder: str) -> None:
    """The chat box's placeholder comes to be `placeholder` (who the page says it talks to)."""
    page.wait_for_function("(text) => document.querySelector('#chat-input')?.placeholder === text",
                           arg=placeholder)


def test_a_page_keeps_one_websocket_through_seat_changes_and_the_start(
        server: Any, browser: Any) -> None:
    ann_w = Watched(browser.new_context(viewport=DESKTOP, locale="en-GB"))
    bob_w = Watched(browser.new_context(viewport=DESKTOP, locale="en-GB"))
    ann, bob = ann_w.page, bob_w.page
    sign_in(ann, server.url, "Ann")
    table = create_table(ann, 5)
    sit(ann)
    sign_in(bob, server.url, "Bob")
    bob.goto(f"{server.url}/t/{table}")  # he watches
    bob.locator(".waiting h1").wait_for()
    bob.wait_for_function("() => window.trusis.screen?.store?.tableUpdates > 0")
    quiet(ann_w, bob_w)

    sit(bob)  # a spectator becomes a seated player
    bob_row = ann.locator(".wait-seat", has_text="Bob")
    bob_row.wait_for()
    bob.locator(".wait-seat.is-me").wait_for()
    # His open connection plays the seat: connected, and his chat talks to everyone.
    ann.wait_for_function(
        "() => window.trusis.screen.store.table.seats.some((s) => s.name === 'Bob' && s.connected)")
    assert bob_row.locator(".badge", has_text="offline").count() == 0
    says(bob, "Message to everyone")
    bob.locator("[data-focus=stand]").click()  # and stands again
    bob.locator(".wait-seat.is-me").wait_for(state="detached")
    ann.locator(".wait-seat", has_text="Bob").wait_for(state="detached")
    says(bob, "Commands only, such as /help")  # a spectator's box again
    sit(bob)  # and takes a seat again
    ann.locator(".wait-seat", has_text="Bob").wait_for()
    bob.locator("#chat-input").fill("ready when you are")
    bob.locator("#chat-input").press("Enter")
    ann.locator(".chat-line", has_text="ready when you are").wait_for()

    free = ann.locator(".wait-seat.is-free").first
    free.locator("[data-focus^=bot-]").click()  # the host adds a bot
    bot_row = ann.locator(".wait-seat", has=ann.locator(".badge", has_text="bot ·"))
    bot_row.wait_for()
    bot_row.locator("[data-focus^=free-]").click()  # and removes it
    bot_row.wait_for(state="detached")
    ann.locator("[data-focus=fill]").click()  # then fills the table
    ann.locator(".btn-start:not([disabled])").wait_for()
    bob.wait_for_function(
        "() => window.trusis.screen.store.table.seats.every((s) => s.kind)")
    quiet(ann_w, bob_w)
    shot(bob, "one-socket-waiting-bob")

    ann.locator(".btn-start").click()
    for page in (ann, bob):
        page.locator(".role-chip:not([hidden])").wait_for()
    quiet(ann_w, bob_w)
    shot(bob, "one-socket-started-bob")
    for page in (ann, bob):  # what was said before the game, once, under its heading (D45)
        assert page.locator(".chat-line.is-before-head").count() == 1
        assert page.locator(".chat-line", has_text="ready when you are").count() == 1
    seats = {"Ann": ann.evaluate("window.trusis.screen.store.seat"),
             "Bob": bob.evaluate("window.trusis.screen.store.seat")}
    assert all(isinstance(seat, int) for seat in seats.values()), seats
    for name, watched in (("Ann", ann_w), ("Bob", bob_w)):
        assert len(watched.sockets) == 1, (name, watched.sockets)
        assert len(frames_of(watched, "welcome")) == 1, name
        snapshots = frames_of(watched, "snapshot")
        assert len(snapshots) == 1, name
        assert snapshots[0]["view"]["seat"] == seats[name], name
        assert not watched.problems(), (name, watched.problems())
    for watched in (ann_w, bob_w):
        watched.page.context.close()
