"""Where each table's writer is, and how a request reaches it.

Every game has one writer, the only code that applies, stores and times its
actions (`room.py`). The hub never asks where that writer runs: it hands each
command and lobby request to its `Owner`, which runs it here or carries it to
the process that writes the game. `LocalOwner` is one process, which writes
every game it holds; `cluster/owner.py` is several processes, with leases,
fencing and a bus. Neither the hub nor the room holds a branch on which one it is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from prometheus_client.metrics_core import Metric

from trusis.server.connections.protocol import ActionIn
from trusis.server.data.hidden import HiddenFacts
from trusis.server.data.rows import TableRow
from trusis.server.data.store import Store
from trusis.server.moderation.sanctions import WarningFacts
from trusis.server.players.revoked import Revocation
from trusis.server.tables.answers import CommandAnswer
from trusis.server.tables.commands import command
from trusis.server.tables.requests import LobbyRequest, LobbyResult
from trusis.server.tables.restore import load_room, read_tables
from trusis.server.tables.room import Room
from trusis.server.tables.timers import start_timers


@dataclass(frozen=True)
class CommandRequest:
    """A seat's command (`docs/protocol.md`, `act`): `player` playing `seat` sent `action`
    with its client id `client`; refusals in `lang`."""

    player: str
    seat: int | None
    client: str
    action: ActionIn
    lang: str

    async def run(self, room: Room) -> CommandAnswer:
        """Run it on `room`, whose writer is in this process."""
        return await command(room, self.player, self.seat, self.client, self.action, self.lang)


@dataclass(frozen=True)
class Holding:
    """What an owner is given of this process's tables, by the hub that makes it (hub.py):
    the store, the bots' pace, the rooms held here, how a room read back is taken in, how
    a lobby request runs on a table written here, and how revocations and warnings reach
    this process's connections."""

    store: Store
    pace: float
    rooms: dict[str, Room]
    adopt: Callable[[Room], None]
    run_lobby: Callable[[Room, LobbyRequest], Awaitable[LobbyResult]]
    close_revoked: Callable[[Revocation], None]
    tell_warning: Callable[[str, WarningFacts], None]
    tell_hidden: Callable[[HiddenFacts], None]


class Owner(Protocol):
    """The hub's one way to a table's writer."""

    async def start(self) -> None:
        """Take charge of the stored open and running tables (at start-up)."""

    async def close(self) -> None: ...

    def health(self) -> dict[str, Any]:
        """The owner's part of `/api/health`, `ok` included."""

    def metric_families(self) -> Iterator[Metric]:
        """The owner's own figures for `/metrics`."""

    async def listed(self) -> list[Room]:
        """Every public open and running table, this process's or not (the lobby's list)."""

    async def open(self, row: TableRow) -> Room | None:
        """A stored table this process does not hold: the copy it holds from now on, or
        None when the table is finished and only read (the hub keeps those)."""

    async def created(self, room: Room) -> None:
        """`room` was just created here: this process writes it."""

    def released(self, room: Room) -> None:
        """This process no longer holds `room` (finished and idle, or expired)."""

    async def command(self, room: Room, request: CommandRequest) -> CommandAnswer:
        """The command's answer, from the game's writer."""

    async def lobby(self, room: Room, request: LobbyRequest) -> LobbyResult:
        """The lobby request's result, from the game's writer; its refusal raised as a
        `LobbyError`."""

    async def reached(self, room: Room, count: int) -> None:
        """Return once this process's copy of the game holds `count` actions."""

    async def tell_revoked(self, revoked: Revocation) -> None:
        """Tokens were revoked here: every other process closes their connections."""

    async def tell_warned(self, player_id: str, warning: WarningFacts) -> None:
        """A warning was given here: every other process tells its connections of it."""

    async def tell_hidden(self, facts: HiddenFacts) -> None:
        """A chat line was hidden or shown again here (D71): every other process tells its
        connections of the table."""


class LocalOwner:
    """One process: it writes every table it holds, and every table is held here."""

    def __init__(self, holder: Holding) -> None:
        self.holder = holder

    async def start(self) -> None:
        """Load every open and running table; running games carry on, timers included."""
        holder = self.holder
        rows = await holder.store.table_rows(("open", "running"))
        read = await read_tables(holder.store, rows)  # a few queries for all of them
        for row in rows:
            room = await load_room(holder.store, row, holder.pace, read=read[row["id"]])
            holder.adopt(room)
            holder.rooms[room.id] = room
            if room.status == "running":
                start_timers(room)

    async def close(self) -> None:
        return None

    def health(self) -> dict[str, Any]:
        return {"ok": True, "cluster": False, "redis": "off"}

    def metric_families(self) -> Iterator[Metric]:
        return iter(())

    async def listed(self) -> list[Room]:
        return [r for r in self.holder.rooms.values()
                if not r.lobby.options.private and r.status in ("open", "running")]

    async def open(self, row: TableRow) -> Room | None:
        return None  # every open and running table is in memory: this one is finished

    async def created(self, room: Room) -> None:
        return None

    def released(self, room: Room) -> None:
        return None

    async def command(self, room: Room, request: CommandRequest) -> CommandAnswer:
        return await request.run(room)

    async def lobby(self, room: Room, request: LobbyRequest) -> LobbyResult:
        return await self.holder.run_lobby(room, request)

    async def reached(self, room: Room, count: int) -> None:
        return None  # the writer's own copy: every action it stored is in it

    async def tell_revoked(self, revoked: Revocation) -> None:
        return None  # no other process

    async def tell_warned(self, player_id: str, warning: WarningFacts) -> None:
        return None  # no other process

    async def tell_hidden(self, facts: HiddenFacts) -> None:
        return None  # no other process
