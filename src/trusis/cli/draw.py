"""`trusis admin draw`: end a stuck game as a draw (D38), with or without a server running.

With no server running, the game is ended on the database itself (server/stuck.py
`end_in_store`). With a server running, its writer must do it: `--server URL --as
ADMIN` signs the admin account in with a bearer token made for this one request
(the command can, as it holds the database), asks the server's admin route, and
deletes the token, so the draw reaches every connected player at once.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from trusis.server.data.staff import roles_of
from trusis.server.data.store import Player, Store, new_id
from trusis.server.errors import LobbyError

TIMEOUT_SECONDS = 30.0


def _post(url: str, token: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), method="POST",
                                     headers={"Authorization": f"Bearer {token}",
                                              "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
            return int(answer.status), json.loads(answer.read())
    except urllib.error.HTTPError as err:
        try:
            return int(err.code), json.loads(err.read())
        except ValueError:
            return int(err.code), {"code": "server_error", "params": {},
                                   "message": f"the server answered HTTP {err.code}"}


async def end_through_server(store: Store, server: str, admin: Player, table_id: str,
                             reason: str) -> dict[str, Any]:
    """Ask the running server at `server` to end the game, signed in as `admin`."""
    if "admin" not in await roles_of(store.engine, admin.id):
        raise LobbyError(403, "not_admin", f"{admin.name!r} does not hold the role admin: "
                         "grant it first (`trusis admin grant NAME admin`)", role="admin")
    family = "cli-" + new_id(12)
    token = await store.new_token(admin.id, "bearer", family=family)
    url = (server.rstrip("/") + "/api/admin/tables/"
           + urllib.parse.quote(table_id, safe="") + "/draw")
    try:
        status, answer = await asyncio.to_thread(_post, url, token, {"reason": reason})
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason_text = getattr(err, "reason", err)
        raise LobbyError(503, "server_unreachable", f"--server: cannot reach {server}: "
                         f"{reason_text}") from None
    finally:
        await store.drop_tokens(admin.id, family=family)
    if status != 200:
        raise LobbyError(status, str(answer.get("code", "server_error")),
                         str(answer.get("message", "")), **dict(answer.get("params") or {}))
    return answer
