"""What a process does when it starts and when it stops: the store migrated, the games
restored, the hub, identities, quotas, notifications and metrics started, the collector set
for a long-lived heap; then the same undone in reverse. app.py builds the app around it."""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI

from trusis.server.api import metrics_live
from trusis.server.cluster.owner import ClusterOwner
from trusis.server.config import Settings, data_dir, private_sqlite
from trusis.server.connections import clients
from trusis.server.data.store import Store
from trusis.server.monitoring import metrics
from trusis.server.monitoring.lag import LoopLag
from trusis.server.monitoring.outage import Outage
from trusis.server.notifications.outbox import OutboxSettings
from trusis.server.notifications.service import Notifications
from trusis.server.players import passwords
from trusis.server.players.accounts import Accounts
from trusis.server.players.identity import Identity
from trusis.server.tables import chat_after_end, thinking
from trusis.server.tables.balance import Balance
from trusis.server.tables.deletions import DeletedCheck
from trusis.server.tables.endcache import EndCache
from trusis.server.tables.hub import Hub
from trusis.server.tables.owner import Holding, LocalOwner
from trusis.server.tables.quota import Quota
from trusis.server.tables.revocation import Sessions

log = logging.getLogger("trusis.server")

STATEMENT_SECONDS = 15.0
"""The longest the server waits for one statement's answer from PostgreSQL: a black-holed
link answers nothing, ever (issue 41). No request of the server's comes near it."""

GC_THRESHOLDS = (700, 2, 5000)
"""The collector's thresholds while serving (Python's are 700, 10, 10). A collection walks
every object of the generations it collects with the event loop stopped, and on a heap of
hundreds of tables each object costs a cache miss or two: at 500 paced tables a young pass
(a few thousand objects) took 2–10 ms and a middle one, the survivors of ten young passes,
25–68 ms, the loop's longest stalls. A middle pass after every 2 young ones walks a fifth of
that (p99 27 ms against 54); the objects walked are the same, sooner. A full pass walks every
live game (0.3–0.7 s) and finds almost nothing (the server makes few cycles): it is
considered after 5,000 middle passes (10,000 young ones, as 10 x 1,000 before) instead of 10
(docs/architecture.md, "The collector")."""


def notifications_of(settings: Settings, store: Store) -> Notifications:
    """The process's notifications, from its settings and the environment (docs/deploy.md,
    "Notifications")."""
    base = settings.public_url or f"http://localhost:{settings.port}"
    outbox = OutboxSettings.from_env(base, settings.node, settings.redis_url is not None)
    if outbox.mail is not None and not settings.public_url:
        log.warning("mail is sent (TRUSIS_SMTP_HOST) but no public address is set: every "
                    "link in a mail points to %s, which opens on this computer only; give "
                    "--public-url (TRUSIS_PUBLIC_URL), the address players open, such as "
                    "https://trusis.example.org", base)
    outbox.mails_per_player_hour = settings.limits.mails_per_player_hour
    outbox.mails_per_address_hour = settings.limits.mails_per_address_hour
    folder = settings.data_folder
    return Notifications(store.notifications, outbox, settings.secret,
                         (lambda: folder) if folder is not None else data_dir)


def lifespan_of(settings: Settings) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan for `settings`: everything below, started in order and stopped
    in reverse."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # With several processes, a transaction left open past a lease would keep its
        # game from being taken over; alone, a generous bound for a very busy process.
        private_sqlite(settings.database_url)
        store = Store(settings.database_url,
                      max(2.0, settings.lease_seconds) if settings.redis_url else 60.0,
                      statement_seconds=STATEMENT_SECONDS)
        await store.migrate()
        redis_url = settings.redis_url

        def clustered(holding: Holding) -> ClusterOwner:
            assert redis_url is not None
            return ClusterOwner(holding, settings.node, redis_url, settings.lease_seconds)

        hub = Hub(store, settings.bot_pace, settings.limits,
                  clustered if redis_url else LocalOwner)
        thinking.configure(settings.bot_rollouts, settings.bot_threads)
        outage: Outage = app.state.outage
        if store.heartbeat is not None:
            outage.watch("database", store.heartbeat)
        if isinstance(hub.owner, ClusterOwner):
            outage.watch("redis", hub.owner.node.bus)  # the lease renewal beats the database
        elif store.heartbeat is not None:
            store.heartbeat.watch(every=1.0)
        app.state.lag = LoopLag()
        app.state.lag.start()
        app.state.store = store
        app.state.hub = hub
        app.state.identity = Identity(store, settings.secret, settings.secure_cookies,
                                      settings.token_days)
        app.state.accounts = Accounts(store, app.state.identity)
        app.state.sessions = Sessions(store, hub)
        app.state.balance = Balance(settings.balance_games, settings.limits)
        app.state.quota = Quota(settings.limits, hub)
        chat_after_end.LIMITS = clients.LIMITS = settings.limits
        passwords.share(settings.limits.password_jobs_per_address)
        app.state.ends = EndCache(settings.limits.summaries_cached)
        if settings.metrics_port is not None or settings.metrics_token:
            app.state.figures = metrics_live.start(hub, store, app.state.lag)
        began = time.perf_counter()
        await hub.restore()
        restored = time.perf_counter() - began
        app.state.quota.start()
        app.state.deletions = DeletedCheck(store, hub)  # `trusis admin delete` (D53)
        app.state.deletions.start()
        if settings.notifications:  # the outbox's own task (notifications/outbox.py)
            app.state.notifications = notifications_of(settings, store)
            await app.state.notifications.start()
        # What start-up built lives as long as the process: keep it out of the collector's
        # full passes, whose pauses set the p99 of acknowledgements under load (bench/load.py);
        # and make those passes rare (GC_THRESHOLDS).
        gc.collect()
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        log.info("trusis serve: %d tables restored in %.2f s", len(hub.rooms), restored)
        if settings.ready_message and settings.log_json:
            log.info("%s", settings.ready_message)
        elif settings.ready_message:
            print(settings.ready_message, flush=True)
        try:
            yield
        finally:
            metrics.stop()
            await app.state.lag.stop()
            await app.state.quota.stop()
            await app.state.deletions.stop()
            if settings.notifications:
                await app.state.notifications.stop()
            await hub.close()
            thinking.current().close()
            app.state.balance.close()
            await store.close()

    return lifespan
