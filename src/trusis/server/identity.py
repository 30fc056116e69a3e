"""Who is asking: guests from a name, in a signed cookie; programs with a bearer token.

A guest is a player row with no password (registered accounts, a later issue,
add one). The cookie holds a session token signed with the server's secret;
tokens are stored only as hashes (store.token_hash). A program sends
`Authorization: Bearer <token>`; a seat token also says which seat it plays.
"""

from __future__ import annotations

from collections import OrderedDict

from fastapi import Request, Response
from itsdangerous import BadSignature, URLSafeSerializer
from starlette.requests import HTTPConnection

from trusis.server.errors import LobbyError
from trusis.server.names import player_name
from trusis.server.store import Player, Store, TokenOwner

COOKIE = "trusis_session"
NAME_LIMIT = 32
CACHE = 10_000


def guest_name(raw: object) -> str:
    """A name cleaned as chat is (D9), 1 to 32 characters, visible, not a seat's label
    (D20, names.py)."""
    return player_name(raw)


class Identity:
    """Signs players in and finds them again, with a small cache of known tokens."""

    def __init__(self, store: Store, secret: str, secure: bool = False) -> None:
        self.store = store
        self.signer = URLSafeSerializer(secret, salt="trusis-session")
        self.secure = secure
        self.cache: OrderedDict[str, TokenOwner | None] = OrderedDict()

    async def new_guest(self, name: str, response: Response) -> tuple[Player, str]:
        """A new guest, signed in by cookie (for the browser) and by a bearer token
        (returned, for programs). A new session each time: nothing fixed earlier survives."""
        player = await self.store.new_player(guest_name(name), "guest")
        session = await self.store.new_token(player.id, "session")
        bearer = await self.store.new_token(player.id, "bearer")
        response.set_cookie(COOKIE, self.signer.dumps(session), httponly=True, samesite="lax",
                            secure=self.secure, max_age=400 * 24 * 3600, path="/")
        return player, bearer

    async def renew(self, player: Player, connection: HTTPConnection,
                    response: Response) -> None:
        """A new session for `player` (at login or registration); the request's old
        session token is deleted, so a session fixed before login is worth nothing."""
        old = self._cookie_token(connection)
        if old is not None:
            await self.store.drop_token(old)
            self.cache.pop(old, None)
        session = await self.store.new_token(player.id, "session")
        response.set_cookie(COOKIE, self.signer.dumps(session), httponly=True, samesite="lax",
                            secure=self.secure, max_age=400 * 24 * 3600, path="/")

    def forget(self) -> None:
        """Drop the cache of known tokens (after an account was deleted or renamed)."""
        self.cache.clear()

    async def sign_out(self, connection: HTTPConnection, response: Response) -> None:
        token = self._cookie_token(connection)
        if token is not None:
            await self.store.drop_token(token)
            self.cache.pop(token, None)
        response.delete_cookie(COOKIE, path="/")

    def _cookie_token(self, connection: HTTPConnection) -> str | None:
        raw = connection.cookies.get(COOKIE)
        if not raw:
            return None
        try:
            token = self.signer.loads(raw)
        except BadSignature:
            return None
        return token if isinstance(token, str) else None

    def _bearer(self, connection: HTTPConnection) -> str | None:
        header = connection.headers.get("authorization", "")
        if header[:7].lower() == "bearer ":
            return header[7:].strip() or None
        token = connection.query_params.get("token")
        return token or None

    async def owner(self, connection: HTTPConnection) -> TokenOwner | None:
        """The player behind the request's bearer token or session cookie, if any."""
        token = self._bearer(connection) or self._cookie_token(connection)
        if token is None or len(token) > 200:
            return None
        if token in self.cache:
            self.cache.move_to_end(token)
            return self.cache[token]
        owner = await self.store.token_owner(token)
        self.cache[token] = owner
        while len(self.cache) > CACHE:
            self.cache.popitem(last=False)
        return owner

    async def player(self, request: Request) -> Player:
        """The signed-in player, or a 401 that says how to sign in."""
        owner = await self.owner(request)
        if owner is None:
            raise LobbyError(401, "not_signed_in", "choose a name first (POST /api/guest)")
        return owner.player
