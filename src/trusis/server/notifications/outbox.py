"""The sender: the outbox's own task, which turns notices into deliveries and sends them.

Nothing here runs on a game's path: the game only writes notices (facts.py) and wakes
this task. Each round it expands the due notices (planning.py, one transaction), then
claims the due deliveries and sends them, a few at a time, each with a timeout: a slow or
failing mail server or push service delays only this task. A delivery is claimed before it
is sent and marked once sent; one that failed is tried again after a growing pause
(`retry_pause`), and after `MAX_ATTEMPTS` it is given up with a log line and a count in the
metrics. A process that dies holding claims loses nothing: with one process the claims are
released as it starts again; with several, another claims them once their hold runs out.

Several processes: a round claims only what it can begin to send well within the claim's
hold (`OutboxSettings.claim_limit`), and right before each send the process renews that
message's claim (`NotificationRows.renew`) for longer than the send may last
(`OutboxSettings.renewal`); a message whose claim ran out meanwhile is another process's and
is skipped. A delivery is marked — sent, queued again, failed, dropped — only by the process
that holds its claim: a late failure of one that lost it changes nothing.

What "once" means: a delivery is marked sent only after the SMTP server or the push service
accepted it. A crash in between (a few milliseconds: one UPDATE) sends it again after the
restart — the same mail, with the same Message-ID, which mail servers and programs that
drop duplicates recognise (docs/deploy.md, "Notifications"). So does a try whose timeout
ran out after the server had the whole mail but before its answer came.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import aiohttp
from py_vapid import Vapid

from trusis.server.data.notifications import DeliveryRow, NotificationRows
from trusis.server.monitoring import metrics
from trusis.server.notifications import facts, mail, push
from trusis.server.notifications.links import Links
from trusis.server.notifications.planning import plan
from trusis.server.notifications.texts import Words, digest_subject, say

log = logging.getLogger("trusis.server.notifications")

MAX_ATTEMPTS = 8
"""Tries of one delivery before it is given up (with the default pause, about 4 hours)."""
RENEWAL_MARGIN = 30.0
"""Seconds a renewed claim lasts beyond its send's timeout: for what comes before the send
(the hourly bounds' count) and for marking it after (one statement may wait 15 s for
PostgreSQL's answer: lifecycle.STATEMENT_SECONDS)."""
GONE = (404, 410)  # a push subscription that no longer exists: forgotten


@dataclass
class OutboxSettings:
    base_url: str
    node: str
    clustered: bool = False
    mail: mail.MailSettings | None = None
    vapid: Vapid | None = None
    contact: str = "mailto:trusis@localhost"
    """The VAPID `sub` claim: how a push service reaches the operator (RFC 8292)."""
    push_services: tuple[str, ...] = push.PUSH_SERVICES
    mails_per_player_hour: int = 12
    mails_per_address_hour: int = 20
    poll_seconds: float = 5.0
    retry_seconds: float = 60.0
    """The first pause after a failure; each next one doubles, up to an hour."""
    hold_seconds: float = 120.0
    """How long a claim keeps a delivery from the other processes until its send begins
    (each send renews its own claim first: `renewal`)."""
    push_timeout: float = 10.0
    parallel: int = 4
    over_bound_pause: float = 900.0
    """A mail over its hourly bound waits this long and is tried again (not an attempt)."""
    reach_seconds: float = 30.0
    """How often the players who can be reached are read again (other processes' news)."""
    reminder_before: float | None = None
    """Tests' short settings: every reminder this long before its deadline (facts.py)."""

    @property
    def send_seconds(self) -> float:
        """The longest one send may last: its channel's timeout (a mail's bounds the whole
        SMTP exchange: mail.send)."""
        return max(self.mail.timeout if self.mail is not None else 0.0, self.push_timeout)

    @property
    def renewal(self) -> float:
        """How long a claim renewed right before a send lasts: longer than the send, with a
        margin for marking it; never shorter than a claim."""
        return max(self.hold_seconds, self.send_seconds + RENEWAL_MARGIN)

    @property
    def claim_limit(self) -> int:
        """The most deliveries a round claims: sent `parallel` at a time, each wave lasting
        at most `send_seconds`, the last wave begins within the first half of the hold, so
        that each renews its claim long before it runs out (4 x 3 = 12 by default)."""
        return self.parallel * max(1, int(self.hold_seconds / (2 * self.send_seconds)))

    @classmethod
    def from_env(cls, base_url: str, node: str, clustered: bool) -> OutboxSettings:
        settings = cls(base_url=base_url, node=node, clustered=clustered,
                       mail=mail.MailSettings.from_env(),
                       push_services=push.services_from_env())
        if contact := os.environ.get("TRUSIS_VAPID_CONTACT", "").strip():
            settings.contact = contact
        elif settings.mail is not None:
            settings.contact = f"mailto:{settings.mail.sender.rsplit('<', 1)[-1].rstrip('>')}"
        for name, attribute in (("TRUSIS_NOTIFY_POLL_SECONDS", "poll_seconds"),
                                ("TRUSIS_NOTIFY_RETRY_SECONDS", "retry_seconds"),
                                ("TRUSIS_NOTIFY_REMINDER_BEFORE_SECONDS", "reminder_before")):
            if value := os.environ.get(name, "").strip():
                try:
                    setattr(settings, attribute, max(0.05, float(value)))
                except ValueError:
                    raise mail.MailSettingsError(f"{name}: a number of seconds") from None
        return settings


def retry_pause(attempts: int, first: float) -> float:
    """The pause before try `attempts + 1`: doubling from `first`, at most an hour, with a
    tenth of jitter so that many failed deliveries do not all come back at once."""
    pause = min(first * 2 ** max(0, attempts - 1), 3600.0)
    return float(pause * random.uniform(0.9, 1.1))


class Outbox:
    """The sending task of one process."""

    def __init__(self, rows: NotificationRows, settings: OutboxSettings, links: Links) -> None:
        self.rows = rows
        self.settings = settings
        self.links = links
        self.reach = facts.Reachable()
        self.reach.wake = self.wake
        self.reach.reminder_before = settings.reminder_before
        self.woken = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.session: aiohttp.ClientSession | None = None
        self.reach_read = 0.0
        self.bounding = asyncio.Lock()
        self.in_flight: dict[tuple[str, str], int] = {}
        """Mails being sent now, by player and by address: counted against the bounds."""

    async def start(self) -> None:
        self.reach.players = await self.rows.reachable()
        self.reach_read = time.monotonic()
        if not self.settings.clustered:
            await self.rows.release_all()  # one process: any claim is a dead one's
        facts.REACHABLE = self.reach
        self.task = asyncio.create_task(self._run(), name="notifications outbox")

    async def stop(self) -> None:
        if facts.REACHABLE is self.reach:
            facts.REACHABLE = None
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        with contextlib.suppress(Exception):
            await self.rows.release(self.settings.node)
        if self.session is not None:
            await self.session.close()

    def wake(self) -> None:
        self.woken.set()

    async def refresh_reach(self) -> None:
        """Read again who can be reached (now: a player just added a channel here)."""
        self.reach.players = await self.rows.reachable()
        self.reach_read = time.monotonic()

    async def _run(self) -> None:
        while True:
            full = False
            try:
                full = await self.round() >= self.settings.claim_limit
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("notifications: a round of the outbox failed; trying again")
            if full:  # more may be due at once: no pause
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.woken.wait(), self.settings.poll_seconds)
            self.woken.clear()

    async def round(self, now: float | None = None) -> int:
        """Expand what is due, then send what is due: how many deliveries were tried."""
        if time.monotonic() - self.reach_read > self.settings.reach_seconds:
            await self.refresh_reach()
        now = time.time() if now is None else now
        while await self.rows.expand(now, 200, partial(plan, now=now,
                                                        base=self.settings.base_url)):
            pass
        claimed = await self.rows.claim(self.settings.node, now, self.settings.claim_limit,
                                        self.settings.hold_seconds)
        if not claimed:
            return 0
        began = time.monotonic()
        gate = asyncio.Semaphore(self.settings.parallel)

        async def one(batch: list[DeliveryRow]) -> None:
            async with gate:
                await self.deliver(batch, now, began)

        await asyncio.gather(*(one(batch) for batch in _batches(claimed)))
        return len(claimed)

    # -- sending ------------------------------------------------------------------------

    async def deliver(self, batch: list[DeliveryRow], now: float,
                      began: float | None = None) -> None:
        """Send one message (a batch of digest rows is one mail); mark what became of it.
        `now` is the round's time, taken at `began` (time.monotonic()): the claims are
        renewed first, at the time the round has reached since."""
        try:
            batch = await self._renewed(batch, now, began)
            if not batch:
                return
            first = batch[0]
            if first.channel == "email":
                sent = await self._mail(batch, now)
            else:
                sent = await self._push(first)
        except Exception as err:  # the server, the network, a timeout: try again later
            await self._failed(batch, f"{type(err).__name__}: {err}"[:200], now)
            return
        if sent is None:
            return  # sent, deferred, dropped or someone else's: already marked or left
        await self._sent([first], now)

    async def _renewed(self, batch: list[DeliveryRow], now: float, began: float | None
                       ) -> list[DeliveryRow]:
        """The rows of `batch` this process still holds, their claims renewed to outlast
        the send about to begin. The others' claims ran out before their turn came: another
        process may have them, and sends them; this one leaves them."""
        at = now if began is None else now + (time.monotonic() - began)
        held = set(await self.rows.renew([d.id for d in batch], self.settings.node, at,
                                         self.settings.renewal))
        if len(held) < len(batch):
            log.warning("notifications: the claim on %s ran out before its send began; left "
                        "to whoever claims it next",
                        ",".join(d.id for d in batch if d.id not in held))
        return [d for d in batch if d.id in held]

    async def _sent(self, batch: list[DeliveryRow], now: float) -> None:
        ids = [d.id for d in batch]
        marked = await self.rows.mark_sent(ids, self.settings.node, now)
        if marked < len(ids):  # the send outlasted its renewed claim: should never happen
            log.error("notifications: %s %s sent after its claim ran out; another process "
                      "may send it again", batch[0].channel, ",".join(ids))
        _count(batch[0].channel, "sent", len(batch))

    async def _mail(self, batch: list[DeliveryRow], now: float) -> bool | None:
        settings = self.settings
        first = batch[0]
        if settings.mail is None:
            raise RuntimeError("no SMTP server is configured (TRUSIS_SMTP_HOST)")
        hour = now - 3600
        bounds = ((settings.mails_per_player_hour, {"player_id": first.player_id}),
                  (settings.mails_per_address_hour, {"address": first.address}))
        keys = (("player", first.player_id), ("address", first.address))
        if first.kind != "confirm":
            async with self.bounding:  # a round's mails in flight count as sent
                for (bound, who), key in zip(bounds, keys, strict=True):
                    # In flight read first: a mail that stops being in flight meanwhile was
                    # marked sent before, so the count read next has it (never neither).
                    flying = self.in_flight.get(key, 0)
                    if bound and await self.rows.sent_since(hour, **who) + flying >= bound:
                        await self.rows.mark([d.id for d in batch], settings.node, "queued",
                                             now + settings.over_bound_pause, first.attempts,
                                             None)
                        return None
                for key in keys:
                    self.in_flight[key] = self.in_flight.get(key, 0) + 1
        try:
            await self._send_mail(batch)
            # Marked before it stops counting as in flight: the bound never sees a gap.
            await self._sent(batch, now)
            return None
        finally:
            if first.kind != "confirm":
                for key in keys:
                    self.in_flight[key] -= 1

    async def _send_mail(self, batch: list[DeliveryRow]) -> None:
        settings = self.settings
        assert settings.mail is not None
        first = batch[0]
        parts: list[Words] = [json.loads(d.content) for d in batch]
        lang = first.lang
        if first.kind == "confirm":
            unsubscribe = ""
        else:
            unsubscribe = self.links.unsubscribe_url(first.player_id, first.address, lang)
        digest = first.digest
        subject = digest_subject(lang, len(parts)) if digest else parts[0]["subject"]
        message = mail.message(settings.mail, first.address, first.id, lang, parts, subject,
                               unsubscribe, self.links.settings_url(),
                               say(lang, "digest.intro") if digest else None)
        await mail.send(settings.mail, message)

    async def _push(self, delivery: DeliveryRow) -> bool | None:
        settings = self.settings
        sub = await self.rows.push(delivery.address)
        if sub is None or settings.vapid is None or not push.trusted(
                sub.endpoint, settings.push_services):
            if await self.rows.mark([delivery.id], settings.node, "dropped", delivery.due_at,
                                    delivery.attempts, "no such subscription"):
                _count("push", "dropped", 1)
            return None
        said: Words = json.loads(delivery.content)
        payload = json.dumps({"title": said["subject"], "body": "\n".join(said["lines"]),
                              "url": said["url"], "tag": said["tag"]},
                             ensure_ascii=False).encode()
        if self.session is None:
            self.session = aiohttp.ClientSession()
        status = await push.send(self.session, settings.vapid, settings.contact, sub,
                                 payload, settings.push_timeout)
        if status in GONE:
            await self.rows.remove_push(None, sub.id)
            if await self.rows.mark([delivery.id], settings.node, "dropped", delivery.due_at,
                                    delivery.attempts, f"push service: {status}"):
                _count("push", "dropped", 1)
            return None
        if not 200 <= status < 300:
            raise RuntimeError(f"the push service answered {status}")
        return True

    async def _failed(self, batch: Sequence[DeliveryRow], error: str, now: float) -> None:
        first = batch[0]
        attempts = first.attempts + 1
        ids = [d.id for d in batch]
        node = self.settings.node
        if attempts >= MAX_ATTEMPTS:
            if await self.rows.mark(ids, node, "failed", first.due_at, attempts, error):
                log.error("notifications: gave up %s %s to player %s after %d tries: %s",
                          first.channel, ",".join(ids), first.player_id, attempts, error)
                _count(first.channel, "failed", len(batch))
            return
        pause = retry_pause(attempts, self.settings.retry_seconds)
        if not await self.rows.mark(ids, node, "queued", now + pause, attempts, error):
            log.warning("notifications: %s %s not sent (%s), and its claim is no longer "
                        "this process's: left to the one that has it", first.channel,
                        ",".join(ids), error)
            return
        log.warning("notifications: %s %s not sent (try %d of %d), again in %.0f s: %s",
                    first.channel, first.id, attempts, MAX_ATTEMPTS, pause, error)
        _count(first.channel, "retried", len(batch))


def _batches(claimed: list[DeliveryRow]) -> list[list[DeliveryRow]]:
    """One message each, but a player's digest rows to one address are one mail."""
    digests: dict[tuple[str, str], list[DeliveryRow]] = {}
    out: list[list[DeliveryRow]] = []
    for row in claimed:
        if row.digest and row.channel == "email":
            key = (row.player_id, row.address)
            if key not in digests:
                digests[key] = []
                out.append(digests[key])
            digests[key].append(row)
        else:
            out.append([row])
    return out


def _count(channel: str, result: str, n: int) -> None:
    if (figures := metrics.FIGURES) is not None:
        figures.notifications.labels(channel, result).inc(n)
