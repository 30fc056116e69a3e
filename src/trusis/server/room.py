"""One table of the server: its lobby, and once started its live game.

A room is the single writer of its game: every action — a person's, a
program's, a bot's or the timer's — goes through `submit`, under one lock, in
this order: the table applies it, the store commits it (with the new deadline),
then every connected client reads what its seat may now see, from the table's
own views and streams, and only then does the sender get its `ack`. So a crash
loses nothing acknowledged, and no byte about the game is built anywhere else.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from trusis.bots.registry import create_bot
from trusis.rules.actions import LEAVE, REPLACE, SAY, Action
from trusis.rules.errors import IllegalAction
from trusis.rules.roles import DAY
from trusis.rules.views import view_json
from trusis.server.answers import CommandAnswer
from trusis.server.botplay import BotPlay
from trusis.server.clients import Client
from trusis.server.commits import Fence
from trusis.server.lobby_state import LobbyState
from trusis.server.peers import LocalPeers, Peers
from trusis.server.protocol import dumps
from trusis.server.ratelimit import Budget
from trusis.server.records import rebuild_table
from trusis.server.seat import RoomStatus
from trusis.server.store import LeaseLost, Store
from trusis.table.table import Outcome, Table

log = logging.getLogger("trusis.server")

EVENTS_KEPT_FOR_CATCH_UP = 2000
"""A client further behind than this gets a fresh snapshot instead of the events."""
ANSWERS_KEPT = 5000
TABLE_COALESCE_SECONDS = 0.1  # joins and parts this close share one `table` message


class Stoppable(Protocol):
    """The room's timers (timers.py), as the room sees them: it only ever stops them."""

    async def stop(self) -> None: ...


@dataclass
class Room:
    """A table as this process holds it: its lobby (`lobby`), its connections, and the
    writer of its game once started."""

    id: str
    name: str
    lobby: LobbyState
    """The host, options, invite and who holds each seat (lobby_state.py)."""
    store: Store
    pace: float = 1.0
    status: RoomStatus = "open"
    created_at: float = field(default_factory=time.time)
    table: Table | None = None
    deadline: float | None = None
    clients: set[Client] = field(default_factory=set)
    away: dict[int, float] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    answers: OrderedDict[tuple[str, str], CommandAnswer] = field(default_factory=OrderedDict)
    pending: dict[tuple[str, str], asyncio.Future[None]] = field(default_factory=dict)
    """Commands being applied, by (player, client id): a copy waits for their answer."""
    budgets: dict[str, Budget] = field(default_factory=dict)
    bots: BotPlay | None = None
    on_finished: Callable[[Room], Awaitable[None]] | None = None
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    """Set when the next timed moment may have changed (a deadline, an absence, a bot)."""
    timers: Stoppable | None = None  # what runs by itself while this process writes the game
    peers: Peers = field(default_factory=LocalPeers)
    """The other processes that hold this table (peers.py): none, for a single process."""
    table_due: asyncio.TimerHandle | None = None  # a coalesced `table` message (table_soon)

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
        lobby = self.lobby
        seats = lobby.entries(player_id, self.table, self.status == "finished", self.connected)
        data: dict[str, Any] = {
            "id": self.id, "name": self.name, "status": self.status,
            "host": {"id": lobby.host_id, "name": lobby.host_name},
            "you_host": player_id == lobby.host_id,
            "options": lobby.options.public(), "roles": lobby.options.composition(),
            "seats": seats, "taken": len(lobby.seats), "created_at": self.created_at,
            "spectators": self.spectators(),
            "deadline": self.deadline,
        }
        if player_id == lobby.host_id:
            data["invite"] = lobby.invite
        if lobby.rematch is not None:
            data["rematch"] = lobby.rematch
        if lobby.previous is not None:
            data["previous"] = lobby.previous
        if self.table is not None and not self.table.state.running:
            data["winner"] = self.table.state.winner
        return data

    # -- connections ----------------------------------------------------------

    def join(self, client: Client) -> None:
        self.clients.add(client)
        if client.seat is not None:
            self.away.pop(client.seat, None)
        client.send(dumps({"type": "table", "table": self.info(client.player_id)}))
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
        """A seat's last connection (anywhere) went: the grace clock starts (R52)."""
        if self.owned and self.status == "running" and not self.connected(seat):
            self.away.setdefault(seat, time.time())  # shown as disconnected
            self.wake.set()

    def table_soon(self) -> None:
        """One `table` message for the joins and parts within TABLE_COALESCE_SECONDS: one
        per join, to every client, would make n joins cost n² messages."""
        if self.table_due is None:
            self.table_due = asyncio.get_running_loop().call_later(
                TABLE_COALESCE_SECONDS, self._table_due)

    def _table_due(self) -> None:
        self.table_due = None
        self.broadcast_table()

    def broadcast_table(self) -> None:
        for client in list(self.clients):
            client.send(dumps({"type": "table", "table": self.info(client.player_id)}))
        self.peers.table_changed()  # followers show the same lobby facts

    def clock(self) -> dict[str, Any]:
        return {"now": time.time(), "deadline": self.deadline}

    def catch_up(self, client: Client, last_seq: int | None) -> None:
        """After `hello`: the events missed since `last_seq`, or a fresh snapshot."""
        table = self.table
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

    def push_to(self, client: Client) -> None:
        """Send `client` what its seat may see since its stream number."""
        table = self.table
        if table is None:
            return
        events = table.events_after(client.seat, client.seq)
        if not events:
            return
        client.seq = events[-1]["seq"]
        # The engine's view itself (views.py), serialised at once — its shared fields once
        # for every seat — and never kept. A client that is behind gets it folded into the
        # message still waiting (clients.py).
        client.send_events(client.seq, events,
                           view_json(table.state, client.seat, chat=False), self.clock())

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
        for client in list(self.clients):
            self.push_to(client)

    # -- the game -------------------------------------------------------------

    def phase_seconds(self) -> float:
        state = self.table.state if self.table else None
        if state is None or state.kind == DAY:
            return float(self.lobby.options.day_seconds)
        return float(self.lobby.options.night_seconds)

    def phase_key(self) -> str:
        state = self.table.state if self.table else None
        return "" if state is None else f"{state.kind}:{state.number}"

    def seat_bots(self, seed: int) -> None:
        """Create the bots of the bot seats (at the start, or when a game is restored)."""
        assert self.table is not None
        now = time.time()
        self.bots = BotPlay(self.table, self.pace, self.phase_seconds(), random.Random(seed))
        for number, kind in self.lobby.bot_seats():
            self.bots.seat(number, create_bot(kind, number, secrets.randbits(31)), now)
        self.bots.new_phase(now, self.phase_seconds())

    async def submit(self, action: Action, player_id: str | None = None,
                     client_id: str | None = None,
                     made_in: tuple[str, int] | None = None,
                     seated: Callable[[], Awaitable[None]] | None = None) -> Outcome:
        """Play one action: apply, store, deliver to every client, then return.

        `made_in` is the phase its sender saw (docs/protocol.md): in another phase the
        action is refused as `stale_phase`, under the lock, and neither applied nor kept.
        `seated` runs under the lock once an accepted action is stored and before anyone
        is sent it: a hand-over (handover.py) changes the seat's holder there, so no
        connection reads the seat's new events as its former player (R53)."""
        async with self.lock:
            if not self.owned:
                raise LeaseLost(self.id)  # the caller forwards it to the owner
            assert self.table is not None
            table = self.table
            if made_in is not None and made_in != (table.state.kind, table.state.number):
                stale = IllegalAction("stale_phase", kind=made_in[0], number=made_in[1])
                return Outcome(action, [], stale, None, False, False)
            now = time.time()
            before = self.deadline
            outcome = table.submit(action, now)
            if outcome.index is not None:
                # R12: the next phase's deadline (none after the end) is the room's only
                # once stored with the action; a failed write keeps the stored one.
                deadline = self.deadline
                if outcome.phase_changed and table.state.running:
                    deadline = now + self.phase_seconds()
                elif not table.state.running:
                    deadline = None
                try:
                    await self.store.append(
                        self.id, outcome.index, action.to_dict(), now, player_id,
                        client_id if outcome.accepted else None, deadline,
                        self.phase_key(), table.state.winner if not table.state.running
                        else None, self.fence)
                except LeaseLost:
                    log.warning("table %s: another process owns the game now; this one "
                                "follows it", self.id)
                    await self.lose()
                    raise
                except Exception:
                    log.exception("table %s: an action could not be stored; the game is "
                                  "rebuilt from the database", self.id)
                    await self._rebuild()
                    raise
                self.deadline = deadline
            if seated is not None and outcome.accepted:
                await seated()
            if outcome.ended:
                self.status = "finished"
                if self.on_finished is not None:
                    try:
                        await self.on_finished(self)
                    except Exception:
                        log.exception("table %s: the finished game's history was not kept",
                                      self.id)
            if outcome.phase_changed and self.bots is not None and table.state.running:
                self.bots.new_phase(now, self.phase_seconds())
            self.push()
            if outcome.index is not None:
                self.peers.stored((outcome.index, ((action.to_dict(), now),), self.deadline))
            if outcome.accepted and action.do == LEAVE and player_id is not None:
                self.lobby.left_on_purpose(action.seat or 0)  # not R52's (D31)
            if outcome.ended or action.do in (LEAVE, REPLACE):
                self.broadcast_table()
            if self.deadline != before or not table.state.running or (
                    self.bots is not None and self.bots.seats):
                self.wake.set()  # the next timed moment may have changed (timers.py)
            return outcome

    async def lose(self) -> None:
        """The lease is gone (under the lock): the stored table is the table — what this
        process applied or seated without storing never happened — and it now follows
        the owner (its peers read the table back)."""
        self.bots = None
        self.away.clear()
        self.lobby.forget_claims()  # the seats may change hands elsewhere (D18)
        await self.peers.lost()
        # R53, D18: the seats read back may have changed hands meanwhile; every client
        # plays the seat its player holds now, and reads what it missed (as a takeover).
        self.reseat()
        self.push()
        self.wake.set()  # the room's clock stops: the owner's runs

    async def _rebuild(self) -> None:
        self.table = await rebuild_table(self.store, self.id)
        if self.bots is not None:
            self.bots.table = self.table
            self.bots.driver.game = self.table

    def answer(self, player_id: str, client_id: str) -> CommandAnswer | None:
        return self.answers.get((player_id, client_id))

    def remember(self, player_id: str, client_id: str, reply: CommandAnswer) -> None:
        self.answers[(player_id, client_id)] = reply
        while len(self.answers) > ANSWERS_KEPT:
            self.answers.popitem(last=False)

    def budget(self, player_id: str) -> Budget:
        budget = self.budgets.get(player_id)
        if budget is None:
            budget = self.budgets[player_id] = Budget()
        return budget

    def allowed(self, player_id: str, action: Action) -> bool:
        """The per-player rate limits (commands, and chat on its own)."""
        return self.budget(player_id).take(chat=action.do == SAY)

    def retry_after(self, player_id: str, action: Action) -> int:
        """Whole seconds (at least 1) until a refused `action` would be allowed again."""
        return max(1, math.ceil(self.budget(player_id).retry_after(chat=action.do == SAY)))

    # -- what runs by itself (timers.py) ---------------------------------------

    async def stop(self) -> None:
        if self.timers is not None:
            await self.timers.stop()
