"""The ☠ of a chat line marks a speaker who was dead when they spoke (R15: the dead still
chat, R50), in the live page and in a page opened again later (read from the snapshot's
events) and in the replay with everything revealed, against a real `trusis serve` in
Debian's Chromium.

A trial as a new player found that a page opened again marked every line of a player dead
*now*, also the lines they said while alive: the lines read back from a snapshot carried no
mark of their own, and the page fell back to the speaker's present state.
"""

from __future__ import annotations

import time

from serverproc import Guest, Player
from test_web_support import (
    create_table,
    finished,
    needs_chromium,
    pass_now,
    shot,
    sign_in,
    sit,
)

pytestmark = needs_chromium


def _line(page, text: str):  # type: ignore[no-untyped-def]
    line = page.locator(".chat-line", has_text=text)
    line.wait_for()
    return line


def test_a_line_said_alive_keeps_no_skull_after_its_speaker_dies(server, browser) -> None:
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, server.url, "Reader")
    table = create_table(page, 5)
    sit(page)
    guests = [Guest(server.url, name) for name in ("Vera", "Wim", "Xan", "Yul")]
    for guest in guests:
        guest.sit(table)
    page.locator(".btn-start:not([disabled])").click()
    page.locator(".role-chip:not([hidden])").wait_for()
    players = [Player(server, table, g.token) for g in guests]
    for player in players:
        player.until(lambda p: p.view is not None and p.view.get("status") == "running")
    # The victim is no TRUSIS: with one at five seats, voting it out would end the game on
    # Day 1, and a line "said once dead" would come after the end, in the same phase.
    victim = next(p for p in players if p.view is not None and p.view["role"] != "TRUSIS")
    voters = [p for p in players if p is not victim]

    # R50: Vera speaks on Day 1, alive; the three others vote her out (R20) and everyone
    # passes (R11), so the day ends with her death; then she speaks again, dead (R15).
    assert victim.command(do="say", text="said while alive")["type"] == "ack"
    for voter in voters:
        assert voter.command(do="vote", target=victim.seat)["type"] == "ack"
    for player in players:
        assert player.command(do="pass")["type"] == "ack"
    _line(page, "said while alive")
    assert pass_now(page)
    victim.until(lambda p: not next(x for x in p.view["players"]
                                    if x["seat"] == p.seat)["alive"])
    assert victim.command(do="say", text="said once dead")["type"] == "ack"

    def marks() -> tuple[int, int]:
        alive = _line(page, "said while alive").locator(".dead-mark").count()
        dead = _line(page, "said once dead").locator(".dead-mark").count()
        return alive, dead

    assert marks() == (0, 1)  # live: each line as its speaker was when it came
    address = page.url
    page.close()  # opened again in a new tab, which keeps nothing of the old one: the
    page = context.new_page()  # chat is read back from the snapshot's events
    page.goto(address)
    page.locator(".role-chip:not([hidden])").wait_for()
    assert marks() == (0, 1)
    shot(page, "chat-marks-reloaded")

    # The replay with everything revealed reads its chat from each step's view, with no
    # events: a trial found "☠ Vera: said while alive" there once she had died. Everyone
    # passes to the end (R11; quiet phases end it as a draw, R35), then the last step.
    deadline = time.monotonic() + 120
    while not finished(page):
        assert time.monotonic() < deadline, "the game did not end"
        for player in players:
            player.command(do="pass")  # the dead one is refused: nothing to pass
        pass_now(page)
        page.wait_for_timeout(300)
    page.goto(f"{server.url}/t/{table}/replay?step=0")
    page.locator(".replay-title").wait_for()
    # The first step drawn before "last step" is pressed, and the last one ("Step N of
    # N") before its chat is read: CI met the line "not visible" for 30 s — a press before
    # the replay knew its steps does nothing, and step 0 has no line yet.
    page.locator(".replay-caption .caption-step").wait_for()
    page.locator(".step-last").click()
    page.wait_for_function("() => /Step (\\d+) of \\1\\b/.test("
                           "document.querySelector('.replay-caption')?.textContent || '')")
    page.locator(".replay-revealed:not([hidden])").wait_for()
    page.locator("#tab-d-chat").click()
    assert marks() == (0, 1)
    shot(page, "chat-marks-replay-revealed")
    for player in players:
        player.close()
    for guest in guests:
        guest.close()
    context.close()


def test_a_line_keeps_its_writers_name_after_a_new_person_takes_the_seat(
        server, browser) -> None:
    """Issue 38: the page named every line by its seat's holder now, so once Zed took
    Vera's departed seat (R53) her lines read as his — live, and from a page opened again.
    Each line keeps its writer's name."""
    context = browser.new_context()
    page = context.new_page()
    sign_in(page, server.url, "Host")
    table = create_table(page, 5)
    sit(page)
    guests = [Guest(server.url, name) for name in ("Vera", "Wim", "Xan", "Yul")]
    for guest in guests:
        guest.sit(table)
    page.locator(".btn-start:not([disabled])").click()
    page.locator(".role-chip:not([hidden])").wait_for()
    vera = Player(server, table, guests[0].token)
    vera.until(lambda p: p.view is not None and p.view.get("status") == "running")
    assert vera.command(do="say", text="V-line")["type"] == "ack"
    assert vera.command(do="leave")["type"] == "ack"  # on purpose (D31): handed at once
    vera.close()
    handed = page.request.post(f"{server.url}/api/tables/{table}/seats/{vera.seat}/replace",
                               data={"by": "person"}, headers={"Origin": server.url})
    assert handed.ok, handed.text()
    zed = Guest(server.url, "Zed")
    assert zed.http.post(f"/api/tables/{table}/claim",
                         json={"code": handed.json()["claim"]}).status_code == 200
    zed_player = Player(server, table, zed.token)
    zed_player.until(lambda p: p.view is not None)
    assert zed_player.command(do="say", text="Z-line")["type"] == "ack"

    def who(text: str) -> str:
        return str(_line(page, text).locator(".chat-who").inner_text())

    assert who("Z-line").startswith("Zed")
    assert who("V-line").startswith("Vera"), who("V-line")  # live
    address = page.url
    page.close()
    page = context.new_page()  # read back from the snapshot
    page.goto(address)
    page.locator(".role-chip:not([hidden])").wait_for()
    assert who("V-line").startswith("Vera"), who("V-line")
    assert who("Z-line").startswith("Zed")
    zed_player.close()
    for guest in (*guests, zed):
        guest.close()
    context.close()
