"""Who is asking: guests from a name, in a signed cookie; programs with a bearer token.

A guest is a player row with no password (a registered account has one). The
cookie holds a session token signed with the server's secret; tokens are stored
only as hashes (store.token_hash), each in a *family*: the tokens one sign-in
handed out, which a logout ends together. A program sends `Authorization:
Bearer <token>` (or, on a WebSocket from a client that cannot set headers, the
subprotocol `trusis.bearer.<token>`): never in a URL, which logs keep. A seat
token also says which seat it plays, and plays it only (`seat_token_refusal`).

Every request asks the database (about 2 ms here; docs/deploy.md): no cache, so
a logout, a password change or a deleted account counts at once on every process.
"""

from __future__ import annotations

import re
import time

from fastapi import Request, Response
from itsdangerous import BadSignature, URLSafeSerializer
from starlette.requests import HTTPConnection

from trusis.server.data.store import Player, Store, TokenOwner, new_id
from trusis.server.errors import LobbyError
from trusis.server.moderation import sanctions
from trusis.server.players.names import player_name

REMATCH_ANSWER = re.compile(r"/api/tables/[A-Za-z0-9_-]{1,64}/rematch/(?:accept|decline)")
"""What a seat token may answer besides its own table: the rematch of that table (D19)."""
COOKIE = "trusis_session"
NAME_LIMIT = 32
SUBPROTOCOL = "trusis"
"""What the server answers a WebSocket that offers it (with a token: `BEARER_PROTOCOL`)."""
BEARER_PROTOCOL = "trusis.bearer."
TOKEN_DAYS = 30.0
"""How long a session or a token signs in (`--token-days`; docs/deploy.md)."""
_OWNER = "trusis.owner"  # the request's owner, looked up once per request


def guest_name(raw: object) -> str:
    """A name cleaned as chat is (D9), 1 to 32 characters, visible, not a seat's label
    (D20, names.py)."""
    return player_name(raw)


def seat_token_refusal() -> LobbyError:
    return LobbyError(403, "seat_token", "a program's seat token plays its one seat and "
                      "reads its table; it can do nothing else")


def offered_protocols(connection: HTTPConnection) -> list[str]:
    return [p.strip() for p in connection.headers.get("sec-websocket-protocol", "").split(",")
            if p.strip()]


class Identity:
    """Signs players in and finds them again (tokens expire after `token_days`)."""

    def __init__(self, store: Store, secret: str, secure: bool = False,
                 token_days: float = TOKEN_DAYS) -> None:
        self.store = store
        self.signer = URLSafeSerializer(secret, salt="trusis-session")
        self.secure = secure
        self.lifetime = token_days * 24 * 3600.0

    def _set_cookie(self, response: Response, session: str) -> None:
        response.set_cookie(COOKIE, self.signer.dumps(session), httponly=True, samesite="lax",
                            secure=self.secure, max_age=int(self.lifetime), path="/")

    async def new_guest(self, name: str, response: Response) -> tuple[Player, str]:
        """A new guest, signed in by cookie (for the browser) and by a bearer token
        (returned, for programs): one session, ended together by a logout."""
        player = await self.store.new_player(guest_name(name), "guest")
        family = new_id(16)
        session = await self.store.new_token(player.id, "session", family=family)
        bearer = await self.store.new_token(player.id, "bearer", family=family)
        self._set_cookie(response, session)
        return player, bearer

    async def renew(self, player: Player, connection: HTTPConnection,
                    response: Response) -> None:
        """A new session for `player` (at login or registration). The session the request
        came with ends, all its tokens (a guest's bearer token too): a session fixed
        before login, or a token handed out before registering, is worth nothing after."""
        old = await self.owner(connection)
        if old is not None:
            await self.store.drop_tokens(old.player.id, family=old.family)
        self._set_cookie(response, await self.store.new_token(player.id, "session"))

    async def sign_out(self, connection: HTTPConnection, response: Response) -> TokenOwner | None:
        """End the request's session (every token of its sign-in); who it was."""
        owner = await self.owner(connection)
        if owner is not None:
            await self.store.drop_tokens(owner.player.id, family=owner.family)
        response.delete_cookie(COOKIE, path="/")
        return owner

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
        if connection.scope["type"] != "websocket":
            return None  # the subprotocol is a WebSocket's way only
        for protocol in offered_protocols(connection):
            if protocol.startswith(BEARER_PROTOCOL):
                return protocol[len(BEARER_PROTOCOL):] or None
        return None

    def presented_token(self, connection: HTTPConnection) -> str | None:
        """The token the request came with (bearer first, then the cookie's), if any."""
        return self._bearer(connection) or self._cookie_token(connection)

    async def owner(self, connection: HTTPConnection) -> TokenOwner | None:
        """The player behind the request's bearer token or session cookie, if any (asked
        of the database once per request)."""
        if _OWNER in connection.scope:
            found: TokenOwner | None = connection.scope[_OWNER]
            return found
        token = self._bearer(connection) or self._cookie_token(connection)
        owner = None
        if token is not None and len(token) <= 200:
            owner = await self.store.token_owner(token, time.time() - self.lifetime)
        connection.scope[_OWNER] = owner
        return owner

    async def recheck(self, connection: HTTPConnection) -> TokenOwner | None:
        """The owner asked of the database again: a WebSocket's token may have been
        revoked between its upgrade and its joining the room (api/websocket.py)."""
        connection.scope.pop(_OWNER, None)
        return await self.owner(connection)

    async def player(self, request: Request) -> Player:
        """The signed-in player, or a 401 that says how to sign in."""
        owner = await self.owner(request)
        if owner is None:
            banned = await self.banned(request)
            if banned is not None:  # told why, not asked for a name (D53)
                raise sanctions.banned_error(banned)
            raise LobbyError(401, "not_signed_in", "choose a name first (POST /api/guest)")
        return owner.player

    async def banned(self, connection: HTTPConnection) -> sanctions.BanFacts | None:
        """The ban of the player whose session the request still carries, if one ended it:
        only a request that came with a token nobody owns pays this lookup."""
        token = self.presented_token(connection)
        if token is None:
            return None
        return await sanctions.ban_of(self.store, token)

    async def check_scope(self, request: HTTPConnection) -> None:
        """A program's seat token plays its seat (the WebSocket, api/websocket.py) and reads
        its own table (`GET /api/tables/{its id}`) and, once the game ended, its seat's copy
        of the record (`…/record`: its own whispers, no one else's); every other request it
        makes is refused, so a token handed to a program never becomes a host, a player
        elsewhere or an account."""
        owner = await self.owner(request)  # no credential: no lookup
        if owner is None or owner.table_id is None:
            return
        method, path = request.scope.get("method"), request.url.path
        if method == "GET" and path in (f"/api/tables/{owner.table_id}",
                                        f"/api/tables/{owner.table_id}/record"):
            return  # its table, and once it ended its seat's copy of the record
        if method == "POST" and REMATCH_ANSWER.fullmatch(path):
            return  # its own table's rematch only: api/rematch.py checks the link
        raise seat_token_refusal()
