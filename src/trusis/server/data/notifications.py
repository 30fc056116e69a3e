"""The notifications' rows (issue 37): addresses, push subscriptions, preferences, the
outbox's notices and the deliveries made from them, as typed rows.

The outbox is written with the game (commits.py inserts a game's notices in its action's
transaction); everything here runs off the game's path, in the sender's own task
(notifications/outbox.py). With several processes each notice is expanded and each
delivery sent by one of them: rows are claimed `FOR UPDATE SKIP LOCKED` (PostgreSQL; a
single SQLite process needs no lock). Each send first renews its own claim (`renew`), and a
delivery is marked only by the process that holds its claim; a claim that ran out (its
process died or stalled) is claimed again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import and_, delete, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from trusis.server.data import schema

Channel = Literal["email", "push"]
DeliveryState = Literal["queued", "claimed", "sent", "failed", "dropped"]


@dataclass(frozen=True, slots=True)
class MailAddress:
    """An account's e-mail address (`schema.mail_addresses`)."""

    player_id: str
    address: str
    added_at: float
    confirmed_at: float | None
    wanted: bool

    @property
    def usable(self) -> bool:
        """Confirmed and not unsubscribed: notifications may be sent to it."""
        return self.confirmed_at is not None and self.wanted


@dataclass(frozen=True, slots=True)
class PushSubscription:
    """A browser's push subscription (`schema.push_subscriptions`)."""

    id: str
    player_id: str
    endpoint: str
    p256dh: str
    auth: str
    added_at: float


@dataclass(frozen=True, slots=True)
class NoticeRow:
    """One fact for one seat's player, as the outbox keeps it (`schema.notices`)."""

    id: str
    player_id: str
    table_id: str
    seat: int
    kind: str
    phase: str
    facts: str
    created_at: float
    due_at: float
    state: str


@dataclass(frozen=True, slots=True)
class DeliveryRow:
    """One message to one address (`schema.deliveries`)."""

    id: str
    player_id: str
    channel: str
    address: str
    kind: str
    lang: str
    content: str
    digest: bool
    created_at: float
    due_at: float
    state: str
    attempts: int
    claimed_by: str | None
    claimed_until: float | None
    sent_at: float | None
    error: str | None


@dataclass(frozen=True, slots=True)
class Reach:
    """What the expansion of some notices needs to know of their players and tables, read
    in the expansion's own transaction."""

    prefs: dict[str, str]  # player id -> preferences JSON
    addresses: dict[str, MailAddress]
    pushes: dict[str, list[PushSubscription]]
    phases: dict[str, str | None]  # table id -> its running phase (None: not running)


Plan = Callable[[list[NoticeRow], Reach], list[dict[str, Any]]]
"""Given notices and what they need, the deliveries to queue (rows of `schema.deliveries`)."""


class NotificationRows:
    """The queries of the notifications, on the store's engine."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.locking = engine.dialect.name == "postgresql"

    # -- addresses ------------------------------------------------------------------

    async def address_of(self, player_id: str) -> MailAddress | None:
        m = schema.mail_addresses
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(m).where(m.c.player_id == player_id))).first()
        return None if row is None else MailAddress(**row._asdict())

    async def set_address(self, player_id: str, address: str) -> None:
        """A new address, unconfirmed (a changed one is unconfirmed again)."""
        m = schema.mail_addresses
        async with self.engine.begin() as conn:
            await conn.execute(delete(m).where(m.c.player_id == player_id))
            await conn.execute(insert(m).values(player_id=player_id, address=address,
                                                added_at=time.time(), confirmed_at=None,
                                                wanted=True))

    async def confirm(self, player_id: str, address: str) -> bool:
        """Confirm `address` if it is still the player's (a link for an address changed
        since confirms nothing)."""
        m = schema.mail_addresses
        async with self.engine.begin() as conn:
            done = await conn.execute(update(m).where(
                m.c.player_id == player_id, m.c.address == address).values(
                confirmed_at=func.coalesce(m.c.confirmed_at, time.time()), wanted=True))
        return bool(done.rowcount)

    async def unsubscribe(self, player_id: str, address: str) -> bool:
        """No more notifications to `address` (the address stays, so that a settings page
        can say it and turn them on again)."""
        m = schema.mail_addresses
        async with self.engine.begin() as conn:
            done = await conn.execute(update(m).where(
                m.c.player_id == player_id, m.c.address == address).values(wanted=False))
            await conn.execute(update(schema.deliveries).where(
                schema.deliveries.c.address == address,
                schema.deliveries.c.state == "queued").values(state="dropped"))
        return bool(done.rowcount)

    async def set_wanted(self, player_id: str, wanted: bool) -> None:
        m = schema.mail_addresses
        async with self.engine.begin() as conn:
            await conn.execute(update(m).where(m.c.player_id == player_id)
                               .values(wanted=wanted))

    async def remove_address(self, player_id: str) -> None:
        m = schema.mail_addresses
        async with self.engine.begin() as conn:
            await conn.execute(delete(m).where(m.c.player_id == player_id))

    # -- push subscriptions -----------------------------------------------------------

    async def add_push(self, sub: PushSubscription) -> None:
        """Keep a subscription (one endpoint is one browser: a new player of it takes it)."""
        p = schema.push_subscriptions
        async with self.engine.begin() as conn:
            await conn.execute(delete(p).where(p.c.endpoint == sub.endpoint))
            await conn.execute(insert(p).values(
                id=sub.id, player_id=sub.player_id, endpoint=sub.endpoint, p256dh=sub.p256dh,
                auth=sub.auth, added_at=sub.added_at))

    async def pushes_of(self, player_id: str) -> list[PushSubscription]:
        p = schema.push_subscriptions
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(p).where(p.c.player_id == player_id)
                                       .order_by(p.c.added_at))).all()
        return [PushSubscription(**r._asdict()) for r in rows]

    async def push(self, sub_id: str) -> PushSubscription | None:
        p = schema.push_subscriptions
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(p).where(p.c.id == sub_id))).first()
        return None if row is None else PushSubscription(**row._asdict())

    async def remove_push(self, player_id: str | None, endpoint_or_id: str) -> int:
        """Forget a subscription (its player's, or, with None, a gone one: 404/410)."""
        p = schema.push_subscriptions
        which = or_(p.c.endpoint == endpoint_or_id, p.c.id == endpoint_or_id)
        if player_id is not None:
            which = and_(which, p.c.player_id == player_id)
        async with self.engine.begin() as conn:
            done = await conn.execute(delete(p).where(which))
        return int(done.rowcount)

    # -- preferences and reach ----------------------------------------------------------

    async def prefs_of(self, player_id: str) -> str | None:
        n = schema.notify_prefs
        async with self.engine.connect() as conn:
            return (await conn.execute(select(n.c.prefs).where(n.c.player_id == player_id))
                    ).scalar()

    async def set_prefs(self, player_id: str, prefs: str) -> None:
        n = schema.notify_prefs
        async with self.engine.begin() as conn:
            await conn.execute(delete(n).where(n.c.player_id == player_id))
            await conn.execute(insert(n).values(player_id=player_id, prefs=prefs))

    async def reachable(self) -> set[str]:
        """The players something may be sent to: a confirmed, wanted address or a push
        subscription (the game's cheap test: notifications/facts.py)."""
        m, p = schema.mail_addresses, schema.push_subscriptions
        async with self.engine.connect() as conn:
            mails = (await conn.execute(select(m.c.player_id).where(
                m.c.confirmed_at.is_not(None), m.c.wanted))).scalars().all()
            pushes = (await conn.execute(select(p.c.player_id).distinct())).scalars().all()
        return {*mails, *pushes}

    # -- the outbox: notices to deliveries ---------------------------------------------

    async def expand(self, now: float, limit: int, plan: Plan) -> int:
        """Turn due notices into deliveries, in one transaction: each notice is expanded
        once, whichever process claims it. How many notices were expanded."""
        n = schema.notices
        async with self.engine.begin() as conn:
            query = (select(n).where(n.c.state == "new", n.c.due_at <= now)
                     .order_by(n.c.due_at).limit(limit))
            if self.locking:
                query = query.with_for_update(skip_locked=True)
            notices = [NoticeRow(**r._asdict()) for r in (await conn.execute(query)).all()]
            if not notices:
                return 0
            reach = await self._reach(conn, notices)
            rows = plan(notices, reach)
            if rows:
                await conn.execute(insert(schema.deliveries), rows)
            await conn.execute(update(n).where(n.c.id.in_([x.id for x in notices]))
                               .values(state="done"))
        return len(notices)

    async def _reach(self, conn: Any, notices: Sequence[NoticeRow]) -> Reach:
        players = sorted({x.player_id for x in notices})
        tables = sorted({x.table_id for x in notices})
        m, p, np_, t = (schema.mail_addresses, schema.push_subscriptions, schema.notify_prefs,
                        schema.tables)
        prefs = {r.player_id: r.prefs for r in (await conn.execute(
            select(np_).where(np_.c.player_id.in_(players)))).all()}
        addresses = {r.player_id: MailAddress(**r._asdict()) for r in (await conn.execute(
            select(m).where(m.c.player_id.in_(players)))).all()}
        pushes: dict[str, list[PushSubscription]] = {}
        for r in (await conn.execute(select(p).where(p.c.player_id.in_(players)))).all():
            pushes.setdefault(r.player_id, []).append(PushSubscription(**r._asdict()))
        phases = {r.id: (r.deadline_phase if r.status == "running" else None)
                  for r in (await conn.execute(select(t.c.id, t.c.status, t.c.deadline_phase)
                                               .where(t.c.id.in_(tables)))).all()}
        return Reach(prefs, addresses, pushes, phases)

    async def queue(self, rows: Iterable[dict[str, Any]]) -> None:
        """Deliveries made outside a game (an address's confirmation)."""
        rows = list(rows)
        if rows:
            async with self.engine.begin() as conn:
                await conn.execute(insert(schema.deliveries), rows)

    # -- the outbox: sending --------------------------------------------------------------

    async def claim(self, node: str, now: float, limit: int, hold: float) -> list[DeliveryRow]:
        """Take due deliveries for sending: queued ones, and claimed ones whose claim ran
        out (their process died, or stalled, before it renewed or marked them). Nobody else
        takes them while the claim (`hold` seconds) lasts; each send renews its own first
        (`renew`)."""
        d = schema.deliveries
        async with self.engine.begin() as conn:
            query = (select(d).where(or_(
                and_(d.c.state == "queued", d.c.due_at <= now),
                and_(d.c.state == "claimed", d.c.claimed_until < now)))
                .order_by(d.c.due_at).limit(limit))
            if self.locking:
                query = query.with_for_update(skip_locked=True)
            rows = [DeliveryRow(**r._asdict()) for r in (await conn.execute(query)).all()]
            if rows:
                await conn.execute(update(d).where(d.c.id.in_([r.id for r in rows])).values(
                    state="claimed", claimed_by=node, claimed_until=now + hold))
        return rows

    async def renew(self, ids: Sequence[str], node: str, now: float, hold: float
                    ) -> list[str]:
        """Right before a send: extend `node`'s claim on `ids` to `now + hold`, but only
        where `node` still holds it and it has not run out — one that ran out may already
        be another process's. The ids renewed (the others must not be sent by `node`).

        One conditional UPDATE: on PostgreSQL a claim by another process that locked the row
        first is seen once it commits (the WHERE is checked again on the new row), and a
        claim after it finds the row renewed."""
        d = schema.deliveries
        async with self.engine.begin() as conn:
            done = await conn.execute(update(d).where(
                d.c.id.in_(list(ids)), d.c.state == "claimed", d.c.claimed_by == node,
                d.c.claimed_until >= now).values(claimed_until=now + hold)
                .returning(d.c.id))
            return list(done.scalars().all())

    async def release(self, node: str) -> None:
        """This process stops: what it claimed and did not send goes back to the queue
        (a single process also calls it as it starts: any claim is a dead one's)."""
        d = schema.deliveries
        async with self.engine.begin() as conn:
            await conn.execute(update(d).where(d.c.state == "claimed",
                                               d.c.claimed_by == node)
                               .values(state="queued", claimed_by=None, claimed_until=None))

    async def release_all(self) -> None:
        d = schema.deliveries
        async with self.engine.begin() as conn:
            await conn.execute(update(d).where(d.c.state == "claimed")
                               .values(state="queued", claimed_by=None, claimed_until=None))

    async def mark_sent(self, ids: Sequence[str], node: str, now: float) -> int:
        """Sent by `node`: marked where `node` still holds the claim. How many were."""
        d = schema.deliveries
        async with self.engine.begin() as conn:
            done = await conn.execute(update(d).where(
                d.c.id.in_(list(ids)), d.c.state == "claimed", d.c.claimed_by == node)
                .values(state="sent", sent_at=now, claimed_until=None))
        return int(done.rowcount)

    async def mark(self, ids: Sequence[str], node: str, state: DeliveryState, due_at: float,
                   attempts: int, error: str | None) -> int:
        """A delivery `node` did not send: queued again for `due_at`, or failed, or dropped —
        only where `node` still holds its claim. A process that lost it (its hold ran out
        while its try went on) changes nothing: the delivery is another's, perhaps already
        sent, and queueing it again would send it twice. How many were marked."""
        d = schema.deliveries
        async with self.engine.begin() as conn:
            done = await conn.execute(update(d).where(
                d.c.id.in_(list(ids)), d.c.state == "claimed", d.c.claimed_by == node)
                .values(state=state, due_at=due_at, attempts=attempts,
                        error=None if error is None else error[:200],
                        claimed_by=None, claimed_until=None))
        return int(done.rowcount)

    async def sent_since(self, since: float, *, player_id: str | None = None,
                         address: str | None = None, channel: str = "email") -> int:
        """Messages sent on `channel` since `since` to one player or one address (the
        hourly bounds: docs/deploy.md)."""
        d = schema.deliveries
        query = select(func.count()).select_from(d).where(
            d.c.channel == channel, d.c.state == "sent", d.c.sent_at >= since)
        if player_id is not None:
            query = query.where(d.c.player_id == player_id)
        if address is not None:
            query = query.where(d.c.address == address)
        async with self.engine.connect() as conn:
            return int((await conn.execute(query)).scalar() or 0)

    async def confirmations_since(self, address: str, since: float) -> int:
        """Confirmation mails queued for `address` since `since`, sent or not."""
        d = schema.deliveries
        async with self.engine.connect() as conn:
            return int((await conn.execute(select(func.count()).select_from(d).where(
                d.c.address == address, d.c.kind == "confirm", d.c.created_at >= since))
                ).scalar() or 0)

    async def deliveries(self, player_id: str | None = None) -> list[DeliveryRow]:
        """Every delivery (of one player): for tests and `trusis admin`."""
        d = schema.deliveries
        query = select(d).order_by(d.c.created_at)
        if player_id is not None:
            query = query.where(d.c.player_id == player_id)
        async with self.engine.connect() as conn:
            return [DeliveryRow(**r._asdict()) for r in (await conn.execute(query)).all()]

    async def backlog(self) -> int:
        """Notices and deliveries waiting (a health figure)."""
        n, d = schema.notices, schema.deliveries
        async with self.engine.connect() as conn:
            a = (await conn.execute(select(func.count()).select_from(n)
                                    .where(n.c.state == "new"))).scalar()
            b = (await conn.execute(select(func.count()).select_from(d)
                                    .where(d.c.state.in_(("queued", "claimed"))))).scalar()
        return int(a or 0) + int(b or 0)
