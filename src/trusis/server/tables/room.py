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
from trusis.server.connections import clients
from trusis.server.connections.clients import Client
from trusis.server.connections.frames import (
    Clock,
    EventsFrame,
    SnapshotFrame,
    TableFrame,
    WaitingChatFrame,
    WaitingLine,
    serialise,
)
from trusis.server.data.commits import Fence
from trusis.server.data.store import Store
from trusis.server.limits.buckets import Budgets
from trusis.server.notifications.facts import GameNotices
from trusis.server.tables.answers import AnswerBook
from trusis.server.tables.host import GameHost
from trusis.server.tables.lobby_state import LobbyState
from trusis.server.tables.peers import LocalPeers, Peers
from trusis.server.tables.seats.seat import RoomStatus, Seat
from trusis.server.tables.status import TableLife
from trusis.table.hiding import Hides, Reader
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
    life: TableLife = field(default_factory=TableLife)
    """Its status, changed only there (status.py): open, running, finished, closed, expired."""
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
    waiting_chat: deque[WaitingLine] = field(
        default_factory=lambda: deque(maxlen=WAITING_CHAT_KEPT))
    """The waiting room's last public lines (D45): never stored, never in the record."""
    waiting_said: int = 0
    """How many lines were ever said there: a follower (cluster/replica.py) sends its
    clients those it had not (the writer tells the last lines with the table's facts)."""
    hides: Hides = field(default_factory=Hides)
    """The game's lines a moderator hid, by step (D71; restore.py reads them back, and
    `line_hidden` follows every process's change)."""
    waiting_hides: Hides = field(default_factory=Hides)
    """The waiting room's lines a moderator hid, by number (D71)."""
    ban_freed: dict[str, tuple[int, Seat]] = field(default_factory=dict)
    """Waiting-room seats a ban freed, by player: a lift gives each back (D72,
    seats/unbanning.py). In memory only, on the process that freed it."""
    ban_lost: dict[str, int] = field(default_factory=dict)
    """The seat each player lost to someone else while banned, said to them (D72)."""
    removed: set[str] = field(default_factory=set)
    """The people its host removed from the waiting room whom this process heard of (D34,
    D55: barred.py): a connection of theirs that read the database before the removal is
    turned away as it joins. In memory only: the database says it to every later one."""

    @property
    def status(self) -> RoomStatus:
        """Read-only: a status changes only as `life` moves (status.py)."""
        return self.life.status

    @property
    def owned(self) -> bool:
        """This process applies, stores and times the game; otherwise it follows it."""
        return self.peers.writes

    @property
    def fence(self) -> Fence:
        """What every store of this process's writes is checked by (data/leases.py)."""
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
            for entry in seats:  # D52: the host's page offers a person's link from then
                until = self.person_from(entry["seat"]) if entry.get("departed") else None
                if until is not None:
                    entry["person_from"] = until
        lost = self.ban_lost.get(player_id or "") if self.status == "open" else None
        if lost is not None and lobby.seat_of(player_id) is None:
            data["seat_lost"] = lost  # D72: taken while they were banned, to them only
        if lobby.rematch is not None:
            data["rematch"] = lobby.rematch
        if lobby.previous is not None:
            data["previous"] = lobby.previous
        if table is not None and not table.state.running:
            data["winner"] = table.state.winner
        return data

    def person_from(self, seat: int) -> float | None:
        """D52: while it is still to come, when the host may hand departed `seat` to a
        person (handover.person_wait decides; this only reads): None when it may now, or
        when this process does not count the seat's absence (a follower, a restart)."""
        since = self.absent.get(seat)
        wait = clients.LIMITS.handover_to_person_seconds
        if since is None or wait <= 0 or seat in self.lobby.quit or not self.owned:
            return None
        until = since + wait
        return until if time.time() < until else None

    # -- connections ----------------------------------------------------------

    def join(self, client: Client) -> None:
        self.clients.add(client)
        if client.seat is not None:
            self.here(client.seat)
        client.send_table(serialise(TableFrame(type="table", table=self.info(client.player_id))))
        if self.waiting_chat:  # what was said before the start, also once it has started
            lines = self.waiting_lines(list(self.waiting_chat), client)
            client.send(serialise(WaitingChatFrame(type="waiting_chat", lines=lines)))
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
            client.send_table(serialise(TableFrame(type="table",
                                                   table=self.info(client.player_id))))
        self.peers.table_changed()  # followers show the same lobby facts

    # -- what each reader reads of the lines a moderator hid (D71) -----------------------

    def reader(self, client: Client, hides: Hides | None = None) -> Reader | None:
        """How `client` reads hidden lines (table/hiding.py): staff read them, and a staff
        member who watches reads each line's name; a writer reads their own. None: as
        everyone, nothing being hidden (the common case, which costs nothing per client)."""
        hides = self.hides if hides is None else hides
        if not hides.lines and not client.staff:
            return None
        return Reader(hides, client.player_id, client.staff,
                      client.staff and client.seat is None)

    def waiting_lines(self, lines: list[WaitingLine], client: Client) -> list[WaitingLine]:
        """The waiting room's `lines` as `client` may read them: `lines` itself when as
        everyone does."""
        reader = self.reader(client, self.waiting_hides)
        if reader is None or not reader.active:
            return lines
        out: list[WaitingLine] = []
        for line in lines:
            number = line.get("n")
            read = reader.line(line, number) if number is not None else None
            out.append(WaitingLine(**read) if read is not None else line)  # type: ignore[typeddict-item]
        return out

    def clock(self) -> Clock:
        return Clock(now=time.time(), deadline=self.host.deadline if self.host else None)

    def catch_up(self, client: Client, last_seq: int | None) -> None:
        """After `hello`: the events missed since `last_seq`, or a fresh snapshot."""
        table = self.host.table if self.host else None
        if table is None:
            return
        length = table.stream_length(client.seat)
        if client.seat is None and client.player_id in self.lobby.former:
            last_seq = None  # its number counted in the seat it had: it means nothing here
        # A table with a line a moderator hid (D71) starts a returning page from a snapshot
        # too: it may hold the line from before the hide, and the snapshot's chat replaces it.
        if last_seq is None or last_seq > length or length - last_seq > EVENTS_KEPT_FOR_CATCH_UP \
                or self.hides.lines:
            reader = self.reader(client)
            recent = table.events_after(client.seat, max(0, length - EVENTS_KEPT_FOR_CATCH_UP),
                                        reader)
            client.seq = length
            client.send(serialise(SnapshotFrame(type="snapshot", seq=length,
                                                view=table.snapshot(client.seat, True, reader),
                                                events=recent, clock=self.clock())))
            return
        client.seq = last_seq
        self.push_to(client)
        if client.seq == last_seq:  # nothing missed: the view still starts the page
            client.send(serialise(EventsFrame(type="events", seq=length, events=[],
                                              view=table.snapshot(client.seat, chat=False),
                                              clock=self.clock())))

    def push_to(self, client: Client, push: Push | None = None) -> None:
        """Send `client` what its seat may see since its stream number (`push`: what is
        serialised once for every client an action is sent to)."""
        table = self.host.table if self.host else None
        if table is None:
            return
        push = self._push() if push is None else push
        seq, events = table.events_json(client.seat, client.seq, push.events,
                                        self.reader(client))
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
        a connection held before: a client must not keep a number that is someone else's.
        Before the start there is no view to send: a player who sits, stands or moves plays
        the new seat on the connection they have (seat_changes.py), and the `table` that
        follows says it is connected (docs/protocol.md)."""
        moved = False
        for client in list(self.clients):
            seat = self.lobby.seat_of(client.player_id)
            if everyone or seat != client.seat:
                moved = moved or seat != client.seat
                client.seat = seat
                self.catch_up(client, None)
        if moved:
            self.peers.clients_changed()  # the other processes count this one's seats anew

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
                                 budgets=self.budgets, notify=self.notices())
        else:
            self.host.replace_table(table)
        self.host.deadline = deadline
        return self.host

    def notices(self) -> GameNotices:
        """The game's notifications (notifications/facts.py): the seats persons hold, and
        whether each has a page open here or elsewhere."""
        return GameNotices(self.id, lambda: self.name, lambda: [
            (n, s.player_id) for n, s in self.lobby.seats.items()
            if s.kind == "person" and s.player_id], self.connected)

    def left_on_purpose(self, seat: int) -> None:
        self.lobby.left_on_purpose(seat)

    async def finished(self) -> None:
        """The game's end is stored: the table is finished, and the process's end hook
        (hub.py `finished_game`) keeps it in its players' history."""
        self.life.finish()
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
