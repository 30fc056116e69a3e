"""The browser client across two `trusis serve` processes (issue 13): a host on process a, a
second person on process b, each in a browser of their own, using the pages as players do.

The host opens the lobby on a and creates a table of 5; the other person follows the
table's link on b (the same path, b's port), chooses a name and sits there. Each waiting
room shows the other's seat as it is taken, and the bots the host adds on a; the host
starts on a and both pages turn to the game. From b, a public chat line and a vote reach
the host's page on a (the vote in the tally, the pass on the seat); then both pass through
the pages until the end screen shows on both. Screenshots of b's page during the day and
at the end go where test_web_support puts them.
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

from clusterproc import Cluster, needs_cluster
from test_web_support import (
    DESKTOP,
    Watched,
    chromium,
    create_table,
    fill_with_bots,
    finished,
    needs_chromium,
    pass_now,
    phase_of,
    shot,
    sign_in,
    sit,
    start,
)

pytestmark = [
    needs_chromium,
    *needs_cluster,
]

WAIT = 30000  # ms: generous, for a loaded machine
DAY = 600  # seconds: passes end the day; the timer only has to outlast a slow machine (with
# 90, the two pages leaving and coming back, the chat and the vote, each awaited up to WAIT,
# could outlast Day 1 on a loaded machine, and its "☀ Day 1" checks met Night 1 or the end)


def seat_of(page: Any, name: str) -> str:
    """The seat whose name is exactly `name` (a bot's "Yann" contains "Ann")."""
    named = page.locator(".seat-name", has_text=re.compile(rf"^{re.escape(name)}$"))
    card = page.locator(".seat").filter(has=named)
    assert card.count() == 1, name
    seat = card.get_attribute("data-seat")
    assert seat, name
    return str(seat)


def both_to_the_end(pages: list[Any], timeout: float = 150.0) -> None:
    """Each page passes whenever it may, until both show the end screen."""
    deadline = time.monotonic() + timeout
    while not all(finished(p) for p in pages):
        assert time.monotonic() < deadline, f"the game did not end; at {phase_of(pages[0])}"
        for page in pages:
            if not finished(page):
                pass_now(page)
        pages[0].wait_for_timeout(300)
    for page in pages:
        page.locator(".endscreen .end-roles tbody tr").first.wait_for(timeout=WAIT)


def test_a_host_on_one_process_and_a_player_on_the_other(two_processes: Cluster) -> None:
    a, b = two_processes.servers
    with chromium() as browser:
        contexts = [browser.new_context(viewport=DESKTOP, locale="en-GB") for _ in range(2)]
        host, guest = (Watched(c) for c in contexts)
        for w in (host, guest):
            w.page.set_default_timeout(WAIT)
        try:
            # The host's lobby and table on a; the link opened on b, where Bob signs in.
            sign_in(host.page, a.url, "Ann")
            table_id = create_table(host.page, 5, day_seconds=DAY)
            guest.page.goto(f"{b.url}/t/{table_id}")
            guest.page.locator("form.name-form input").fill("Bob")
            guest.page.locator("form.name-form button[type=submit]").click()
            guest.page.locator(".wait-seat.is-free .btn").first.wait_for()
            assert guest.page.locator(".wait-seat.is-taken").count() == 0

            # Each waiting room shows the seat the other takes, on the other process.
            sit(host.page)
            guest.page.locator(".wait-seat.is-taken .wait-name", has_text="Ann").wait_for()
            sit(guest.page)
            host.page.locator(".wait-seat.is-taken .wait-name", has_text="Bob").wait_for()
            fill_with_bots(host.page)
            guest.page.locator(".waiting h2", has_text="Seats: 5/5 taken").wait_for()
            assert guest.page.locator(".wait-seat.is-taken").count() == 5
            assert guest.page.locator(".wait-seat .badge", has_text="bot").count() == 3
            assert guest.page.locator(".btn-start").count() == 0  # only the host starts

            start(host.page)
            guest.page.locator(".seat").first.wait_for()
            guest.page.locator(".role-chip:not([hidden])").wait_for()
            for w in (host, guest):
                assert re.fullmatch(r"☀ Day 1", phase_of(w.page))
                assert w.page.locator(".seat").count() == 5
                assert w.page.locator(".seat.is-me").count() == 1
                # At the start each page reconnects for a fresh snapshot: its connection
                # line may say so a moment before the new connection is open.
                w.page.locator(".conn.is-bad").wait_for(state="detached")
            ann, bob = seat_of(guest.page, "Ann"), seat_of(guest.page, "Bob")
            assert guest.page.locator(".seat.is-me").get_attribute("data-seat") == bob
            assert seat_of(host.page, "Bob") == bob and seat_of(host.page, "Ann") == ann
            # Both people are connected, each seen from the other process.
            for w, other in ((host, bob), (guest, ann)):
                w.page.locator(f".seat[data-seat='{other}']:not(.is-offline)").wait_for()
                assert w.page.locator(".seat.is-offline").count() == 0

            # Who is away, each seen from the other process: Bob leaves the page on b, and
            # comes back; then Ann on a.
            guest.page.goto(f"{b.url}/")
            guest.page.locator(".lobby").wait_for()
            host.page.locator(f".seat.is-offline[data-seat='{bob}'] .badge-offline").wait_for()
            guest.page.goto(f"{b.url}/t/{table_id}")
            guest.page.locator(".role-chip:not([hidden])").wait_for()
            host.page.locator(f".seat[data-seat='{bob}']:not(.is-offline)").wait_for()
            host.page.goto(f"{a.url}/")
            host.page.locator(".lobby").wait_for()
            guest.page.locator(f".seat.is-offline[data-seat='{ann}'] .badge-offline").wait_for()
            shot(guest.page, "cluster-offline-desktop")
            host.page.goto(f"{a.url}/t/{table_id}")
            host.page.locator(".role-chip:not([hidden])").wait_for()
            guest.page.locator(f".seat[data-seat='{ann}']:not(.is-offline)").wait_for()
            for w in (host, guest):
                assert w.page.locator(".seat.is-offline").count() == 0
                assert re.fullmatch(r"☀ Day 1", phase_of(w.page))

            # A public chat line from b, on a.
            text = f"hello from b {secrets.token_hex(3)}"
            guest.page.locator(".chat-row input").fill(text)
            guest.page.keyboard.press("Enter")
            guest.page.locator(".chat-line.is-mine .chat-text", has_text=text).wait_for()
            host.page.locator(".chat-line .chat-text", has_text=text).wait_for()
            assert "Bob" in host.page.locator(".chat-line", has_text=text).inner_text()

            # A vote from b through the action panel: the host's page shows it in the tally.
            guest.page.locator(f".seat[data-seat='{ann}']").click()
            guest.page.locator(".btn-power[data-do=vote]").click()
            guest.page.locator(".actions-choices", has_text="You vote for").wait_for()
            for w in (host, guest):  # the server's tally, with Bob's seat among the voters
                tally = w.page.locator(f".seat[data-seat='{ann}'] .seat-votes")
                tally.locator(".chip", has_text=re.compile(rf"^{bob}$")).wait_for()
            shot(guest.page, "cluster-day-desktop")

            # Bob passes on b; the host sees his seat passed.
            guest.page.locator(".btn-pass:not([disabled])").click()
            guest.page.locator("dialog[open] .btn-primary").click()
            guest.page.locator(f".seat.is-me.is-passed[data-seat='{bob}']").wait_for()
            host.page.locator(f".seat.is-passed[data-seat='{bob}']").wait_for()
            both_to_the_end([host.page, guest.page])

            for w in (host, guest):
                end = w.page.locator(".endscreen")
                assert end.locator("h1").inner_text().strip()
                assert end.locator(".end-roles tbody tr").count() == 5
            assert (host.page.locator(".endscreen h1").inner_text()
                    == guest.page.locator(".endscreen h1").inner_text())
            guest.page.locator("#banners .banner").wait_for(state="detached", timeout=WAIT)
            shot(guest.page, "cluster-end-desktop")
            assert guest.page.url.startswith(b.url) and host.page.url.startswith(a.url)
            assert two_processes.health(0)["owned"] == 1
            assert two_processes.health(1)["forwarded"] > 0  # b's commands went to a
            for w in (host, guest):
                assert w.problems() == []
        finally:
            for c in contexts:
                c.close()
