"""A connection that drops without a word, in real Chromium against a real `trusis serve`
(found by a new user's phone, offline for 45 to 130 seconds: the board looked live, the timer
counted, a tap on "Vote for X" only greyed the buttons).

A network that goes away closes no WebSocket for minutes. The page pings the server every
few seconds (docs/protocol.md, `ping`/`pong`) and takes a ping left unanswered as a lost
connection; the browser's `offline` says so at once and `online` reconnects at once. Two
ways to lose it here: Playwright's `set_offline` (the browser knows), and a socket whose
frames stop in both directions while it stays open (nobody tells the browser: only the
missing `pong` does), made with `route_web_socket`."""

from __future__ import annotations

import contextlib
import re
import time
from typing import Any

from playwright.sync_api import Page

from a11y_support import axe_problems
from test_web_support import (
    DESKTOP,
    PHONE,
    Helper,
    Watched,
    create_table,
    fill_with_bots,
    needs_chromium,
    phase_of,
    shot,
    sign_in,
    sit,
    sit_and_fill,
    start,
)

pytestmark = needs_chromium

SOCKETS = re.compile(r"/ws/tables/")


def real_problems(watched: Watched) -> list[str]:
    """Script errors, less the browser's own line for each socket that could not open while
    the network was away (what the test did on purpose)."""
    return [p for p in watched.problems()
            if "WebSocket connection to" not in p and "ERR_INTERNET_DISCONNECTED" not in p]


class Cuttable:
    """Every WebSocket of a page goes through the test: `cut()` makes the ones open now
    silent in both directions (the page's stays open; the server's side is closed, as a
    server's own timeout would), and while `blocked` a new one is closed as soon as it
    opens (the network is still away); later ones pass as usual."""

    def __init__(self, page: Page) -> None:
        self.sockets: list[dict[str, Any]] = []
        self.blocked = False
        page.route_web_socket(SOCKETS, self.route)

    def route(self, ws: Any) -> None:
        if self.blocked:
            ws.close()
            return
        entry: dict[str, Any] = {"cut": False, "page": ws}
        server = ws.connect_to_server()
        entry["server"] = server

        def to_server(message: Any) -> None:
            if not entry["cut"]:
                server.send(message)

        def to_page(message: Any) -> None:
            if not entry["cut"]:
                ws.send(message)

        def page_closed(code: Any, reason: Any) -> None:
            with contextlib.suppress(Exception):
                server.close()

        def server_closed(code: Any, reason: Any) -> None:
            if not entry["cut"]:
                with contextlib.suppress(Exception):
                    ws.close(code=code, reason=reason)

        ws.on_message(to_server)
        server.on_message(to_page)
        ws.on_close(page_closed)
        server.on_close(server_closed)
        self.sockets.append(entry)

    def cut(self) -> None:
        for entry in self.sockets:
            if not entry["cut"]:
                entry["cut"] = True
                with contextlib.suppress(Exception):
                    entry["server"].close()


def lost_notice(page: Page) -> Any:
    return page.locator(".statusbar .conn-lost:visible")


def test_a_phone_offline_says_so_keeps_the_vote_and_is_back_at_once(server, browser) -> None:
    """Offline (`set_offline`): within seconds the bar says the connection is lost and what
    happens to a choice made meanwhile; a vote tapped then says it waits for the
    connection; back online the page reconnects at once (not after its backoff) and the
    vote goes through."""
    # bypass_csp: axe-core is added to the page as a script (a11y_support.py).
    context = browser.new_context(viewport=PHONE, locale="en-GB", is_mobile=True,
                                  has_touch=True, device_scale_factor=2, bypass_csp=True)
    watched = Watched(context)
    page = watched.page
    try:
        sign_in(page, server.url, "Ann")
        table_id = create_table(page, 5, day_seconds=600)
        sit_and_fill(page, table_id)
        start(page)
        assert "Day 1" in phase_of(page)
        page.locator(".conn.is-bad").wait_for(state="detached")
        assert lost_notice(page).count() == 0

        went = time.monotonic()
        context.set_offline(True)
        page.locator(".conn.is-bad").wait_for(timeout=15000)
        assert time.monotonic() - went < 15
        notice = lost_notice(page)
        notice.wait_for()
        assert "sent when the connection is back" in notice.inner_text()
        assert "not applied" in notice.inner_text()
        # Nothing over the bar: the notice is in sight on the phone.
        box = notice.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONE["height"]

        target = page.locator(".seat:not(.is-me):not(.is-dead)").first
        name = target.locator(".seat-name").inner_text()
        target.click()
        page.locator('.btn-power[data-do="vote"]:not([disabled])').click()
        waiting = page.locator(".actions-hint.is-waiting")
        waiting.wait_for()
        assert "goes out as soon as the connection is back" in waiting.inner_text()
        page.wait_for_timeout(300)
        shot(page, "connection-offline-phone")
        assert not axe_problems(page, "the notice of a lost connection")

        # Keep it offline long enough for the backoff to grow past several seconds.
        page.wait_for_timeout(12000)
        assert page.locator(".conn.is-bad").count() == 1
        back = time.monotonic()
        context.set_offline(False)
        page.locator(".conn.is-bad").wait_for(state="detached", timeout=10000)
        assert time.monotonic() - back < 4, "back online, the page waited for its backoff"
        assert lost_notice(page).count() == 0
        page.locator(".actions-choices", has_text=name).wait_for()
        assert page.locator(".actions-hint.is-waiting").count() == 0
        shot(page, "connection-back-phone")
        assert real_problems(watched) == []
    finally:
        context.close()


def test_a_silent_network_is_found_by_the_unanswered_ping(server, browser) -> None:
    """No `offline` event, no `close`: the socket only stops carrying anything. The page
    finds out from its unanswered ping within seconds, says so (in Italian here), and
    connects again by itself."""
    context = browser.new_context(viewport=DESKTOP, locale="it-IT")
    watched = Watched(context)
    page = watched.page
    cuttable = Cuttable(page)
    try:
        sign_in(page, server.url, "Ada")
        table_id = create_table(page, 5, day_seconds=600)
        sit_and_fill(page, table_id)
        start(page)
        page.locator(".conn.is-bad").wait_for(state="detached")
        page.wait_for_timeout(1000)

        went = time.monotonic()
        cuttable.blocked = True  # the network stays away a while
        cuttable.cut()
        page.locator(".conn.is-bad").wait_for(timeout=20000)
        found = time.monotonic() - went
        assert found < 16, f"the lost connection was found after {found:.0f} s"
        assert page.evaluate("navigator.onLine") is True
        assert "Connessione persa" in page.locator(".conn").inner_text()
        notice = lost_notice(page)
        notice.wait_for()
        assert "non viene applicato" in notice.inner_text()
        shot(page, "connection-silent-desktop-it")
        cuttable.blocked = False
        with contextlib.suppress(Exception):  # unless its own next try came first
            notice.locator("button").click(timeout=2000)  # "Riprova ora": at once
        page.locator(".conn.is-bad").wait_for(state="detached", timeout=5000)
        assert notice.count() == 0
        assert "Giorno 1" in phase_of(page)
        assert real_problems(watched) == []
    finally:
        context.close()


def test_a_refusal_after_coming_back_speaks_to_you_and_goes_with_its_phase(server,
                                                                           browser) -> None:
    """Found by a new user: back on Day 1 after the network went away, the bar said
    "⚠ Béatrice (seat 1) has already passed this phase" — about herself, in the third
    person, not saying that a bot had played her seat meanwhile — and it was still there in
    Night 1 and Night 3. Here Béatrice (a French phone) votes into a silent socket; her grace
    period (5 s) runs out, a bot takes her seat over and passes; she comes back, her vote is
    sent again and refused: the page says, to her, that a bot passed for her while she was
    away; and the notice goes when the phase changes."""
    context = browser.new_context(viewport=PHONE, locale="fr-FR", is_mobile=True,
                                  has_touch=True, device_scale_factor=2)
    watched = Watched(context)
    page = watched.page
    cuttable = Cuttable(page)
    cid = Helper(server, "Cid")  # holds Day 1 open until told to pass
    try:
        sign_in(page, server.url, "Béatrice")
        page.locator("#ct-grace").fill("5")
        table_id = create_table(page, 5, day_seconds=600)
        sit(page)
        cid.guest.sit(table_id)
        page.locator(".wait-seat", has_text="Cid").wait_for()
        fill_with_bots(page)
        start(page)
        cid.connect(table_id)
        page.locator(".conn.is-bad").wait_for(state="detached")
        mine = int(page.locator(".seat.is-me").get_attribute("data-seat") or 0)

        cuttable.blocked = True
        cuttable.cut()
        page.locator(".seat:not(.is-me):not(.is-dead)").first.click()
        page.locator('.btn-power[data-do="vote"]:not([disabled])').click()
        player = cid.player
        assert player is not None

        def passed_by_a_bot(p: Any) -> bool:
            seat = next(s for s in (p.view or {}).get("players", []) if s["seat"] == mine)
            return bool(seat.get("passed"))

        player.until(passed_by_a_bot, 60)  # grace over, a bot took the seat and passed
        page.locator(".conn.is-bad").wait_for(timeout=20000)  # the page knows it is cut off
        cuttable.blocked = False  # the network is back: the page reconnects by itself
        refusal = page.locator(".actions .refusal")
        refusal.wait_for(timeout=30000)
        text = refusal.inner_text()
        assert "Béatrice" not in text, text  # not about herself in the third person
        assert "Pendant votre absence" in text and "un bot" in text, text
        assert "Jour 1" in phase_of(page)
        page.wait_for_timeout(300)
        shot(page, "connection-refusal-after-return-phone-fr")

        cid.pass_now()  # the last person to pass: the bots follow, and the day ends
        # Night 1 comes, or the end if the day's vote killed the last Trusis.
        page.locator(".statusbar .phase").filter(has_not_text="Jour 1").wait_for(timeout=60000)
        page.wait_for_timeout(500)
        assert refusal.count() == 0 or not refusal.is_visible(), refusal.inner_text()
        assert real_problems(watched) == []
    finally:
        context.close()
        cid.close()


def test_a_tab_past_the_limit_says_why_and_waits(browser: Any, tmp_path: Any) -> None:
    """A ninth tab of one player at one table is closed with 4429 (`sockets_per_table`): it
    said "Connection lost — reconnecting…" and tried again every few seconds for ever. It
    now says why, and tries again after a while; once a tab is closed, it connects."""
    from serverproc import ServerProcess, new_database

    server = ServerProcess(new_database("sqlite", tmp_path), bot_pace=0.0,
                           extra=["--limit", "sockets_per_table=1"])
    server.start()
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    first = Watched(context)
    try:
        sign_in(first.page, server.url, "Ann")
        table_id = create_table(first.page, 5, day_seconds=600)
        sit_and_fill(first.page, table_id)
        start(first.page)
        second = context.new_page()
        second.goto(f"{server.url}/t/{table_id}")
        status = second.locator(".statusbar .conn", has_text="Too many")
        status.wait_for(timeout=15000)
        shot(second, "connection-too-many-tabs")
        first.page.close()  # the other tab goes: this one gets in on its next try
        second.locator(".seat.is-me").wait_for(timeout=60000)
        status.wait_for(state="detached", timeout=60000)
    finally:
        context.close()
        server.stop()
