"""A player's own data: everything kept about them, and forgetting them.

One place for what `GET /api/me/data` and `DELETE /api/me` do (people.py) and what an
operator does for a player with `trusis admin export` and `trusis admin delete`, so that
both always cover the same tables.
"""

from __future__ import annotations

import json
from typing import Any, cast

from sqlalchemy import delete, select, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from typing_extensions import TypedDict

from trusis.server.data import audit, schema
from trusis.server.data.reports import ReportRow
from trusis.server.data.rows import SeatRow
from trusis.stats.declaration import shipped_declaration

DELETED_NAME = "Deleted player"


class PlayerRow(TypedDict):
    """Your row of `players`, without the password's hash."""

    id: str
    name: str
    kind: str
    created_at: float
    login: str | None
    rating_mu: float | None
    rating_sigma: float | None
    rated_games: int
    deleted: bool
    made_by: str | None


class GameRow(TypedDict):
    """A finished game of yours (`game_players`); `table_stats` holds only the table's
    statistics everyone may see (R50, D16)."""

    table_id: str
    seat: int
    player_id: str | None
    role: str
    team: str
    won: bool
    finished_at: float
    stats: str  # JSON: your seat's statistics by id (R63)
    table_stats: str  # JSON


class ActionOfYours(TypedDict):
    """An action you sent, its record form parsed (docs/record.md)."""

    table_id: str
    idx: int
    data: dict[str, Any]
    t: float | None
    player_id: str | None
    client_id: str | None
    fence: int | None


class RoleRow(TypedDict):
    """A server role you hold (staff.py)."""

    player_id: str
    role: str
    granted_at: float
    granted_by: str


class SanctionOfYours(TypedDict):
    """A sanction given to you, without which moderator gave it."""

    id: str
    player_id: str
    kind: str
    reason: str
    at: float
    until: float | None
    report_id: str | None
    seen_at: float | None
    lifted_at: float | None


class BlockOfYours(TypedDict):
    """A player you block (D33)."""

    player_id: str
    blocked_id: str
    at: float


class MailAddress(TypedDict):
    player_id: str
    address: str
    added_at: float
    confirmed_at: float | None
    wanted: bool


class PushSubscription(TypedDict):
    id: str
    player_id: str
    endpoint: str
    p256dh: str
    auth: str
    added_at: float


class NotificationPrefs(TypedDict):
    player_id: str
    prefs: str  # JSON (notifications/prefs.py)


class Delivery(TypedDict):
    """A mail or a push sent to you, or waiting to be."""

    id: str
    player_id: str
    channel: str
    address: str
    kind: str
    lang: str
    content: str  # JSON: the words
    digest: bool
    created_at: float
    due_at: float
    state: str
    attempts: int
    claimed_by: str | None
    claimed_until: float | None
    sent_at: float | None
    error: str | None


class ReadMark(TypedDict):
    """How far you had read a game's stream ("Your games")."""

    table_id: str
    player_id: str
    seq: int
    at: float


class PersonalData(TypedDict):
    """Everything kept about a player (`GET /api/me/data`, `trusis admin export`), in the
    order it is sent: a key per stored table that holds something of theirs."""

    player: PlayerRow
    seats: list[SeatRow]
    games: list[GameRow]
    actions: list[ActionOfYours]
    reports_filed: list[ReportRow]
    staff_roles: list[RoleRow]
    sanctions: list[SanctionOfYours]
    blocks: list[BlockOfYours]
    email: list[MailAddress]
    push_subscriptions: list[PushSubscription]
    notification_settings: list[NotificationPrefs]
    notifications_sent: list[Delivery]
    read_marks: list[ReadMark]


async def player_data(engine: AsyncEngine, player_id: str) -> PersonalData | None:
    """Everything kept about `player_id` (None: no such player). Never the password's hash
    nor any token (tokens are kept only as hashes anyway)."""
    p, s, g, a, r = (schema.players, schema.seats, schema.game_players, schema.actions,
                     schema.reports)
    async with engine.connect() as conn:
        me = (await conn.execute(select(p).where(p.c.id == player_id))).mappings().first()
        if me is None:
            return None
        seats = (await conn.execute(select(s).where(s.c.player_id == player_id))).mappings()
        games = (await conn.execute(select(g).where(g.c.player_id == player_id))).mappings()
        acts = (await conn.execute(select(a).where(a.c.player_id == player_id))).mappings()
        filed = (await conn.execute(select(r).where(r.c.reporter_id == player_id))).mappings()
        held = (await conn.execute(select(schema.staff_roles).where(
            schema.staff_roles.c.player_id == player_id))).mappings()
        given = (await conn.execute(select(schema.sanctions).where(
            schema.sanctions.c.player_id == player_id))).mappings()
        blocks = (await conn.execute(select(schema.blocks).where(
            schema.blocks.c.player_id == player_id))).mappings()
        notified = {}  # issue 37: the address, browsers, choices, mails and read marks
        for name, kept in (("email", schema.mail_addresses),
                           ("push_subscriptions", schema.push_subscriptions),
                           ("notification_settings", schema.notify_prefs),
                           ("notifications_sent", schema.deliveries),
                           ("read_marks", schema.reads)):
            rows = await conn.execute(select(kept).where(kept.c.player_id == player_id))
            notified[name] = [dict(x) for x in rows.mappings().all()]
        return cast(PersonalData, {
            "player": {k: v for k, v in dict(me).items() if k != "password_hash"},
            "seats": [dict(x) for x in seats.all()],
            "games": [_shown(dict(x)) for x in games.all()],
            "actions": [{**dict(x), "data": json.loads(x["data"])} for x in acts.all()],
            "reports_filed": [dict(x) for x in filed.all()],
            "staff_roles": [dict(x) for x in held.all()],
            # Sanctions given to you, without which moderator gave them (moderation.py).
            "sanctions": [{k: v for k, v in x.items() if k != "by_id"} for x in given.all()],
            "blocks": [dict(x) for x in blocks.all()],
            **notified,
        })


def _shown(game: dict[str, Any]) -> dict[str, Any]:
    """A game of yours as you may see it: the table's statistics everyone may see, not
    the limited ones (the whole table's private messages: R50, D16)."""
    limited = {str(s.id) for s in shipped_declaration().table if s.limited}
    stats = json.loads(game["table_stats"])
    game["table_stats"] = json.dumps({k: v for k, v in stats.items() if k not in limited})
    return game


async def forget_player(engine: AsyncEngine, player_id: str) -> bool:
    """Delete an account in a transaction of its own (forget_in). False: no such player."""
    async with engine.begin() as conn:
        return await forget_in(conn, player_id)


class NotDeleted(Exception):
    """The database refused a deletion: nothing of it was done (one transaction)."""


async def forget_logged(engine: AsyncEngine, player_id: str, actor: str,
                        reason: str) -> None:
    """An operator's deletion (`trusis admin delete`): the account forgotten and its audit
    line written in one transaction (D37), both or neither; the line names the id only,
    the name is forgotten. NotDeleted (the database's words): nothing was deleted."""
    try:
        async with engine.begin() as conn:
            await forget_in(conn, player_id)
            await audit.write(conn, actor, "delete_player", player_id, reason)
    except DBAPIError as err:
        raise NotDeleted(str(err.orig)) from err


async def forget_in(conn: AsyncConnection, player_id: str) -> bool:
    """Delete an account within the caller's transaction, so that an operator's deletion
    and its audit line are one (D37): the name is replaced in stored games, which stay
    playable as replays for the others; sessions, tokens and server roles end, and what
    its notifications kept goes. False: no such player."""
    p, t, s, k = schema.players, schema.tables, schema.seats, schema.tokens
    found = (await conn.execute(select(p.c.id).where(p.c.id == player_id))).first()
    if found is None:
        return False
    seats = (await conn.execute(select(s.c.table_id, s.c.seat)
                                .where(s.c.player_id == player_id))).all()
    for table_id, seat in seats:
        row = (await conn.execute(select(t.c.players).where(t.c.id == table_id))).first()
        if row is not None and row[0]:
            names = json.loads(row[0])
            if 0 < seat <= len(names):
                names[seat - 1] = DELETED_NAME
                await conn.execute(update(t).where(t.c.id == table_id)
                                   .values(players=json.dumps(names)))
    await conn.execute(update(s).where(s.c.player_id == player_id).values(name=DELETED_NAME))
    await conn.execute(delete(k).where(k.c.player_id == player_id))
    await conn.execute(delete(schema.staff_roles)
                       .where(schema.staff_roles.c.player_id == player_id))
    # What its notifications kept (issue 37): its address, its browsers, its choices,
    # its mails and pushes (sent or not: each holds the address and what it said), the
    # notices not yet sent, and how far it had read its games.
    for kept in (schema.mail_addresses, schema.push_subscriptions, schema.notify_prefs,
                 schema.deliveries, schema.notices, schema.reads):
        await conn.execute(delete(kept).where(kept.c.player_id == player_id))
    b = schema.blocks  # blocks end both ways; sanctions stay, as the moderators' record
    await conn.execute(delete(b).where((b.c.player_id == player_id)
                                       | (b.c.blocked_id == player_id)))
    await conn.execute(update(p).where(p.c.id == player_id).values(
        name=DELETED_NAME, login=None, password_hash=None, deleted=True))
    return True
