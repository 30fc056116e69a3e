"""Issue 37: the outbox and the preferences, in process against real parts: several
processes' outboxes on one PostgreSQL send each delivery once (FOR UPDATE SKIP LOCKED);
the hourly bound holds mails back without losing them; a gone push subscription is
forgotten; a failing mail server is retried with back-off and then given up, counted;
quiet hours and the digest are counted in the player's time zone; bad preferences are
refused by name."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from notifyhelp import MailSink, PushSink
from serverproc import free_port, new_database, on_fresh_database, postgres_available
from trusis.server.config import normalise_database_url
from trusis.server.data.notifications import NoticeRow, PushSubscription, Reach
from trusis.server.data.store import Store
from trusis.server.monitoring import metrics
from trusis.server.notifications import mail as mail_module
from trusis.server.notifications import outbox as outbox_module
from trusis.server.notifications.links import Links
from trusis.server.notifications.mail import MailSettings
from trusis.server.notifications.outbox import MAX_ATTEMPTS, Outbox, OutboxSettings, retry_pause
from trusis.server.notifications.planning import delivery, plan
from trusis.server.notifications.prefs import Prefs, PrefsError, parse
from trusis.server.notifications.push import vapid_key

WORDS = {"subject": "s", "lines": ["l"], "url": "http://x/t/1", "tag": "t"}


async def _store(url: str) -> Store:
    store = Store(normalise_database_url(url))
    await store.migrate()
    return store


def _outbox(store: Store, node: str, sink: MailSink | None, mail_timeout: float = 3,
            **extra: object) -> Outbox:
    settings = OutboxSettings(base_url="http://trusis.test", node=node,
                              mail=MailSettings(host="127.0.0.1", port=sink.port if sink
                                                else free_port(), security="none",
                                                sender="T <t@trusis.test>",
                                                timeout=mail_timeout),
                              mails_per_player_hour=0, mails_per_address_hour=0)
    for key, value in extra.items():
        setattr(settings, key, value)
    return Outbox(store.notifications, settings, Links("secret", "http://trusis.test"))


@pytest.mark.skipif(not postgres_available(), reason="PostgreSQL is not running")
def test_two_processes_outboxes_send_each_delivery_once(tmp_path: Path) -> None:
    on_fresh_database("postgresql", tmp_path, _two_outboxes)


async def _two_outboxes(url: str) -> None:
    sink = MailSink()
    sink.start()
    stores = [await _store(url), await _store(url)]
    try:
        now = time.time()
        await stores[0].notifications.queue(
            delivery(f"p{i % 3}", "email", f"a{i % 5}@example.org", "phase", "en", WORDS,
                     now, now, False) for i in range(40))
        a, b = _outbox(stores[0], "node-a", sink), _outbox(stores[1], "node-b", sink)
        for _ in range(3):
            await asyncio.gather(a.round(), b.round())
        ids = [m["Message-ID"] for m in sink.mails()]
        assert len(ids) == len(set(ids)) == 40
        rows = await stores[0].notifications.deliveries()
        assert {r.state for r in rows} == {"sent"}
        assert {r.claimed_by for r in rows} <= {"node-a", "node-b"}
    finally:
        for store in stores:
            await store.close()
        sink.stop()


@pytest.mark.skipif(not postgres_available(), reason="PostgreSQL is not running")
def test_two_senders_and_a_slow_mail_server_send_each_mail_once(tmp_path: Path) -> None:
    """A claim kept past its hold by a slow server is not taken over while its mail is being
    sent: each claim is renewed right before its send, for longer than the send may last."""
    on_fresh_database("postgresql", tmp_path, _two_senders_slow_server)


async def _two_senders_slow_server(url: str) -> None:
    sink = MailSink()
    sink.start()
    stores = [await _store(url), await _store(url)]
    try:
        now = time.time()
        # the earliest due first: those a sends are those b would take over
        await stores[0].notifications.queue(
            delivery(f"p{i}", "email", f"a{i}@example.org", "phase", "en", WORDS, now,
                     now - 100 + i, False) for i in range(16))
        a, b = (_outbox(store, node, sink, mail_timeout=15, hold_seconds=0.5)
                for store, node in zip(stores, ("node-a", "node-b"), strict=True))
        sink.hold()  # the server takes each mail and answers nothing yet
        first = asyncio.create_task(a.round())
        await sink.held(a.settings.parallel)
        await asyncio.sleep(0.6)  # a's first claim has run out; its mails are in flight
        second = asyncio.create_task(b.round())
        await sink.held(a.settings.parallel + b.settings.parallel)
        sink.release()
        await asyncio.gather(first, second)
        for _ in range(10):
            if not {r.state for r in await stores[0].notifications.deliveries()} - {"sent"}:
                break
            await asyncio.gather(a.round(time.time() + 5), b.round(time.time() + 5))
        ids = [m["Message-ID"] for m in sink.mails()]
        assert len(ids) == len(set(ids)) == 16
        assert {r.state for r in await stores[0].notifications.deliveries()} == {"sent"}
    finally:
        for store in stores:
            await store.close()
        sink.stop()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_mail_another_process_took_over_is_not_sent_by_the_one_that_lost_it(
        tmp_path: Path, kind: str) -> None:
    on_fresh_database(kind, tmp_path, _taken_over)


async def _taken_over(url: str) -> None:
    sink = MailSink()
    sink.start()
    stores = [await _store(url), await _store(url)]
    try:
        now = time.time()
        await stores[0].notifications.queue(
            [delivery("p1", "email", "a@example.org", "phase", "en", WORDS, now, now, False)])
        a, b = _outbox(stores[0], "node-a", sink), _outbox(stores[1], "node-b", sink)
        claimed = await stores[0].notifications.claim("node-a", now, 10, 120)
        # a stalls (a stopped process, a lost connection) past its claim: b takes it over
        assert await b.round(now + 1000) == 1
        await a.deliver(claimed, now + 1000)  # a goes on where it stopped
        assert len(sink.mails()) == 1
        row = (await stores[0].notifications.deliveries())[0]
        assert (row.state, row.claimed_by) == ("sent", "node-b")
    finally:
        for store in stores:
            await store.close()
        sink.stop()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_late_failure_of_a_process_that_lost_its_claim_does_not_queue_a_sent_mail_again(
        tmp_path: Path, kind: str) -> None:
    on_fresh_database(kind, tmp_path, _late_failure)


async def _late_failure(url: str) -> None:
    failing, working = MailSink(), MailSink()
    failing.start()
    working.start()
    stores = [await _store(url), await _store(url)]
    try:
        now = time.time()
        await stores[0].notifications.queue(
            [delivery("p1", "email", "a@example.org", "phase", "en", WORDS, now, now, False)])
        a = _outbox(stores[0], "node-a", failing, mail_timeout=15)
        b = _outbox(stores[1], "node-b", working)
        failing.hold()
        sending = asyncio.create_task(a.round(now))
        await failing.held(1)
        # a's server hangs past every hold: b takes the mail over and sends it
        assert await b.round(now + 1000) == 1
        assert len(working.mails()) == 1
        failing.release("451 try again later")  # then a's server fails it, late
        assert await sending == 1
        row = (await stores[0].notifications.deliveries())[0]
        assert (row.state, row.claimed_by, row.attempts) == ("sent", "node-b", 0)
        for box in (a, b):
            await box.round(now + 5000)
        assert len(working.mails()) == 1 and failing.mails() == []
    finally:
        for store in stores:
            await store.close()
        failing.stop()
        working.stop()


@pytest.mark.asyncio
async def test_a_round_claims_no_more_than_it_can_send_well_within_its_claim(
        tmp_path: Path) -> None:
    store = await _store(new_database("sqlite", tmp_path))
    sink = MailSink()
    sink.start()
    try:
        now = time.time()
        await store.notifications.queue(
            delivery(f"p{i}", "email", f"a{i}@example.org", "phase", "en", WORDS, now, now,
                     False) for i in range(60))
        box = _outbox(store, "n", sink, mail_timeout=MailSettings("x").timeout)
        settings = box.settings
        assert settings.mail is not None
        sink.hold()
        sending = asyncio.create_task(box.round())
        await sink.held(settings.parallel)
        claimed = [r for r in await store.notifications.deliveries() if r.state == "claimed"]
        sink.release()
        await sending
        # each wave of `parallel` sends may last the whole timeout: the last wave starts
        # within the first half of the claim's hold (docs/deploy.md, "Notifications")
        waves = -(-len(claimed) // settings.parallel)
        assert (waves - 1) * settings.mail.timeout <= settings.hold_seconds / 2
        assert len(sink.mails()) == len(claimed)
    finally:
        await store.close()
        sink.stop()


@pytest.mark.asyncio
async def test_a_mail_server_that_answers_each_step_in_time_but_slowly_times_out() -> None:
    """`TRUSIS_SMTP_TIMEOUT` bounds the whole exchange, not each answer: a send never
    outlasts its claim."""
    sink = MailSink(step=0.7)  # three answers of 0.7 s: each within 1.5 s, not all
    sink.start()
    try:
        settings = MailSettings(host="127.0.0.1", port=sink.port, security="none",
                                sender="T <t@trusis.test>", timeout=1.5)
        message = mail_module.message(settings, "a@example.org", "d1", "en", [WORDS], "s",
                                      "", "http://x/settings")
        with pytest.raises(TimeoutError):
            await mail_module.send(settings, message)
    finally:
        sink.stop()


@pytest.mark.asyncio
async def test_the_hourly_bound_holds_mails_back_and_loses_none(tmp_path: Path) -> None:
    store = await _store(new_database("sqlite", tmp_path))
    sink = MailSink()
    sink.start()
    try:
        now = time.time()
        await store.notifications.queue(
            delivery("p1", "email", "a@example.org", "phase", "en", WORDS, now, now, False)
            for _ in range(5))
        box = _outbox(store, "n", sink, mails_per_player_hour=2)
        await box.round()
        await box.round()
        assert len(sink.mails()) == 2  # docs/deploy.md: mails_per_player_hour
        rows = await store.notifications.deliveries()
        held = [r for r in rows if r.state == "queued"]
        assert len(held) == 3 and all(r.due_at > now + 600 and r.attempts == 0 for r in held)
        await box.round(now + 3700)  # an hour later they go
        assert len(sink.mails()) == 4
    finally:
        await store.close()
        sink.stop()


@pytest.mark.asyncio
async def test_a_failing_mail_server_is_retried_with_back_off_then_given_up_and_counted(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = await _store(new_database("sqlite", tmp_path))
    metrics.FIGURES = metrics.Figures()
    try:
        now = time.time()
        await store.notifications.queue(
            [delivery("p1", "email", "a@example.org", "phase", "en", WORDS, now, now, False)])
        box = _outbox(store, "n", None, retry_seconds=10.0)  # nobody listens on its port
        clock = now
        dues = []
        for _ in range(MAX_ATTEMPTS):
            await box.round(clock)
            row = (await store.notifications.deliveries())[0]
            dues.append(row.due_at - clock)
            clock = row.due_at + 1
        assert row.state == "failed" and row.attempts == MAX_ATTEMPTS
        assert "ConnectionRefused" in (row.error or "") or "connect" in (row.error or "").lower()
        pauses = dues[:-1]
        assert all(b > a * 1.5 for a, b in itertools.pairwise(pauses))  # doubling
        assert "gave up email" in caplog.text
        assert metrics.FIGURES.registry.get_sample_value(
            "trusis_notifications_total", {"channel": "email", "result": "failed"}) == 1
    finally:
        metrics.FIGURES = None
        await store.close()


def test_the_pause_doubles_up_to_an_hour() -> None:
    assert 54 <= retry_pause(1, 60) <= 66 and 108 <= retry_pause(2, 60) <= 132
    assert retry_pause(30, 60) <= 3960


@pytest.mark.asyncio
async def test_a_gone_push_subscription_is_forgotten(tmp_path: Path) -> None:
    store = await _store(new_database("sqlite", tmp_path))
    push = PushSink()
    push.start()
    box = None
    try:
        player = (await store.new_player("Bob", "guest")).id
        sub = push.subscription("gone")
        push.status_for["/push/gone"] = 410
        await store.notifications.add_push(PushSubscription(
            "s1", player, sub.endpoint, sub.body["keys"]["p256dh"], sub.body["keys"]["auth"],
            0))
        now = time.time()
        await store.notifications.queue(
            [delivery(player, "push", "s1", "phase", "en", WORDS, now, now, False)])
        box = _outbox(store, "n", None, vapid=vapid_key(tmp_path),
                      push_services=(push.origin,))
        await box.round()
        assert (await store.notifications.deliveries())[0].state == "dropped"
        assert await store.notifications.pushes_of(player) == []
        assert len(push.kept) == 1
    finally:
        await store.close()
        push.stop()
        if box is not None and box.session is not None:
            await box.session.close()


def test_quiet_hours_and_the_digest_are_counted_in_the_player_s_time_zone() -> None:
    rome = ZoneInfo("Europe/Rome")
    prefs = Prefs(tz="Europe/Rome", quiet_from="22:00", quiet_to="08:00", digest_hour=18)
    late = datetime(2026, 3, 10, 23, 30, tzinfo=rome).timestamp()
    assert datetime.fromtimestamp(prefs.released(late), rome) == datetime(
        2026, 3, 11, 8, 0, tzinfo=rome)
    noon = datetime(2026, 3, 10, 12, 0, tzinfo=rome).timestamp()
    assert prefs.released(noon) == noon
    assert datetime.fromtimestamp(prefs.next_digest(noon), rome) == datetime(
        2026, 3, 10, 18, 0, tzinfo=rome)
    assert datetime.fromtimestamp(prefs.next_digest(late), rome) == datetime(
        2026, 3, 11, 18, 0, tzinfo=rome)


@pytest.mark.parametrize(("body", "field"), [
    ({"lang": "de"}, "lang"), ({"tz": "Mars/Olympus"}, "tz"),
    ({"quiet_from": "25:00", "quiet_to": "07:00"}, "quiet_from"),
    ({"quiet_from": "22:00"}, "quiet_to"), ({"email": {"gossip": True}}, "email.gossip"),
    ({"push": {"phase": "yes"}}, "push.phase"), ({"digest_hour": 24}, "digest_hour"),
    ({"colour": "red"}, "colour")])
def test_bad_preferences_are_refused_by_name(body: dict[str, object], field: str) -> None:
    with pytest.raises(PrefsError) as refused:
        parse(body)
    assert refused.value.field == field


def _notice(kind: str, phase: str) -> NoticeRow:
    facts = {"table": {"id": "T1", "name": "t"}, "seat": 1,
             "phase": {"kind": phase.split(":")[0], "number": int(phase.split(":")[1])},
             "deadline": None, "alive": True, "act": True, "can": [], "lines": [],
             "names": {}, "winner": None, "won": None}
    return NoticeRow("n", "p1", "T1", 1, kind, phase, json.dumps(facts), 0, 0, "new")


def test_a_notice_whose_phase_is_over_is_dropped_and_a_digest_waits_but_not_a_reminder(
) -> None:
    prefs = json.dumps(Prefs(digest=True, email=dict.fromkeys(
        ("started", "phase", "reminder", "whisper", "ended"), True)).to_dict())
    from trusis.server.data.notifications import MailAddress

    reach = Reach({"p1": prefs}, {"p1": MailAddress("p1", "a@x.org", 0, 1, True)}, {},
                  {"T1": "night:1"})
    now = time.time()
    rows = plan([_notice("phase", "day:1"), _notice("reminder", "day:1"),
                 _notice("phase", "night:1"), _notice("reminder", "night:1"),
                 _notice("ended", "day:1")], reach, now, "http://x")
    kinds = [(r["kind"], r["digest"]) for r in rows]
    assert kinds == [("phase", True), ("reminder", False), ("ended", True)]
    assert outbox_module.MAX_ATTEMPTS >= 5
