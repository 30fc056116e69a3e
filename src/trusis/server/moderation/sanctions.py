"""Sanctions a moderator gives a player: a warning, a chat mute, a ban (issue 18).

Every sanction is a row of `sanctions` (who, when, why, until when) and a line of the
audit log (data/audit.py); the rows are data/sanctions.py's. A mute is checked in the
database when a chat message is applied, on the process that owns the game, unless that
process read the player as free to chat since the last mute it was told of (data/mutes.py,
D69), and a ban where a player signs in or is found from a token — so a
sanction given on one process counts at once on every other (docs/deploy.md,
"Moderation").
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from starlette.requests import HTTPConnection

from trusis.server.data.sanctions import (
    SANCTION_KINDS,
    Sanction,
    SanctionKind,
    active,
    banned_token,
)
from trusis.server.data.store import Store
from trusis.server.errors import LobbyError

MAX_DURATION = 10 * 365 * 24 * 3600.0
"""The longest mute or ban with an end (ten years); a ban may also have none."""


class WarningFacts(TypedDict):
    """A warning as its player reads it: `GET /api/me/warnings`, the `warning` frame; or
    (`kind` "mute") a mute, told at once as a warning is with its end: the `muted` frame."""

    id: str
    reason: str
    at: float
    kind: NotRequired[Literal["warning", "mute"]]
    until: NotRequired[float]


class BanFacts(TypedDict):
    """What a banned player is told (D36, D53): when the ban ends (None: never) and the
    moderator's reason, as a warning shows its reason. Never who gave it."""

    until: float | None
    reason: str


def banned_error(ban: BanFacts) -> LobbyError:
    return LobbyError(403, "banned", "you are banned from this server"
                      + ("" if ban["until"] is None else " until the date given"),
                      until=ban["until"], reason=ban["reason"])


async def ban_of(store: Store, token: str | None,
                 player_id: str | None = None) -> BanFacts | None:
    """The ban in force of the player whose session `token` was (kept by
    `keep_banned_tokens` when the ban revoked it), or of `player_id`: its end and reason."""
    banned = await banned_token(store.engine, token) \
        if token is not None and len(token) <= 200 else None
    who = banned[0] if banned is not None else player_id
    found = None if who is None else await active(store.engine, who, "ban")
    if found is not None:
        return BanFacts(until=found["until"], reason=found["reason"])
    if banned is not None:  # its sanction's row is gone: the token's own end still holds
        return BanFacts(until=banned[1], reason="")
    return None


async def refuse_banned(store: Store, connection: HTTPConnection,
                        token: str | None, player_id: str | None = None) -> None:
    """403 `banned` (with the ban's end and reason) for a banned player signing in, or a
    browser that held their session."""
    found = await ban_of(store, token, player_id)
    if found is not None:
        raise banned_error(found)


__all__ = ["MAX_DURATION", "SANCTION_KINDS", "BanFacts", "Sanction", "SanctionKind",
           "WarningFacts", "ban_of", "banned_error", "refuse_banned"]
