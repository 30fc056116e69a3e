"""Forgiving play in the browser (issue 21): a question about an action never outlives the
phase it was asked in (D41), against a real `trusis serve` in Debian's Chromium.

Five people sit at the table (four of them programs over the WebSocket that pass at once);
the browser plays whichever seat was dealt the Sweeper (the standard set of five holds one,
R2), so the test can ask both "Pass for this phase?" and "Sweep …?" and let each phase end
on its timer (R12) while the question waits.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from serverproc import Guest, Player, ServerProcess
from test_web_support import (
    DESKTOP,
    PHONE,
    Watched,
    chromium,
    needs_chromium,
    phase_of,
    serve,
    shot,
)

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with serve(tmp_path_factory.mktemp("web-forgiving")) as proc:
        yield proc


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with chromium() as b:
        yield b


class Passers:
    """Program seats that pass whenever they may, in a thread, so the browser's seat alone
    holds each phase up and its timer ends it."""

    def __init__(self, players: list[Player]) -> None:
        self.players = players
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self) -> None:
        while not self.stop.is_set():
            for player in self.players:
                while player.pump(0.02):
                    pass
                if "pass" in player.legal() and not any(
                        (p.get("seat") == player.seat and p.get("passed"))
                        for p in (player.view or {}).get("players", [])):
                    player.send(do="pass")
            self.stop.wait(0.2)

    def __enter__(self) -> Passers:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(5)
        for player in self.players:
            player.close()


def sent_actions(watched: Watched) -> list[str]:
    out = []
    for text in watched.sent:
        data = json.loads(text)
        if data.get("type") == "act":
            out.append(data["action"]["do"])
    return out


def test_a_question_closes_with_a_note_when_its_phase_ends(server, browser) -> None:
    """D41, R12: "Pass for this phase?" left open on Day 1 and "Sweep …?" left open on
    Night 1 close with a note when the timer ends the phase; nothing is sent, and the table
    answers clicks again at once."""
    guests = [Guest(server.url, name) for name in ("Ann", "Bea", "Cid", "Dot", "Eve")]
    table_id = guests[0].create(seats=5, day_seconds=30, night_seconds=15)["id"]
    for guest in guests:
        guest.sit(table_id)
    guests[0].start(table_id)
    players = [Player(server, table_id, g.token) for g in guests]
    for player in players:
        player.until(lambda p: p.view is not None, 15)
    sweeper = next(i for i, p in enumerate(players) if p.view and p.view["role"] == "SWEEPER")
    players.pop(sweeper).close()
    me = guests[sweeper]
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    context.add_cookies([{"name": "trusis_session", "url": server.url,
                          "value": me.http.cookies["trusis_session"]}])
    watched = Watched(context)
    page = watched.page
    try:
        with Passers(players):
            page.goto(f"{server.url}/t/{table_id}")
            page.locator(".role-chip:not([hidden])").wait_for()
            assert phase_of(page) == "☀ Day 1"
            page.locator(".btn-pass").click()
            dialog = page.locator("dialog[open]")
            assert "Pass for this phase?" in dialog.inner_text()
            shot(page, "forgiving-pass-open-desktop")
            # Day 1 ends on its timer while the question waits (R12).
            page.locator(".statusbar .phase", has_text="Night 1").wait_for(timeout=45000)
            dialog.wait_for(state="detached", timeout=3000)
            note = page.locator(".dialog-note")
            assert "Pass for this phase?" in note.inner_text()
            assert "the phase ended" in note.inner_text()
            shot(page, "forgiving-pass-closed-desktop")
            assert "pass" not in sent_actions(watched)
            # Nothing is left trapped: a seat answers a click at once.
            target = page.locator(".seat:not(.is-me):not(.is-dead)").first
            target.click(timeout=2000)
            assert target.get_attribute("aria-checked") == "true"

            page.set_viewport_size(PHONE)
            sweep = page.locator(".btn-power[data-do=sweep]")
            sweep.click(timeout=5000)
            assert "Sweep" in dialog.inner_text()
            shot(page, "forgiving-sweep-open-phone")
            page.locator(".statusbar .phase", has_text="Day 2").wait_for(timeout=30000)
            dialog.wait_for(state="detached", timeout=3000)
            assert page.locator(".dialog-note", has_text="the phase ended").last.inner_text()
            assert "Sweep" in page.locator(".dialog-note").last.inner_text()
            shot(page, "forgiving-sweep-closed-phone")
            assert "sweep" not in sent_actions(watched)
            page.locator(".dialog-note .btn").first.click()
            assert not [e for e in watched.errors]
    finally:
        context.close()
        for guest in guests:
            guest.close()
