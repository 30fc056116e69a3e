"""What the browser tests share: Debian's Chromium, a real `trusis serve`, screenshots, and
a few steps a player takes (sign in, create a table, pass, play to the end).

No test lives here. The browser is /usr/bin/chromium, never one Playwright downloads; the
tests are skipped where it is missing. Screenshots go to $TRUSIS_SCREENSHOTS, or
build/screenshots/ (git-ignored), for a person to look at.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from serverproc import Guest, Player, ServerProcess, new_database

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
DAY_SECONDS = 30  # the server's shortest day
NIGHT_SECONDS = 15  # and night

try:
    from playwright.sync_api import Browser, BrowserContext, Page, Playwright, sync_playwright
except ImportError:  # pragma: no cover - playwright is a dev dependency
    sync_playwright = None

needs_chromium = pytest.mark.skipif(
    sync_playwright is None or not os.access(CHROMIUM, os.X_OK),
    reason="the browser tests need Playwright and Debian's /usr/bin/chromium",
)


def shots_dir() -> Path:
    folder = Path(os.environ.get("TRUSIS_SCREENSHOTS") or "build/screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shot(page: Page, name: str, full_page: bool = False) -> Path:
    """Save a screenshot for a person to look at (the tests do not compare pixels)."""
    path = shots_dir() / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


@contextlib.contextmanager
def serve(tmp: Path) -> Iterator[ServerProcess]:
    """`trusis serve` on a fresh SQLite database, bots playing at once."""
    server = ServerProcess(new_database("sqlite", tmp), bot_pace=0.0, log=tmp / "serve.log")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module", name="server")
def module_server(tmp_path_factory: pytest.TempPathFactory,
                  request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """Fixture `server` (tests/conftest.py): one `trusis serve` for a web test module, in a
    folder of its own."""
    with serve(tmp_path_factory.mktemp(request.module.__name__.removeprefix("test_"))) as proc:
        yield proc


@pytest.fixture(scope="module", name="browser")
def module_browser() -> Iterator[Browser]:
    """Fixture `browser` (tests/conftest.py): one Chromium for a web test module."""
    with chromium() as browser:
        yield browser


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    assert sync_playwright is not None
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            yield browser
        finally:
            browser.close()


def launch(pw: Playwright) -> Browser:
    return pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


class Watched:
    """A page with what it said and heard: console errors, page errors, WebSocket frames."""

    def __init__(self, context: BrowserContext) -> None:
        self.page = context.new_page()
        self.page.set_default_timeout(15000)
        self.errors: list[str] = []
        self.console: list[str] = []
        self.received: list[str] = []
        self.sent: list[str] = []
        self.sockets: list[str] = []  # the address of every WebSocket the page opened
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))
        self.page.on("console", self._console)
        self.page.on("websocket", self._socket)

    def _console(self, message: Any) -> None:
        self.console.append(f"{message.type}: {message.text}")

    def _socket(self, ws: Any) -> None:
        self.sockets.append(ws.url)
        ws.on("framereceived", lambda frame: self.received.append(_text(frame)))
        ws.on("framesent", lambda frame: self.sent.append(_text(frame)))

    def problems(self) -> list[str]:
        """Script errors and CSP violations (the 401 of /api/me before signing in is fine)."""
        bad = [m for m in self.console if m.startswith("error") and "401" not in m]
        return self.errors + bad


def _text(frame: Any) -> str:
    if isinstance(frame, (bytes, bytearray)):
        return frame.decode("utf-8", "replace")
    if isinstance(frame, str):
        return frame
    payload = getattr(frame, "payload", frame)
    return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else str(payload)


def sign_in(page: Page, base: str, name: str, path: str = "/") -> None:
    page.goto(base + path)
    page.locator("form.name-form input").fill(name)
    page.locator("form.name-form button[type=submit]").click()
    page.locator("form.name-form .hint").filter(has_text=name).wait_for()


def create_table(page: Page, seats: int, private: bool = False,
                 day_seconds: int = DAY_SECONDS, night_seconds: int = NIGHT_SECONDS) -> str:
    """Fill the lobby's form (short timers) and create; the table's id."""
    page.locator("#ct-seats").fill(str(seats))
    page.locator("#ct-day").fill(str(day_seconds))
    page.locator("#ct-night").fill(str(night_seconds))
    if private:
        page.locator("#ct-private").check()
    page.locator(".dealt-list").wait_for()
    page.locator("form.create button[type=submit]").click()
    page.locator(".waiting h1").wait_for()
    match = re.search(r"/t/([^/?#]+)", page.url)
    assert match, page.url
    return match.group(1)


def sit(page: Page) -> None:
    """Take the first free seat in the waiting room."""
    page.locator(".wait-seat.is-free .btn").first.click()
    page.locator(".wait-seat.is-me").wait_for()


def fill_with_bots(page: Page) -> None:
    """The host fills the empty seats with bots; Start wakes up."""
    page.locator(".host-tools .btn").nth(1).click()
    page.locator(".btn-start:not([disabled])").wait_for()


def sit_and_fill(page: Page, table_id: str, *helpers: Guest) -> None:
    """The host sits, the helpers take the next seats, bots fill the rest (once the page
    shows the helpers seated, so that the bots take the seats left)."""
    sit(page)
    for helper in helpers:
        helper.sit(table_id)
        page.locator(".wait-seat", has_text=helper.name).wait_for()
    fill_with_bots(page)


def start(page: Page) -> None:
    page.locator(".btn-start").click()
    page.locator(".seat").first.wait_for()
    page.locator(".role-chip:not([hidden])").wait_for()


def phase_of(page: Page) -> str:
    return page.locator(".statusbar .phase").inner_text().strip()


def finished(page: Page) -> bool:
    return page.locator(".endscreen h1").count() > 0


def pass_now(page: Page) -> bool:
    """Press Pass and confirm, if this seat may pass; whether it did. A seat with nothing to
    choose passes without being asked."""
    button = page.locator(".btn-pass:not([disabled])")
    if not button.count():
        return False
    try:
        button.click(timeout=2000)
    except Exception:  # the phase ended between the look and the click
        return False
    confirm = page.locator("dialog[open] .btn-primary")
    try:
        confirm.wait_for(timeout=700)
    except Exception:
        return True  # nothing to choose: passed at once
    try:
        confirm.click(timeout=2000)
    except Exception:
        return False
    return True


class Helper:
    """A second person at the table, over the WebSocket (serverproc.Player): it passes when
    told, so phases wait for it, and the timers (not the bots) decide how long they last."""

    def __init__(self, server: ServerProcess, name: str) -> None:
        self.server = server
        self.guest = Guest(server.url, name)
        self.player: Player | None = None

    def connect(self, table_id: str) -> None:
        self.player = Player(self.server, table_id, self.guest.token)
        self.player.until(lambda p: p.view is not None, 15)

    def pass_now(self) -> None:
        player = self.player
        assert player is not None
        while player.pump(0.05):
            pass
        if "pass" in player.legal():
            player.command(do="pass")

    def close(self) -> None:
        if self.player is not None:
            self.player.close()
        self.guest.close()


def play_to_end(page: Page, helpers: tuple[Helper, ...] = (), timeout: float = 150.0,
                each_phase: Callable[[str], None] | None = None) -> None:
    """Pass in every phase (with the helpers) until the end screen shows."""
    deadline = time.monotonic() + timeout
    seen: set[str] = set()
    while not finished(page):
        assert time.monotonic() < deadline, f"the game did not end; at {phase_of(page)}"
        phase = phase_of(page)
        if each_phase is not None and phase not in seen:
            seen.add(phase)
            each_phase(phase)
        pass_now(page)
        for helper in helpers:
            helper.pass_now()
        page.wait_for_timeout(300)
    page.locator(".endscreen .end-roles tbody tr").first.wait_for()


def frames_of(watched: Watched, kind: str) -> list[dict[str, Any]]:
    out = []
    for text in watched.received:
        with contextlib.suppress(ValueError):
            data = json.loads(text)
            if isinstance(data, dict) and data.get("type") == kind:
                out.append(data)
    return out


def host_and_guest(browser: Browser, viewport: dict[str, int], lang: str
                   ) -> tuple[Watched, Watched]:
    """Ann, a host whose page is in English, and Bob, a friend whose page is in `lang`, on
    the same size of screen (bypass_csp: axe-core is added to the page)."""
    locale = {"en": "en-GB", "fr": "fr-FR", "it": "it-IT"}[lang]
    return (Watched(browser.new_context(viewport=viewport, locale="en-GB", bypass_csp=True)),
            Watched(browser.new_context(viewport=viewport, locale=locale, bypass_csp=True)))
