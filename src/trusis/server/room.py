"""One table of the server: its lobby, its connections, and once started its game's host.

A room holds what the lobby shows of a table (`lobby`, `status`) and the clients
connected to it here, and builds every byte they are sent. Its game, once
started, is held by a `GameHost` (host.py), the game's single writer, which
delivers through the room (the room is its `Delivery`): the room never applies
an action itself. One lock (`lock`) serialises the table's changes, the lobby's
before the start and the host's (which is handed the same lock) after.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from trusis.rules.views import view_json
from trusis.server.answers import AnswerBook
from trusis.server.clients import Client
from trusis.server.commits import Fence
from trusis.server.host import GameHost
from trusis.server.lobby_state import LobbyState
from trusis.server.peers import LocalPeers, Peers
from trusis.server.protocol import dumps
from trusis.server.ratelimit import Budgets
from trusis.server.seat import RoomStatus
from trusis.server.store import Store
from trusis.table.table import Table

log = logging.getLogger("trusis.server")

EVENTS_KEPT_FOR_CATCH_UP = 2000
"""A client further behind than this gets a fresh snapshot instead of the events."""
TABLE_COALESCE_SECONDS = 0.1  # joins and parts this close share one `table` message
WAITING_CHAT_KEPT = 50
"""The waiting room's last chat lines a room keeps (in memory only) for who connects (D45)."""


@dataclass(slots=True)
class Push:
    """One delivery to the clients of a table: what is the same for all of them is
    serialised once — each event but its number, each seat's view, the clock."""

    clock: bytes
    events: dict[int, bytes] = field(default_factory=dict)  # by index in the table's log
    views: dict[int | None, bytes] = field(default_factory=dict)  # by seat (None: spectator)


@dataclass
class Room:
    """A table as this process holds it: its lobby (`lobby`), its connections, and the
    host of its game once started."""

    id: str
    name: str
    lobby: LobbyState
    """The host, options, invite and who holds each seat (lobby_state.py)."""
    store: Store
    pace: float = 1.0
    status: RoomStatus = "open"
    created_at: float = field(default_factory=time.time)
    host: GameHost | None = None
    """The game, once started (or, following it, once read back): None in the lobby."""
    clients: set[Client] = field(default_factory=set)
    away: dict[int, float] = field(default_factory=dict)
    """The seats whose grace period runs (R52), since when: emptied as each is handed on."""
    absent: dict[int, float] = field(default_factory=dict)
    """Since when each seat's player has had no connection anywhere, kept past the grace
    period until the player connects or the seat changes hands: how long a seat must wait
    before the host may give it to a person (D52). In memory only: after a restart or a
    takeover it counts from then (restore.py `take_charge`)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """The table's one lock: the lobby's changes, then the host's (host.py)."""
    answers: AnswerBook = field(default_factory=AnswerBook)
    """Each command's one answer (commands.py), from the lobby on."""
    on_finished: Callable[[Room], Awaitable[None]] | None = None
    peers: Peers = field(default_factory=LocalPeers)
    """The other processes that hold this table (peers.py): none, for a single process."""
    table_due: asyncio.TimerHandle | None = None  # a coalesced `table` message (table_soon)
    programs: int = 0
    """Program seats handed out here (seating.py bounds them: `program_seats_per_table`)."""
    budgets: Budgets = field(default_factory=Budgets)
    """Each player's rate limits at this table, from the waiting room on (the host's too)."""
    waiting_chat: deque[dict[str, Any]] = field(
        default_factory=lambda: deque(maxlen=WAITING_CHAT_KEPT))
    """The waiting room's last public lines (D45): never stored, never in the record."""
    waiting_said: int = 0
    """How many lines were ever said there: a follower (cluster/replica.py) sends its
    clients those it had not (the writer tells the last lines with the table's facts)."""
    removed: set[str] = field(default_factory=set)
    """The people its host removed from the waiting room whom this process heard of (D34,
    D55: barred.py): a connection of theirs that read the database before the removal is
    turned away as it joins. In memory only: the database says it to every later one."""

    @property
    def owned(self) -> bool:
        """This process applies, stores and times the game; otherwise it follows it."""
        return self.peers.writes

    @property
    def fence(self) -> Fence:
        """What every store of this process's writes is checked by (cluster/lease.py)."""
        return self.peers.fence

    # -- lobby facts ----------------------------------------------------------

    def connected(self, seat: int) -> bool:
        """Connected here, or (several processes) on any other process."""
        return any(c.seat == seat for c in self.clients) or self.peers.connected(seat)

    def spectators(self) -> int:
        return self.peers.spectators(sum(1 for c in self.clients if c.seat is None))

    def info(self, player_id: str | None = None) -> dict[str, Any]:
        """The table as the lobby shows it to `player_id` (the invite for its host only)."""
        lobby, table = self.lobby, self.host.table if self.host else None
        seats = lobby.entries(player_id, table, self.status == "finished", self.connected)
        data: dict[str, Any] = {
            "id": self.id, "name": self.name, "status": self.status,
            "host": {"id": lobby.host_id, "name": lobby.host_name},
            "you_host": player_id == lobby.host_id,
            "options": lobby.options.public(), "roles": lobby.options.composition(),
            "seats": seats, "taken": len(lobby.seats), "created_at": self.created_at,
            "spectators": self.spectators(),
            "deadline": self.host.deadline if self.host else None,
        }
        if player_id == lobby.host_id:
            data["invite"] = lobby.invite
        if lobby.rematch is not None:
            data["rematch"] = lobby.rematch
        if lobby.previous is not None:
            data["previous"] = lobby.previous
        if table is not None and not table.state.running:
            data["winner"] = table.state.winner
        return data

    # -- connections ----------------------------------------------------------

    def join(self, client: Client) -> None:
        self.clients.add(client)
        if client.seat is not None:
            self.here(client.seat)
        client.send_table(dumps({"type": "table", "table": self.info(client.player_id)}))
        if self.waiting_chat:  # what was said before the start, also once it has started
            client.send(dumps({"type": "waiting_chat", "lines": list(self.waiting_chat)}))
        self.table_soon()  # the others: one message for every join close together
        self.peers.clients_changed()

    def part(self, client: Client) -> None:
        self.clients.discard(client)
        seat = client.seat
        if seat is not None:
            self.gone(seat)
        self.table_soon()
        self.peers.clients_changed()

    def gone(self, seat: int) -> None:
        """A seat's last connection (anywhere) went: the grace clock starts (R52), and the
        absence a hand-over to a person waits for (D52)."""
        if self.owned and self.status == "running" and not self.connected(seat):
            now = time.time()
            self.away.setdefault(seat, now)  # shown as disconnected
            self.absent.setdefault(seat, now)
            if self.host is not None:
                self.host.wake.set()

    def here(self, seat: int) -> None:
        """A connection plays the seat (here, or on another process): its player is back,
        and neither its grace period (R52) nor its absence (D52) runs."""
        self.away.pop(seat, None)
        self.absent.pop(seat, None)

    def not_here(self, seat: int, now: float) -> None:
        """`seat` has no connection from `now` (at the start, after a hand-over, or a
        restart): its grace period (R52) and its absence (D52) run from then."""
        self.away[seat] = now
        self.absent[seat] = now

    def table_soon(self) -> None:
        """One `table` message for the joins and parts within TABLE_COALESCE_SECONDS: one
        per join, to every client, would make n joins cost n² messages."""
        if self.table_due is None and self.status != "closed":  # nobody to tell (D51)
            self.table_due = asyncio.get_running_loop().call_later(
                TABLE_COALESCE_SECONDS, self._table_due)

    def _table_due(self) -> None:
        self.table_due = None
        self.broadcast_table()

    def broadcast_table(self) -> None:
        for client in list(self.clients):
            client.send_table(dumps({"type": "table", "table": self.info(client.player_id)}))
        self.peers.table_changed()  # followers show the same lobby facts

    def waiting_say(self, seat: int, text: str) -> None:
        """A seat's public line in the waiting room (D45), cleaned and checked already
        (commands.py): kept among the last WAITING_CHAT_KEPT and sent to every client."""
        held = self.lobby.seats.get(seat)
        line = {"seat": seat, "name": held.name if held is not None else None,
                "text": text, "t": time.time()}
        self.waiting_chat.append(line)
        self.waiting_said += 1
        self._send_waiting([line])
        self.peers.table_changed()  # the other processes' connections read it too

    def follow_waiting(self, lines: list[dict[str, Any]], said: int) -> None:
        """The writer's last waiting-room lines (a follower's copy): the new ones go out."""
        new = min(said - self.waiting_said, len(lines))
        if new <= 0:
            return
        self.waiting_chat.extend(lines[-new:])
        self.waiting_said = said
        self._send_waiting(lines[-new:])

    def _send_waiting(self, lines: list[dict[str, Any]]) -> None:
        frame = dumps({"type": "waiting_chat", "lines": lines})
        for client in list(self.clients):
            client.send(frame)

    def clock(self) -> dict[str, Any]:
        return {"now": time.time(), "deadline": self.host.deadline if self.host else None}

    def catch_up(self, client: Client, last_seq: int | None) -> None:
        """After `hello`: the events missed since `last_seq`, or a fresh snapshot."""
        table = self.host.table if self.host else None
        if table is None:
            return
        length = table.stream_length(client.seat)
        if client.seat is None and client.player_id in self.lobby.former:
            last_seq = None  # its number counted in the seat it had: it means nothing here
        if last_seq is None or last_seq > length or length - last_seq > EVENTS_KEPT_FOR_CATCH_UP:
            recent = table.events_after(client.seat, max(0, length - EVENTS_KEPT_FOR_CATCH_UP))
            client.seq = length
            client.send(dumps({"type": "snapshot", "seq": length,
                               "view": table.snapshot(client.seat), "events": recent,
                               "clock": self.clock()}))
            return
        client.seq = last_seq
        self.push_to(client)
        if client.seq == last_seq:  # nothing missed: the view still starts the page
            client.send(dumps({"type": "events", "seq": length, "events": [],
                               "view": table.snapshot(client.seat, chat=False),
                               "clock": self.clock()}))

    def push_to(self, client: Client, push: Push | None = None) -> None:
        """Send `client` what its seat may see since its stream number (`push`: what is
        serialised once for every client an action is sent to)."""
        table = self.host.table if self.host else None
        if table is None:
            return
        push = self._push() if push is None else push
        seq, events = table.events_json(client.seat, client.seq, push.events)
        if not events:
            return
        client.seq = seq
        # The engine's view itself (views.py), serialised at once — its shared fields once
        # for every seat — and never kept. A client that is behind gets it folded into the
        # message still waiting (clients.py).
        view = push.views.get(client.seat)
        if view is None:
            view = push.views[client.seat] = view_json(table.state, client.seat, chat=False)
        client.send_events(seq, events, view, push.clock)

    def reseat(self, everyone: bool = False) -> None:
        """After seats change hands: each client plays the seat its player holds now (or
        watches), and starts again from a snapshot when that changed (`everyone`: every
        client, as at the start). Seats always come from the lobby's seats, never from what
        a connection held before: a client must not keep a number that is someone else's."""
        for client in list(self.clients):
            seat = self.lobby.seat_of(client.player_id)
            if everyone or seat != client.seat:
                client.seat = seat
                self.catch_up(client, None)

    def push(self) -> None:
        push = self._push()
        for client in list(self.clients):
            self.push_to(client, push)

    def _push(self) -> Push:
        """A delivery starting now (its clock)."""
        return Push(orjson.dumps(self.clock()))

    # -- what the game's host delivers through (host.py `Delivery`) ---------------

    def play(self, table: Table, deadline: float | None) -> GameHost:
        """The started game, held by this room from now on (a follower's copy read
        again keeps its host, with the new table and deadline)."""
        if self.host is None:
            self.host = GameHost(self.id, table, self.store, self.lobby, self, self.lock,
                                 budgets=self.budgets)
        else:
            self.host.replace_table(table)
        self.host.deadline = deadline
        return self.host

    def left_on_purpose(self, seat: int) -> None:
        self.lobby.left_on_purpose(seat)

    async def finished(self) -> None:
        """The game's end is stored: the table is finished, and the process's end hook
        (hub.py `finished_game`) keeps it in its players' history."""
        self.status = "finished"
        if self.on_finished is not None:
            try:
                await self.on_finished(self)
            except Exception:
                log.exception("table %s: the finished game's history was not kept", self.id)

    async def lose(self) -> None:
        """The lease is gone (under the lock), found by a lobby write or the lease's
        renewal: the game's host, if any, stops writing, and the room follows."""
        if self.host is not None:
            await self.host.lose()
        else:
            await self.lost()

    async def lost(self) -> None:
        """The room's part of losing the lease: the stored table is the table and it
        now follows the owner (its peers read the table back)."""
        self.away.clear()
        self.absent.clear()  # its new owner counts it from when it took over (D52)
        self.lobby.forget_claims()  # the seats may change hands elsewhere (D18)
        await self.peers.lost()
        # R53, D18: the seats read back may have changed hands meanwhile; every client
        # plays the seat its player holds now, and reads what it missed (as a takeover).
        self.reseat()
        self.push()
