"""Revoking sign-ins: the tokens go from the database, their connections close everywhere.

The one object (`Sessions`, kept in `app.state`) that the routes of sessions.py, account
deletion (people.py) and moderation use to end sign-ins. A revocation deletes tokens in
the database — which every process asks at every request (identity.py), so it counts at
once everywhere — and closes the open WebSockets of the revoked tokens (close code 4401):
on this process directly, on the others through the cluster's bus (cluster/node.py).
"""

from __future__ import annotations

import time

from trusis.server.data.store import Store
from trusis.server.errors import LobbyError
from trusis.server.moderation.sanctions import BanFacts
from trusis.server.players.revoked import Revocation
from trusis.server.tables.hub import Hub

PASSWORD_TRIES = 5
"""Wrong current passwords one player may send in PASSWORD_WINDOW (per process): whoever
holds a session must not be able to guess the password behind it at argon2's pace."""
PASSWORD_WINDOW = 15 * 60.0



class Sessions:
    """Revokes tokens and closes the connections they opened, on every process."""

    def __init__(self, store: Store, hub: Hub) -> None:
        self.store = store
        self.hub = hub
        self.tries: dict[str, tuple[int, float]] = {}  # player -> (tries, since)

    def take_try(self, key: str) -> None:
        """Count one password check of a session (`key`) before it is made (no await: two
        at once both count), or refuse it with 429 once the window's tries are spent."""
        now = time.monotonic()
        if len(self.tries) > 10_000:  # bounded: the spent windows go first
            self.tries = {k: v for k, v in self.tries.items() if now - v[1] < PASSWORD_WINDOW}
        count, since = self.tries.get(key, (0, now))
        if now - since >= PASSWORD_WINDOW:
            count, since = 0, now
        if count >= PASSWORD_TRIES:
            raise LobbyError(429, "too_many_attempts", "too many wrong passwords: try again "
                             "later", retry_after=int(since + PASSWORD_WINDOW - now) + 1)
        self.tries[key] = (count + 1, since)

    async def revoke(self, player_id: str, family: str | None = None,
                     keep: str | None = None, ban: BanFacts | None = None,
                     deleted: bool = False) -> None:
        """End one sign-in (`family`), every one but `keep`, or (neither) all of them;
        for a ban (moderation.py) the connections hear its end and reason before they close
        (D53), the player's seats also go, on every process, and so do the program seats
        they made: a program answers for its maker (D41), or a banned host would play on
        through it. A deleted account (`deleted`) loses its seats as a ban's (D53).

        A ban keeps the player's own tokens (the store refuses them while it holds), so
        that its lift gives the same player back to the same browser (D36, issue 38)."""
        if ban is None:
            await self.store.drop_tokens(player_id, family, keep)
        if ban is not None:
            revoked = Revocation.of_ban(player_id, ban)
        else:
            revoked = Revocation(player=player_id, family=family, keep=keep, deleted=deleted)
        await self.hub.revoked(revoked)
        if ban is not None:
            for program in await self.store.programs_of(player_id):
                await self.store.drop_tokens(program)
                await self.hub.revoked(Revocation.of_ban(program, ban))
