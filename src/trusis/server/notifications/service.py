"""The notifications of one server process, as the app and its routes see them: the rows,
the signed links, the outbox's task, the mail settings and the VAPID key (read, or made the
first time, when the process starts)."""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from py_vapid import Vapid

from trusis.server.data.notifications import NotificationRows, PushSubscription
from trusis.server.errors import LobbyError
from trusis.server.notifications import push
from trusis.server.notifications.links import CONFIRM_HOURS, Links
from trusis.server.notifications.outbox import Outbox, OutboxSettings
from trusis.server.notifications.planning import delivery
from trusis.server.notifications.prefs import Prefs, stored
from trusis.server.notifications.texts import confirm_words

log = logging.getLogger("trusis.server")

ADDRESS = re.compile(r"[^@\s<>()\[\],;:\"\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")
"""An address a mail can be sent to: a local part, and a domain of letters, digits, dots
and hyphens (no display names, no comments, no routes: nothing to inject into headers)."""
CONFIRMATIONS_PER_ADDRESS_DAY = 3
"""Confirmation mails one address gets in a day, whoever asks: the server must not be a
way to flood someone's mailbox with confirmations."""


class Notifications:
    def __init__(self, rows: NotificationRows, settings: OutboxSettings, secret: str,
                 folder: Callable[[], Path]) -> None:
        self.rows = rows
        self.settings = settings
        self.links = Links(secret, settings.base_url)
        self.outbox = Outbox(rows, settings, self.links)
        self.folder = folder

    async def start(self) -> None:
        # The key is read (or made) before the outbox sends anything: a process that no
        # browser has asked for it yet — just restarted, or one of several — dropped every
        # push as if its subscription were gone (found by tests/test_notifications_slow.py).
        try:
            self.vapid()
        except Exception:
            log.exception("the VAPID key could not be read or made: no push is sent")
        await self.outbox.start()

    async def stop(self) -> None:
        await self.outbox.stop()

    @property
    def mail_available(self) -> bool:
        return self.settings.mail is not None

    def vapid(self) -> Vapid:
        """The server's VAPID key, made once (push.py)."""
        if self.settings.vapid is None:
            self.settings.vapid = push.vapid_key(self.folder())
        return self.settings.vapid

    async def prefs(self, player_id: str) -> Prefs:
        return stored(await self.rows.prefs_of(player_id))

    async def add_address(self, player_id: str, name: str, address: str) -> None:
        """Keep `address` unconfirmed and queue its confirmation (the only mail an
        unconfirmed address ever gets)."""
        if not self.mail_available:
            raise LobbyError(503, "no_mail", "this server sends no e-mail (its operator has "
                             "not configured an SMTP server)")
        if len(address) > 254 or not ADDRESS.fullmatch(address):
            raise LobbyError(422, "bad_address", "address: an e-mail address such as "
                             "name@example.org", field="address")
        sent = await self.rows.confirmations_since(address, time.time() - 86400)
        if sent >= CONFIRMATIONS_PER_ADDRESS_DAY:
            raise LobbyError(429, "too_many_confirmations", "this address was sent "
                             f"{CONFIRMATIONS_PER_ADDRESS_DAY} confirmations today: try "
                             "again tomorrow", limit=CONFIRMATIONS_PER_ADDRESS_DAY,
                             retry_after=3600)
        prefs = await self.prefs(player_id)
        await self.rows.set_address(player_id, address)
        now = time.time()
        said = confirm_words(prefs.lang, name, self.links.confirm_url(player_id, address),
                             CONFIRM_HOURS)
        await self.rows.queue([delivery(player_id, "email", address, "confirm", prefs.lang,
                                        said, now, now, False)])
        self.outbox.wake()

    async def add_push(self, player_id: str, endpoint: str, p256dh: str, auth: str) -> str:
        if not push.trusted(endpoint, self.settings.push_services):
            raise LobbyError(422, "untrusted_push_service", "endpoint: this server sends "
                             "notifications only to the browsers' push services",
                             field="endpoint")
        sub = PushSubscription(secrets.token_hex(8), player_id, endpoint, p256dh, auth,
                               time.time())
        await self.rows.add_push(sub)
        await self.outbox.refresh_reach()
        return sub.id

    async def reach_changed(self) -> None:
        await self.outbox.refresh_reach()
