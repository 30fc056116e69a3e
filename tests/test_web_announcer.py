"""What the announcer says, and that it is heard (issue 38), in real Chromium against a real
`trusis serve`: an open modal dialog (a Pass confirmation, the report dialog, the rules)
does not silence it — checked in Chromium's accessibility tree, where a live region outside
an open modal <dialog> is ignored; a player leaving, a bot taking the seat and the player
coming back are said (R52, R53, D29); the end says "you win" or "you lose", and no pass or
tally after it; a rematch proposed is said (D19); and a new table, or the ban page, starts
with an announcer that holds nothing of the last game."""

from __future__ import annotations

import re
from typing import Any

import httpx

from a11y_support import active, all_spoken, record_speech, spoken, wait_heard, wait_spoken
from modhelp import grant, sanction
from test_web_support import (
    DESKTOP,
    Helper,
    Watched,
    create_table,
    needs_chromium,
    play_to_end,
    shot,
    sign_in,
    sit,
    sit_and_fill,
    start,
)

pytestmark = needs_chromium


def test_a_modal_dialog_does_not_silence_the_announcer(server: Any, browser: Any) -> None:
    """While a Pass confirmation, the report dialog or the rules are open, votes, whispers
    and chat on screen are still heard: the accessibility tree reads them in a live region
    that is not ignored (Chromium ignores everything outside an open modal dialog)."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    helper = Helper(server, "Bea")
    try:
        sign_in(page, server.url, "Ann")
        table_id = create_table(page, 8, day_seconds=120)  # 8: day 1 cannot end the game
        sit_and_fill(page, table_id, helper.guest)
        start(page)
        helper.connect(table_id)
        assert helper.player is not None
        wait_heard(page, "Day 1")  # heard with nothing open

        page.locator(".btn-pass").click()  # R11: the Pass confirmation
        page.locator("dialog[open]").wait_for()
        helper.player.command(do="vote", target=1)  # R20
        wait_heard(page, "Bea (seat 2) votes for Ann (seat 1)")
        wait_heard(page, "Tally:")
        page.keyboard.press("Escape")
        page.locator("dialog[open]").wait_for(state="detached")

        page.locator(".table-foot .btn-report").click()
        page.locator(".report-dialog[open] textarea").wait_for()
        helper.player.command(do="say", text="can you hear me", to=1)  # R50
        wait_heard(page, "Bea (seat 2) privately to you: can you hear me")
        # The public chat is on screen behind the dialog, and its own live log is ignored
        # too: the announcer says it.
        helper.player.command(do="say", text="and in public")
        wait_heard(page, "Bea (seat 2) says: and in public")
        shot(page, "announcer-report-dialog-open")
        page.keyboard.press("Escape")
        page.locator("dialog[open]").wait_for(state="detached")

        page.locator("#rules-button").click()
        page.locator(".rules-dialog[open]").wait_for()
        helper.player.command(do="vote", target=None)
        wait_heard(page, "Bea (seat 2) withdraws their vote")
        page.keyboard.press("Escape")
        # Once closed, the announcer itself is heard again (and nothing is said twice).
        helper.player.command(do="vote", target=3)
        wait_heard(page, "Bea (seat 2) votes for")
        assert len([s for s in spoken(page) if "withdraws their vote" in s]) == 1
        assert watched.problems() == []
    finally:
        helper.close()
        context.close()


def rematch_proposed(host: httpx.Client, table_id: str) -> str:
    reply = host.post(f"/api/tables/{table_id}/rematch")
    assert reply.status_code == 200, reply.text
    return str(reply.json()["table"]["id"])


def test_departures_returns_the_end_and_a_rematch_are_announced(server: Any, browser: Any
                                                                ) -> None:
    """Ann's page hears Cid's seat go (grace over: R52), a bot take it (R53) and Cid come
    back (D29); at the end "You win!" or "You lose." and no pass or tally after it; Bea's
    rematch (D19); and Ann's Enter on "Join the rematch" is never lost to a redraw, and the
    new table's announcer holds nothing of the last game."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    watched = Watched(context)
    page = watched.page
    bea, cid = Helper(server, "Bea"), Helper(server, "Cid")
    try:
        # Day 1 must outlast Cid's going and coming back (the people's passes end it later):
        # 40 s could run out on a loaded machine, and its vote end the game before his return.
        table_id = str(bea.guest.create(seats=5, day_seconds=180, night_seconds=15,
                                        grace_seconds=5)["id"])
        bea.guest.sit(table_id)
        sign_in(page, server.url, "Ann")
        page.goto(f"{server.url}/t/{table_id}")
        page.locator(".wait-seat").first.wait_for()
        record_speech(page)
        sit(page)
        cid.guest.sit(table_id)
        bea.guest.bots(table_id, 2)
        bea.guest.start(table_id)
        page.locator(".seat").first.wait_for()
        bea.connect(table_id)
        cid.connect(table_id)
        ann = page.evaluate("() => window.trusis.screen.store.seat")
        assert ann == 2  # Bea sat first, Cid after Ann
        page.wait_for_timeout(500)
        cid.player.close()  # type: ignore[union-attr]  # Cid's phone locks: 5 s of grace
        wait_spoken(page, "Cid (seat 3) has left the game")
        wait_spoken(page, "Cid (seat 3) is now played by a bot")
        cid.connect(table_id)  # D29: Cid opens the table again and plays on
        wait_spoken(page, "Cid (seat 3) is back and plays their seat again")

        play_to_end(page, (bea, cid))
        said = all_spoken(page)
        end = next(i for i, s in enumerate(said) if "The game is over" in s)
        assert re.search(r"You win!|You lose\.|Nobody wins\.", said[end]), said[end]
        after = said[end + 1:]
        assert not [s for s in after if "has passed" in s or "Tally" in s], said[end - 3:]

        # D19: Bea proposes a rematch; Ann's page says so, with the seat kept for her.
        rematch_proposed(bea.guest.http, table_id)
        wait_spoken(page, "A rematch is proposed: seat", timeout=15)
        join = page.locator(".btn-join")
        join.wait_for()
        page.keyboard.press("Alt+Shift+P")  # at the end, the rematch's offer (12 Tabs before)
        assert active(page)["cls"].split()[-1] == "btn-join", active(page)
        # A `table` frame redraws the end screen: the focused button stays focused.
        page.evaluate("() => window.trusis.screen.store.emit({ kind: 'table' })")
        page.wait_for_timeout(200)
        assert active(page)["cls"].split()[-1] == "btn-join", active(page)
        page.keyboard.press("Enter")
        page.locator(".waiting h1").wait_for()
        # The new table's announcer starts empty: nothing of the last game is read there.
        old = [s for s in spoken(page) if re.search(r"votes for|Tally|has passed|game is over", s)]
        assert old == [], old
        assert watched.problems() == []
    finally:
        bea.close()
        cid.close()
        context.close()


def test_the_ban_page_starts_with_an_empty_announcer(server: Any, browser: Any) -> None:
    """D53: a ban lands mid-game; the ban page's announcer holds nothing of the game."""
    mod = httpx.Client(base_url=server.url, timeout=10)
    try:
        assert mod.post("/api/accounts", json={"name": "Moe", "password": "a long password"}
                        ).status_code == 201
        grant(server, "Moe", "moderator")
        context = browser.new_context(viewport=DESKTOP, locale="en-GB")
        page = Watched(context).page
        sign_in(page, server.url, "Dan")
        table_id = create_table(page, 5, day_seconds=300)
        sit_and_fill(page, table_id)
        start(page)
        wait_spoken(page, "Day 1")
        me = page.evaluate("() => window.trusis.me.id")
        sanction(mod, me, "ban", "spam", minutes=24 * 60)
        page.locator(".banned-card").wait_for()
        assert spoken(page) == [], spoken(page)
        context.close()
    finally:
        mod.close()
