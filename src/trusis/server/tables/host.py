"""The single writer of one started game: the game host.

Every action — a person's, a program's, a bot's or the timer's — goes through
`GameHost.submit`, under the table's one lock, in this order: the table applies
it, the store commits it (with the new deadline, fenced by the lease), then the
room delivers to every connected client what its seat may now see, and only
then does the sender get its `ack`. So a crash loses nothing acknowledged, and
no byte about the game is built anywhere else.

The host knows nothing of connections or clusters: it delivers through a
`Delivery` (the room, room.py), and whether it writes, and with which fencing
number, it asks the delivery's `Peers` (peers.py). On a process that follows
the game (a replica), the same host holds the copy of the table and its
deadline, and `submit` refuses with `LeaseLost`: the caller forwards it.

The lock is the room's (one `asyncio.Lock` per table, handed to the host when
the game starts): before the start it serialises the lobby's seat changes, and
from then on those and the game's actions alike.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from trusis.bots.registry import create_bot
from trusis.rules.actions import LEAVE, REPLACE, SAY, Action
from trusis.rules.errors import IllegalAction
from trusis.rules.roles import DAY
from trusis.server.data.store import LeaseLost, Store
from trusis.server.limits.buckets import Budget, Budgets
from trusis.server.notifications.facts import GameNotices, stored
from trusis.server.tables.botplay import BotPlay
from trusis.server.tables.lobby_state import LobbyState
from trusis.server.tables.peers import Peers
from trusis.server.tables.records import rebuild_table
from trusis.table.table import Outcome, Table

log = logging.getLogger("trusis.server")


class Stoppable(Protocol):
    """The game's timers (timers.py), as the host sees them: it only ever stops them."""

    async def stop(self) -> None: ...


class Delivery(Protocol):
    """What the host needs of the room that holds the table's connections (room.py)."""

    @property
    def peers(self) -> Peers:
        """Whether this process writes, its fence, and whom to tell what it stored."""

    def push(self) -> None:
        """Every client reads what its seat may now see."""

    def broadcast_table(self) -> None:
        """Every client (and follower) gets the lobby facts again."""

    def left_on_purpose(self, seat: int) -> None:
        """An accepted `leave` of its player: the seat is theirs to come back to (D31)."""

    async def finished(self) -> None:
        """The game ended (stored): the table is finished, its history kept."""

    async def lost(self) -> None:
        """The lease is gone (under the lock): the room follows the stored game."""


class GameHost:
    """One started game as this process holds it: its table, deadline, bots and timers,
    and (when this process writes it) the one path every action takes."""

    def __init__(self, table_id: str, table: Table, store: Store, lobby: LobbyState,
                 delivery: Delivery, lock: asyncio.Lock, deadline: float | None = None,
                 budgets: Budgets | None = None, notify: GameNotices | None = None) -> None:
        self.id = table_id
        self.table = table
        self.store = store
        self.lobby = lobby  # read for the options and bot seats; the room changes it
        self.delivery = delivery
        self.lock = lock  # the room's: see the module's docstring
        self.deadline = deadline
        self.budgets = Budgets() if budgets is None else budgets  # the room's (limits/buckets.py)
        self.bots: BotPlay | None = None
        self.timers: Stoppable | None = None  # what runs by itself while this process writes
        self.wake = asyncio.Event()
        """Set when the next timed moment may have changed (a deadline, an absence, a bot)."""
        self.notify = notify
        """The notices its actions cause (notifications/facts.py), stored with them."""
        self.unread = False
        """A write failed and the game could not be read back (the database away): what is
        in memory holds an action never stored, so it is read back before the next one."""

    @property
    def writes(self) -> bool:
        return self.delivery.peers.writes

    # -- the phase --------------------------------------------------------------

    def phase_seconds(self) -> float:
        if self.table.state.kind == DAY:
            return float(self.lobby.options.day_seconds)
        return float(self.lobby.options.night_seconds)

    def phase_key(self) -> str:
        state = self.table.state
        return f"{state.kind}:{state.number}"

    def seat_bots(self, seed: int, pace: float) -> None:
        """Create the bots of the bot seats (at the start, or when a game is restored)."""
        now = time.time()
        self.bots = BotPlay(self.table, pace, self.phase_seconds(), random.Random(seed),
                            slow=self.lobby.options.slow)  # D65: they visit a slow table
        self.bots.awaited = self.lobby.kept_for_player
        for number, kind in self.lobby.bot_seats():
            self.bots.seat(number, create_bot(kind, number, secrets.randbits(31),
                                              self.lobby.options.lang), now)
        self.bots.new_phase(now, self.phase_seconds())

    def replace_table(self, table: Table) -> None:
        """The stored game read back (after a failed write, or to follow it): the bots
        play on the new copy."""
        self.table = table
        if self.bots is not None:
            self.bots.table = table
            self.bots.driver.game = table

    # -- the one path -------------------------------------------------------------

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
            if not self.writes:
                raise LeaseLost(self.id)  # the caller forwards it to the owner
            if self.unread:  # or the next action would be stored an index too far
                await self.rebuild()
            table = self.table
            if made_in is not None and made_in != (table.state.kind, table.state.number):
                stale = IllegalAction("stale_phase", kind=made_in[0], number=made_in[1])
                return Outcome(action, [], stale, None, False, False)
            now = time.time()
            before = self.deadline
            outcome = table.submit(action, now)
            if outcome.index is not None:
                await self._store(action, outcome, now, player_id, client_id)
            if seated is not None and outcome.accepted:
                await seated()
            if outcome.ended:
                await self.delivery.finished()
            if outcome.phase_changed and self.bots is not None and table.state.running:
                self.bots.new_phase(now, self.phase_seconds())
            self.delivery.push()
            if outcome.index is not None:
                self.delivery.peers.stored(
                    (outcome.index, ((action.to_dict(), now),), self.deadline))
            if outcome.accepted and action.do == LEAVE and player_id is not None:
                self.delivery.left_on_purpose(action.seat or 0)  # not R52's (D31)
            if outcome.ended or action.do in (LEAVE, REPLACE):
                self.delivery.broadcast_table()
            if self.deadline != before or not table.state.running or (
                    self.bots is not None and self.bots.seats):
                self.wake.set()  # the next timed moment may have changed (timers.py)
            return outcome

    async def _store(self, action: Action, outcome: Outcome, now: float,
                     player_id: str | None, client_id: str | None) -> None:
        """Commit an applied action (under the lock). R12: the next phase's deadline (none
        after the end) is the host's only once stored with the action; a failed write
        keeps the stored one, and the game is read back as stored."""
        assert outcome.index is not None
        table = self.table
        deadline = self.deadline
        if outcome.phase_changed and table.state.running:
            deadline = now + self.phase_seconds()
        elif not table.state.running:
            deadline = None
        notices, cancels = ([], []) if self.notify is None else self.notify.after(
            table, outcome, deadline, self.phase_seconds(), now)
        try:
            args = (self.id, outcome.index, action.to_dict(), now, player_id,
                    client_id if outcome.accepted else None, deadline, self.phase_key(),
                    table.state.winner if not table.state.running else None,
                    self.delivery.peers.fence)
            if notices or cancels:  # the outbox's part (notifications/facts.py)
                await self.store.append(*args, notices, cancels)
            else:
                await self.store.append(*args)
        except LeaseLost:
            log.warning("table %s: another process owns the game now; this one follows it",
                        self.id)
            await self.lose()
            raise
        except Exception:
            log.exception("table %s: an action could not be stored; the game is rebuilt "
                          "from the database", self.id)
            self.unread = True
            await self.rebuild()
            raise
        self.deadline = deadline
        stored(notices)

    async def lose(self) -> None:
        """The lease is gone (under the lock): the stored table is the table — what this
        process applied or seated without storing never happened — and it now follows
        the owner (the room's peers read the table back)."""
        self.bots = None
        await self.delivery.lost()
        self.wake.set()  # the host's clock stops: the owner's runs

    async def rebuild(self) -> None:
        self.replace_table(await rebuild_table(self.store, self.id))
        self.unread = False

    # -- the per-player rate limits -------------------------------------------------

    def budget(self, player_id: str) -> Budget:
        return self.budgets.budget(player_id)

    def allowed(self, player_id: str, action: Action) -> bool:
        """The per-player rate limits (commands, and chat on its own)."""
        return self.budgets.allowed(player_id, chat=action.do == SAY)

    def retry_after(self, player_id: str, action: Action) -> int:
        """Whole seconds (at least 1) until a refused `action` would be allowed again."""
        return self.budgets.retry_after(player_id, chat=action.do == SAY)

    # -- what runs by itself (timers.py) -------------------------------------------

    async def stop(self) -> None:
        if self.timers is not None:
            await self.timers.stop()
