"""The ☠ of a chat line marks a speaker who was dead when they spoke (R15: the dead still
chat, R50), in the live page and in a page opened again later (read from the snapshot's
events), against a real `trusis serve` in Debian's Chromium.

A trial as a new player found that a page opened again marked every line of a player dead
*now*, also the lines they said while alive: the lines read back from a snapshot carried no
mark of their own, and the page fell back to the speaker's present state.
"""

from __future__ import annotations

from serverproc import Guest, Player
from test_web_support import create_table, needs_chromium, pass_now, shot, sign_in, sit

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
    victim, voters = players[0], players[1:]

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
    for player in players:
        player.close()
    for guest in guests:
        guest.close()
    context.close()
