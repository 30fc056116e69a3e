"""From notices to deliveries: who gets what, on which channel, and when.

Run in the expansion's own transaction (data/notifications.py `expand`), with what it read
there of the players (preferences, address, subscriptions) and of the tables (their phase
now): each notice becomes its deliveries exactly once, or none.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from trusis.server.data.notifications import NoticeRow, Reach
from trusis.server.notifications.prefs import Prefs, stored
from trusis.server.notifications.texts import Words, words

STALE_WITH_THE_PHASE = frozenset({"phase", "reminder"})
"""Kinds that say nothing once their phase is over (D58): a reminder for a phase that ended,
or 'Day 2 has begun' read during Night 2, is dropped; the next phase has its own."""
NEVER_IN_DIGEST = frozenset({"reminder"})
"""A reminder is about hours, not days: it comes alone, even to a player who reads a digest."""


def still_news(notice: NoticeRow, reach: Reach) -> bool:
    phase = reach.phases.get(notice.table_id)
    if notice.kind in STALE_WITH_THE_PHASE:
        return phase == notice.phase
    if notice.kind == "started":
        return phase is not None
    return True


def plan(notices: list[NoticeRow], reach: Reach, now: float, base: str) -> list[dict[str, Any]]:
    """The delivery rows of `notices` (rows of `schema.deliveries`)."""
    rows: list[dict[str, Any]] = []
    for notice in notices:
        if not still_news(notice, reach):
            continue
        prefs = stored(reach.prefs.get(notice.player_id))
        facts = json.loads(notice.facts)
        said: Words | None = None
        address = reach.addresses.get(notice.player_id)
        if address is not None and address.usable and prefs.wants("email", notice.kind):
            said = words(notice.kind, facts, prefs, base, now)
            digest = prefs.digest and notice.kind not in NEVER_IN_DIGEST
            due = prefs.next_digest(now) if digest else prefs.released(now)
            rows.append(delivery(notice.player_id, "email", address.address, notice.kind,
                                 prefs, said, now, due, digest))
        if prefs.wants("push", notice.kind):
            for sub in reach.pushes.get(notice.player_id, []):
                said = said or words(notice.kind, facts, prefs, base, now)
                rows.append(delivery(notice.player_id, "push", sub.id, notice.kind, prefs,
                                     said, now, prefs.released(now), False))
    return rows


def delivery(player_id: str, channel: str, address: str, kind: str, prefs: Prefs | str,
             said: Words, now: float, due: float, digest: bool) -> dict[str, Any]:
    lang = prefs if isinstance(prefs, str) else prefs.lang
    return {"id": secrets.token_hex(10), "player_id": player_id, "channel": channel,
            "address": address, "kind": kind, "lang": lang,
            "content": json.dumps(said, ensure_ascii=False), "digest": digest,
            "created_at": now, "due_at": due, "state": "queued", "attempts": 0,
            "claimed_by": None, "claimed_until": None, "sent_at": None, "error": None}
