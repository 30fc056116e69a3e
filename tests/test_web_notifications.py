"""Issue 37: the notification settings in the browser, against a real `trusis serve` whose
mail goes to an SMTP server the test runs, in Debian's Chromium: reached from the account
menu, walked with the keyboard (a kind's box toggled with Space, quiet hours, Save with
Enter), an address added and its confirmation mailed, in English and in Italian; the
service worker registers under the page's CSP."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notifyhelp import MailSink
from serverproc import ServerProcess, new_database
from test_web_accounts import register_in_page
from test_web_support import DESKTOP, Watched, needs_chromium, shot, sign_in

pytestmark = needs_chromium


@pytest.fixture
def mailed_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                  ) -> Iterator[tuple[ServerProcess, MailSink]]:
    sink = MailSink()
    sink.start()
    for key, value in {**sink.env(), "TRUSIS_NOTIFY_POLL_SECONDS": "0.2",
                       "TRUSIS_VAPID_KEY_FILE": str(tmp_path / "vapid.pem")}.items():
        monkeypatch.setenv(key, value)
    server = ServerProcess(new_database("sqlite", tmp_path), log=tmp_path / "serve.log")
    server.start()
    try:
        yield server, sink
    finally:
        server.stop()
        sink.stop()


def test_the_notification_settings_are_walked_with_the_keyboard(
        mailed_server: tuple[ServerProcess, MailSink], browser: Any) -> None:
    server, sink = mailed_server
    context = browser.new_context(viewport=DESKTOP, locale="en-GB",
                                  permissions=["notifications"])
    watched = Watched(context)
    page = watched.page
    sign_in(page, server.url, "Carla")
    register_in_page(page, "Carla")
    page.locator("#account-button").click()
    page.get_by_role("menuitem", name="Notifications").click()
    page.get_by_role("heading", name="Notifications", level=1).wait_for()
    assert page.url.endswith("/settings/notifications")

    whisper = page.locator("#notify-email-whisper")
    assert not whisper.is_checked()  # D57: no private messages by mail unless asked
    whisper.focus()
    page.keyboard.press("Space")
    assert whisper.is_checked()
    page.keyboard.press("Tab")  # to the same kind's browser box
    assert page.evaluate("document.activeElement.id") == "notify-push-whisper"
    page.locator("#notify-quiet").focus()
    page.keyboard.press("Space")
    page.locator("#notify-quiet-from").fill("23:00")
    page.locator("#notify-save").focus()
    page.keyboard.press("Enter")
    page.locator("#notify-status", has_text="Saved.").wait_for()
    prefs = page.request.get(f"{server.url}/api/me/notifications").json()["prefs"]
    assert prefs["email"]["whisper"] is True and prefs["quiet_from"] == "23:00"
    assert prefs["quiet_to"] == "08:00" and prefs["lang"] == "en"

    page.locator("#notify-email").fill("carla@example.org")
    page.keyboard.press("Enter")
    page.locator("#notify-status", has_text="confirmation link").wait_for()
    page.locator("#notify-address", has_text="waiting").wait_for()
    mail = sink.wait(lambda m: len(m) == 1)[0]
    assert mail["To"] == "carla@example.org" and mail["Content-Language"] == "en"
    assert re.search(r"/api/notifications/confirm\?token=", mail.get_content())

    page.locator("#notify-allow").click()  # the service worker registers under the CSP
    page.wait_for_function("navigator.serviceWorker.getRegistration('/static/')"
                           ".then(r => !!r)", timeout=10000)
    page.locator("#notify-status").filter(has_text=re.compile(".+")).wait_for()
    shot(page, "notify-settings-en", full_page=True)
    assert not [p for p in watched.problems() if "push" not in p.lower()], watched.problems()
    context.close()

    italian = browser.new_context(viewport=DESKTOP, locale="it-IT")
    page = Watched(italian).page
    sign_in(page, server.url, "Dario")
    page.goto(server.url + "/settings/notifications")
    page.get_by_role("heading", name="Notifiche", level=1).wait_for()
    page.get_by_text("Registrati per aggiungere un indirizzo e-mail").wait_for()
    assert page.locator("#notify-email").count() == 0  # a guest has no address
    shot(page, "notify-settings-it", full_page=True)
    italian.close()


def test_with_no_mail_server_the_email_choices_cannot_be_ticked(server: Any, browser: Any
                                                                  ) -> None:
    """A new user on a server with no mail server set up read "This server sends no
    e-mail" above e-mail boxes that stayed ticked and a daily e-mail digest on offer, and
    Save said "Saved.": the e-mail choices are shown as kept but cannot be changed, and the
    sentence says why (the browser's column still can)."""
    context = browser.new_context(viewport=DESKTOP, locale="en-GB")
    page = Watched(context).page
    sign_in(page, server.url, "Ezio")
    register_in_page(page, "Ezio")
    page.goto(server.url + "/settings/notifications")
    page.get_by_role("heading", name="Notifications", level=1).wait_for()
    page.locator("#notify-no-mail", has_text="has not set up a mail server").wait_for()
    for kind in ("started", "phase", "reminder", "whisper", "ended"):
        assert page.locator(f"#notify-email-{kind}").is_disabled(), kind
        assert page.locator(f"#notify-push-{kind}").is_enabled(), kind
    assert page.locator("#notify-digest").is_disabled()
    assert page.locator("#notify-digest-hour").is_disabled()
    assert page.locator("#notify-email-phase").get_attribute("aria-describedby") == "notify-no-mail"
    page.locator("#notify-push-ended").check()
    page.locator("#notify-save").click()
    page.locator("#notify-status", has_text="Saved.").wait_for()
    prefs = page.request.get(f"{server.url}/api/me/notifications").json()["prefs"]
    assert prefs["push"]["ended"] is True
    shot(page, "notify-settings-no-mail", full_page=True)
    context.close()
