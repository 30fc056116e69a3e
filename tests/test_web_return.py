"""Coming back to a seat in the page (issue 21, "Seats"; R52, R53, D29, D31), in real Chromium at
1280 and 390 px: a player whose grace period ran out opens the table again and plays their seat
(role, log line, no "disconnected" on their own seat after a reload); a player who leaves on
purpose is told what it means, and comes back through the link the host makes in the page
(`/t/{id}#claim=CODE`, which the page claims by itself)."""

from __future__ import annotations

import re
import time

import pytest

from a11y_support import axe_problems
from test_server_return import finished_with_a_takeover
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
GRACE = 5
SIZES = {"desktop": DESKTOP, "phone": PHONE}
LOCALE = {"desktop": "en-GB", "phone": "fr-FR"}  # Bob: the friend on the phone is French
WORDS = {
    "en-GB": {"dialog": "only the host can let you back", "left": "You left this game",
              "back": "Welcome back", "claimed": "You play seat 2"},
    "fr-FR": {"dialog": "seul l'hôte peut vous laisser revenir",
              "left": "Vous avez quitté cette partie", "back": "Bon retour",
              "claimed": "Vous jouez la place 2"},
}


def table_with_bob(server, browser, size: str) -> tuple[Watched, Watched, str]:
    """Ann hosts at seat 1, Bob at seat 2 (both at `size`; Bob in his language), three bots;
    started."""
    # bypass_csp: axe-core is added to the page as a script (a11y_support.py).
    ann = Watched(browser.new_context(viewport=SIZES[size], locale="en-GB", bypass_csp=True))
    bob = Watched(browser.new_context(viewport=SIZES[size], locale=LOCALE[size],
                                      bypass_csp=True))
    sign_in(ann.page, server.url, "Ann")
    ann.page.locator("#ct-grace").fill(str(GRACE))
    table_id = create_table(ann.page, 5, day_seconds=600)
    sit(ann.page)
    bob.page.goto(f"{server.url}/t/{table_id}")
    bob.page.locator("form.name-form input").fill("Bob")
    bob.page.locator("form.name-form button[type=submit]").click()
    sit(bob.page)
    ann.page.locator(".wait-seat", has_text="Bob").wait_for()  # a click during a redraw is lost
    fill_with_bots(ann.page)
    start(ann.page)
    bob.page.locator(".seat.is-me").wait_for()
    return ann, bob, table_id


def seat_of_bob(page) -> object:
    return page.locator('.seat[data-seat="2"]')


@pytest.mark.parametrize("size", SIZES)
def test_R52_D29_D52_away_too_long_the_player_comes_back_to_their_seat(server, browser,
                                                                        size: str) -> None:
    """Bob's phone drops, a bot takes his seat (R52), and Ann, the host, is told in his
    seat's card from when it may go to a person (D52), in the place of the link, which is
    not offered before (the server would refuse it); Bob then comes back (D29)."""
    ann, bob, table_id = table_with_bob(server, browser, size)
    words = WORDS[LOCALE[size]]
    try:
        role = bob.page.locator(".role-chip").inner_text()
        # After a reload, your own seat is connected (it showed "⚡ disconnected"): on a phone
        # the table's facts (`GET`, read while its dropped connection was gone and the new one
        # not there yet) may arrive after the new connection's own — as here, held back 1 s.
        def late(route) -> None:
            answer = route.fetch()
            time.sleep(1.0)
            route.fulfill(response=answer)

        bob.page.goto("about:blank")  # the phone dropped its connection a moment ago
        bob.page.wait_for_timeout(700)
        bob.page.route(re.compile(r"/api/tables/[^/?#]+(\?.*)?$"), late)
        bob.page.goto(f"{server.url}/t/{table_id}")
        bob.page.locator(".seat.is-me").wait_for()
        bob.page.wait_for_timeout(1500)
        assert bob.page.locator(".seat.is-me .badge-offline").count() == 0
        assert bob.page.locator(".seat.is-me.is-offline").count() == 0
        bob.page.unroute_all()

        bob.page.goto("about:blank")  # the phone locks: the grace period runs (R52)
        seat_of_bob(ann.page).locator(".badge-bot").wait_for(timeout=(GRACE + 20) * 1000)
        wait = ann.page.locator('.departed[data-seat="2"] .hand-wait')
        wait.wait_for()
        shot(ann.page, f"return-host-departed-{size}")
        said = wait.inner_text()
        assert re.search(r"^A person can take Bob \(seat 2\) from \d\d:\d\d:\d\d: until then "
                         r"its player may come back \(a bot can play the seat meanwhile\)\.$",
                         said), said
        assert ann.page.locator('.departed[data-seat="2"] .btn-link').count() == 0  # D52
        assert ann.page.locator('.departed[data-seat="2"] .claim-url').count() == 0
        shot(ann.page, f"return-host-wait-{size}")
        assert not axe_problems(ann.page, "the host told to wait for a person (D52)")

        # Bob opens the table again (D29). The table's facts (`GET`) are held back 1 s, as
        # a busy phone may: arriving after the connection's own `welcome`, they must not put
        # the bot back even if they were read before the connection took the seat back. And
        # the page may draw the seat a moment before `welcome` says it is his again: the
        # badge goes once it has.
        bob.page.route(re.compile(r"/api/tables/[^/?#]+(\?.*)?$"), late)
        bob.page.goto(f"{server.url}/t/{table_id}")
        me = bob.page.locator(".seat.is-me")
        me.wait_for()
        assert me.get_attribute("data-seat") == "2"
        assert bob.page.locator(".role-chip").inner_text() == role
        bob.page.locator("#banners .banner", has_text=words["back"]).wait_for()
        me.locator(".badge-bot").wait_for(state="detached")
        bob.page.wait_for_timeout(1500)  # the late facts have come
        assert me.locator(".badge-bot").count() == 0
        bob.page.unroute_all()
        ann.page.locator(".log", has_text="is back").first.wait_for(state="attached")
        seat_of_bob(ann.page).locator(".badge-bot").wait_for(state="detached")
        bob.page.wait_for_timeout(500)
        shot(bob.page, f"return-back-{size}")
        refused = [p for p in ann.problems() if "409 (Conflict)" not in p]  # the refusal
        assert not bob.problems() and not refused, (bob.problems(), refused)
    finally:
        ann.page.context.close()
        bob.page.context.close()


@pytest.mark.parametrize("size", SIZES)
def test_R52_D31_leaving_on_purpose_and_back_with_the_hosts_link(server, browser,
                                                                 size: str) -> None:
    ann, bob, table_id = table_with_bob(server, browser, size)
    words = WORDS[LOCALE[size]]
    try:
        bob.page.locator(".table-foot .btn-leave").click()  # ⎋ Leave the game
        dialog = bob.page.locator("dialog[open]")
        assert words["dialog"] in dialog.inner_text()
        shot(bob.page, f"return-leave-dialog-{size}")
        dialog.locator(".btn-danger").click()
        bob.page.locator(".table-away .card", has_text=words["left"]).wait_for()
        bob.page.reload()  # opening the table again does not bring the seat back (D31)
        bob.page.locator(".table-away .card", has_text=words["left"]).wait_for()
        assert bob.page.locator(".seat.is-me.is-left").count() == 1
        shot(bob.page, f"return-left-{size}")
        assert not axe_problems(bob.page, "the notice of a seat left on purpose")

        ann.page.locator('.departed[data-seat="2"] .btn-link').click()
        url = ann.page.locator('.departed[data-seat="2"] .claim-url').input_value()
        assert f"/t/{table_id}#claim=" in url
        shot(ann.page, f"return-host-link-{size}")
        assert not axe_problems(ann.page, "the host's link to a departed seat")

        bob.page.goto(url)  # the page claims the seat by itself
        bob.page.locator(".seat.is-me:not(.is-left)").wait_for()
        bob.page.locator("#banners .banner", has_text=words["claimed"]).wait_for()
        assert "#claim" not in bob.page.url  # spent: not left in the address bar
        assert bob.page.locator(".table-away .card").count() == 0
        ann.page.locator(".log", has_text="is back").first.wait_for(state="attached")
        shot(bob.page, f"return-claimed-{size}")
        assert not bob.problems() and not ann.problems(), (bob.problems(), ann.problems())
    finally:
        ann.page.context.close()
        bob.page.context.close()


@pytest.mark.parametrize("size", SIZES)
def test_R53_the_replay_marks_who_held_each_seat_when(server, browser, size: str) -> None:
    """Bob's seat was his until he left and a bot took it: the replay shows no
    "⚙ bot" on it at the first step and shows it at the last; a bot from the start is one
    all along."""
    _host, _bob, table_id = finished_with_a_takeover(server)
    viewer = Watched(browser.new_context(viewport=SIZES[size], locale="en-GB"))
    try:
        viewer.page.goto(f"{server.url}/t/{table_id}/replay?step=0")
        viewer.page.locator('.seat[data-seat="3"] .badge-bot').wait_for()
        assert seat_of_bob(viewer.page).locator(".badge-bot").count() == 0
        shot(viewer.page, f"return-replay-first-{size}")
        viewer.page.locator(".step-last").click()
        seat_of_bob(viewer.page).locator(".badge-bot").wait_for()
        shot(viewer.page, f"return-replay-last-{size}")
        assert not viewer.problems(), viewer.problems()
    finally:
        viewer.page.context.close()


def test_D31_the_host_who_left_is_told_how_to_come_back(server, browser) -> None:
    """The host who left on purpose read "The host can let you back with a link": they are
    the host. The notice now says how they let themselves back, and it works."""
    ann, bob, _table_id = table_with_bob(server, browser, "desktop")
    try:
        ann.page.locator(".table-foot .btn-leave").click()
        ann.page.locator("dialog[open] .btn-danger").click()
        notice = ann.page.locator(".table-away .card", has_text="As the host")
        notice.wait_for()
        assert "The host can let you back" not in notice.inner_text()
        shot(ann.page, "return-host-left")
        ann.page.locator('.departed[data-seat="1"] .btn-link').click()
        url = ann.page.locator('.departed[data-seat="1"] .claim-url').input_value()
        ann.page.goto(url)
        ann.page.locator(".seat.is-me:not(.is-left)").wait_for()
        assert ann.page.locator(".table-away .card").count() == 0
        assert not ann.problems() and not bob.problems(), (ann.problems(), bob.problems())
    finally:
        ann.page.context.close()
        bob.page.context.close()
