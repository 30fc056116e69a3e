"""The WebSocket endpoint: one connection per client, protocol 1 (docs/protocol.md).

The order of checks is the order of trust: the Origin (a browser tab of another
site must not play with your cookie), the identity (cookie or token), the
table (a private one needs its invite), then `hello`. Which seat a connection
plays comes from the identity alone; no message can name a seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from fastapi import WebSocket, WebSocketDisconnect

from trusis.server.api.guard import host_allowed, same_origin
from trusis.server.api.outage import refuse_socket
from trusis.server.connections.clients import Client
from trusis.server.connections.frames import (
    ErrorFrame,
    FrameBytes,
    PongFrame,
    WelcomeFrame,
    You,
    serialise,
)
from trusis.server.connections.protocol import PROTOCOL, Act, BadFrame, Hello, Ping, parse
from trusis.server.connections.transport import direct_frames
from trusis.server.data import staff
from trusis.server.data.reads import mark_read
from trusis.server.data.store import TokenOwner
from trusis.server.errors import LobbyError
from trusis.server.limits.address import client_address
from trusis.server.monitoring import logs
from trusis.server.players.identity import SUBPROTOCOL, Identity, offered_protocols
from trusis.server.tables.closing import CLOSED, CLOSED_CODE
from trusis.server.tables.commands import numbered
from trusis.server.tables.hub import Hub
from trusis.server.tables.player_connections import BANNED, SIGNED_OUT, banned_frame
from trusis.server.tables.quota import quota
from trusis.server.tables.room import Room
from trusis.server.tables.seats.barred import REMOVED, REMOVED_CODE, turned_away
from trusis.server.tables.seats.handover import returnable

log = logging.getLogger("trusis.server")
PATH = "/ws/tables/{table_id}"
"""The endpoint's path: the app adds `play` there as a plain Starlette route (app.py)."""

HELLO_SECONDS = 10.0
MALFORMED_LIMIT = 20


def origin_allowed(websocket: WebSocket, extra: tuple[str, ...]) -> bool:
    """Programs send no Origin; a browser's must be this server's own (its scheme
    too: an http page may not play on an https server), or configured."""
    return same_origin(websocket, extra)


def seat_for(room: Room, player_id: str, token_seat: int | None) -> int | None:
    """The seat this identity plays at `room` (None: a spectator). A seat a bot plays for
    its player stays theirs (D29): they watch while the game runs, and see its end as
    their seat saw it (D32, D44: the game is theirs, won or lost)."""
    over = room.status == "finished"
    if token_seat is not None:
        seat = room.lobby.seats.get(token_seat)
        return token_seat if seat is not None and seat.player_id == player_id \
            and (seat.kind != "bot" or over) else None
    if over:
        mine = room.lobby.owned_by(player_id)
        return mine[0] if mine else None
    return room.lobby.seat_of(player_id)


def subprotocol(websocket: WebSocket) -> str | None:
    """`trusis` when the client offers it (a client that carries its token as the
    subprotocol `trusis.bearer.<token>` offers both: the token is never echoed back)."""
    return SUBPROTOCOL if SUBPROTOCOL in offered_protocols(websocket) else None


async def _turn_away(websocket: WebSocket, code: int, reason: str,
                     told: FrameBytes | None = None) -> None:
    """Close with one of the documented codes. A close before `accept` would reach the
    client as a bare HTTP 403 rejection of the upgrade, which names no reason; so the
    upgrade is accepted and closed at once, before anything else is read (after `told`,
    the one frame a closing code may need: a ban's end and reason)."""
    await websocket.accept(subprotocol(websocket))
    if told is not None:
        with contextlib.suppress(Exception):
            await websocket.send_text(told.decode("utf-8"))
    await websocket.close(code, reason)


async def play(websocket: WebSocket) -> None:
    """`PATH`, added on the app's own router as a plain Starlette route. FastAPI's route
    (its dependency machinery: two exit stacks and their frames) and an included router's
    layers would each stay suspended with every connection for its whole life, and serve it
    nothing (docs/architecture.md, "Capacity")."""
    table_id: str = websocket.path_params["table_id"]
    app = websocket.app
    hub: Hub = app.state.hub
    identity: Identity = app.state.identity
    if not origin_allowed(websocket, app.state.settings.origins):
        await _turn_away(websocket, 4403, "origin not allowed")
        return
    if not host_allowed(websocket.headers.get("host"), app.state.hosts):  # DNS rebinding
        await _turn_away(websocket, 4403, "host not allowed")
        return
    owner = await identity.owner(websocket)
    if owner is None:
        banned = await identity.banned(websocket)
        if banned is not None:  # the session a ban ended: told so, not asked for a name
            await _turn_away(websocket, BANNED, "banned",
                             banned_frame(banned))
            return
        await _turn_away(websocket, 4401, "not signed in")
        return
    if owner.table_id is not None and owner.table_id != table_id:
        await _turn_away(websocket, 4403, "this token plays another table")
        return
    try:
        room = await hub.open_to(table_id, owner.player.id, websocket.query_params.get("invite"))
    except LobbyError as err:
        if err.status == 410:  # closed before the start: by its host (D51), or expired
            await _turn_away(websocket, CLOSED_CODE, err.code)
        elif err.code == REMOVED:  # D55: the host removed them, and it has not started
            await _turn_away(websocket, REMOVED_CODE, REMOVED)
        elif err.status == 503:  # this process is cut off (cluster/aside.py): another serves
            await refuse_socket(websocket, err)
        else:
            await _turn_away(websocket, 4404, "no such table")
        return
    counts = quota(websocket)
    address = client_address(websocket)
    refused = counts.socket_refusal(table_id, owner.player.id, address)
    if refused is not None:
        await _turn_away(websocket, 4429, refused)
        return
    back = returnable(room, owner.player.id)  # a program's token: for its own seat only
    returned = False
    if back is not None and owner.seat in (None, back):
        with contextlib.suppress(LobbyError):  # D29: back in your seat, before `welcome`
            returned = await hub.return_seat(room, owner.player) == back
    try:
        await _session(websocket, hub, room, owner, returned)
    finally:
        counts.socket_closed(table_id, owner.player.id, address)



async def _session(websocket: WebSocket, hub: Hub, room: Room, owner: TokenOwner,
                   returned: bool = False) -> None:
    """One connection, from its `hello` to its close (`returned`: it took its seat back
    just now, D29, and `welcome` says so)."""
    app = websocket.app
    await websocket.accept(subprotocol(websocket))
    try:
        raw = await asyncio.wait_for(websocket.receive_text(), HELLO_SECONDS)
        hello = parse(raw)
    except TimeoutError:
        await websocket.close(4408, "no hello")
        return
    except (BadFrame, WebSocketDisconnect, KeyError, RuntimeError):
        with contextlib.suppress(Exception):
            await websocket.close(4400, "the first message must be a hello")
        return
    if not isinstance(hello, Hello) or hello.protocol != PROTOCOL:
        await websocket.close(4400, f"the first message must be a hello of protocol {PROTOCOL}")
        return
    last_seq = hello.last_seq
    client = Client(websocket, owner.player.id, owner.player.name,
                    seat_for(room, owner.player.id, owner.seat), hello.lang,
                    family=owner.family, direct=direct_frames(websocket.scope),
                    staff=bool(await staff.roles_of(hub.store.engine, owner.player.id)))
    logs.seat.set(client.seat)  # every line logged for this connection names its seat
    del raw, hello  # this frame lives as long as the connection: it keeps nothing it read
    try:
        # Under the lock, never between an action's apply and its commit (host.py): a
        # snapshot taken there would show what a crash may undo. Once `welcome` is out,
        # the room knows the client.
        async with room.lock:
            if turned_away(room, client.player_id):  # removed while it waited (D55)
                client.shut(REMOVED_CODE, REMOVED)  # nothing of the table before it
            else:
                client.send(_welcome(room, client, owner, returned))
                room.join(client)
                room.catch_up(client, last_seq)
            if room.status == CLOSED:  # closed by its host while this one waited (D51)
                client.shut(CLOSED_CODE, "table_closed")
        identity: Identity = app.state.identity
        if await identity.recheck(websocket) is None:  # revoked while it waited for the room
            banned = await identity.banned(websocket)
            if banned is not None:
                client.send(banned_frame(banned))
            client.shut(SIGNED_OUT if banned is None else BANNED,
                        "signed out" if banned is None else "banned")
        await _serve(websocket, hub, room, client, app.state.settings.max_frame)
    finally:
        room.part(client)
        await client.stop()
        await _read_until(hub, room, client)
        logs.seat.set(client.seat)  # the seat it played last (its player's, room.reseat)
        log.info("connection closed (%s)", "spectator" if client.seat is None else "seat")


async def _read_until(hub: Hub, room: Room, client: Client) -> None:
    """A seat's page closed: its player has read the game that far ("Your games" counts
    the lines after it, yourgames.py). A failed write only leaves lines counted unread."""
    if client.seat is None or room.host is None or not client.seq:
        return
    try:
        await mark_read(hub.store, room.id, client.player_id, client.seq)
    except Exception:
        log.warning("table %s: how far a page had read was not kept", room.id, exc_info=True)


def _welcome(room: Room, client: Client, owner: TokenOwner, returned: bool) -> FrameBytes:
    """The `welcome` frame (docs/protocol.md), built where no frame that lives as long as
    the connection keeps its seats' dicts."""
    welcome = WelcomeFrame(type="welcome", protocol=PROTOCOL, seat=client.seat,
                           you=You(id=owner.player.id, name=owner.player.name),
                           table=room.info(owner.player.id))
    if returned and client.seat is not None:
        welcome["returned"] = True
    return serialise(welcome)


async def _serve(websocket: WebSocket, hub: Hub, room: Room, client: Client,
                 max_frame: int) -> None:
    """Read and answer the connection's frames, one a turn of the event loop.

    The protocol queues a piece of what the client sent at a time (inflow.py: hundreds of
    small frames), a frame taken from a queue that holds one is taken at once, and a ping
    or a refused command is answered without waiting on anything: without a turn given
    back after each frame, one connection's burst held the loop for every other one until
    all of it was answered (tests/test_server_fairness.py)."""
    malformed = 0
    while not client.closed:
        await asyncio.sleep(0)  # one frame a turn: see `_serve`'s docstring
        try:
            raw = await websocket.receive_text()
        except (WebSocketDisconnect, RuntimeError):
            return
        except KeyError:  # a binary frame
            raw = ""
        if len(raw) > max_frame:  # closes, as every goodbye, within a bounded time
            client.shut(1009, f"frames are limited to {max_frame} bytes")
            return
        try:
            message = parse(raw)
        except BadFrame as err:
            malformed += 1
            error = ErrorFrame(type="error", code="bad_message", field=err.field,
                               message=err.message)
            if err.id:
                error["id"] = err.id
            client.send(serialise(error))
            if malformed >= MALFORMED_LIMIT:
                client.shut(4429, "too many malformed messages")
                return
            continue
        if isinstance(message, Ping):
            client.send(serialise(PongFrame(type="pong", now=time.time())))
        elif isinstance(message, Act):
            await _act(hub, room, client, message)
        else:
            client.send(serialise(ErrorFrame(type="error", code="bad_message", field="type",
                                             message="hello is sent once, first")))


async def _act(hub: Hub, room: Room, client: Client, message: Act) -> None:
    """One command, one answer (commands.py), run by the game's owner — this process or
    another (cluster/node.py). The `ack` leaves once this connection has been sent the
    action's events: `seq` is its stream number after them."""
    logs.seat.set(client.seat)  # it follows its player's seat (room.reseat): lines name it
    answer = await hub.command(room, client.player_id, client.seat, message.id,
                               message.action, client.lang)
    if answer.count is not None:
        await hub.reached(room, answer.count)
    client.send(numbered(room, client.player_id, answer, client.seq).frame())
