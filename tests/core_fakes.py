"""Fakes for running the server core in-process: a store that fails on demand, a client
transport that records what it is sent, and a clock that moves only when a test says.

The game's host (server/host.py) is its single writer, delivering through its
room (server/room.py); these let a test drive it step by step — the way
boardgame.io tests its Master — with no process, socket or sleep: a real `Store`
on a SQLite file (migrated once per session, copied per test), `Client`s whose
`send` keeps every frame decoded, and `FakeClock`.

The clock seam: room.py, host.py, handover.py, seating.py, restore.py and
timers.py read `time.time()` through their module's `time` name; `install_clock`
points that name (in those modules only) at a `FakeClock`, so no source change is
needed. Nothing else of `time` changes (asyncio, the store's own stamps and perf
counters keep the real one).
"""

from __future__ import annotations

import asyncio
import random
import secrets
import shutil
import time as real_time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any, Literal, cast

import orjson
import pytest
import pytest_asyncio
from starlette.websockets import WebSocket

from trusis.rules.actions import Action
from trusis.rules.views import view
from trusis.server.api.websocket import _act
from trusis.server.cluster.messages import Message
from trusis.server.cluster.node import Node
from trusis.server.cluster.replica import Replica
from trusis.server.cluster.writer import Writer
from trusis.server.connections.clients import Client
from trusis.server.connections.clients import Message as Outgoing
from trusis.server.connections.protocol import Act, parse
from trusis.server.data.commits import Fence
from trusis.server.data.store import LeaseLost, Player, Store
from trusis.server.tables import host as host_module
from trusis.server.tables import restore, timers
from trusis.server.tables import room as room_module
from trusis.server.tables.host import GameHost
from trusis.server.tables.hub import Hub
from trusis.server.tables.options import TableOptions
from trusis.server.tables.records import rebuild_table
from trusis.server.tables.restore import load_room
from trusis.server.tables.room import Room
from trusis.server.tables.seats import handover, seating
from trusis.server.tables.timers import Timers
from trusis.table.table import Table

CLOCKED: tuple[ModuleType, ...] = (room_module, host_module, handover, seating, restore,
                                   timers)
"""The core modules whose `time.time()` the fake clock replaces."""

START = 1_800_000_000.0  # the fake clock's first reading: any fixed moment will do


class FakeClock:
    """Seconds since the epoch, as `time.time()` gives them, moved only by `advance`/`set`."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def time(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now

    def set(self, now: float) -> float:
        self.now = now
        return self.now

    def __getattr__(self, name: str) -> Any:  # the rest of `time` (perf_counter, …) is real
        return getattr(real_time, name)


def install_clock(monkeypatch: pytest.MonkeyPatch, clock: FakeClock) -> None:
    for module in CLOCKED:
        monkeypatch.setattr(module, "time", clock)


def seed_randomness(monkeypatch: pytest.MonkeyPatch, seed: int = 7) -> None:
    """The deal's seed and the bots' seeds come from `secrets.randbits`: fixed here, so a
    test plays the same game every run."""
    monkeypatch.setattr(secrets, "randbits", random.Random(seed).getrandbits)


# -- the store -------------------------------------------------------------------------

Failure = Literal["lease_lost", "error"]


class FlakyStore(Store):
    """A real store whose next appends fail when a test says so: `LeaseLost` (another
    process took the game over) or a plain error (the database said no), nothing stored;
    `fail_the_end`: the append of the action that ends the game fails. Successful
    appends are reported to `on_stored` (the wire's log: store before send)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.real_append = self.commits.append
        self.failures: list[Failure] = []
        self.fail_the_end = False  # the next append that ends a game fails ("error")
        self.failed = 0
        self.on_stored: Callable[[int], None] | None = None
        self.append = self._append

    def fail_next(self, *failures: Failure) -> None:
        self.failures.extend(failures)

    async def _append(self, table_id: str, index: int, data: dict[str, Any], t: float | None,
                      player_id: str | None, client_id: str | None, deadline: float | None,
                      phase: str, winner: str | None,
                      fence: tuple[str, int] | None = None) -> None:
        if self.fail_the_end and winner is not None:
            self.fail_the_end = False
            self.failures.insert(0, "error")
        if self.failures:
            failure = self.failures.pop(0)
            self.failed += 1
            await asyncio.sleep(0)  # as a real commit would, the caller waits a turn
            if failure == "lease_lost":
                raise LeaseLost(table_id)
            raise RuntimeError("the database refused the write (a fake failure)")
        await self.real_append(table_id, index, data, t, player_id, client_id, deadline,
                               phase, winner, fence)
        if self.on_stored is not None:
            self.on_stored(index)


def migrated_template(folder: Path) -> Path:
    """A migrated, empty SQLite database (made once per session: copied per test)."""
    path = folder / "template.db"

    async def make() -> None:
        store = Store(f"sqlite+aiosqlite:///{path}")
        await store.migrate()
        await store.close()

    asyncio.run(make())
    return path


def store_copy(template: Path, folder: Path) -> FlakyStore:
    path = folder / "trusis.db"
    shutil.copyfile(template, path)
    return FlakyStore(f"sqlite+aiosqlite:///{path}")


async def stored_actions(store: Store, table_id: str) -> list[dict[str, Any]]:
    return [orjson.loads(r["data"]) for r in await store.action_rows(table_id)]


async def stored_table(store: Store, table_id: str) -> Table:
    return await rebuild_table(store, table_id)


def hosted(room: Room) -> GameHost:
    """The host of `room`'s started game (a test's room has one by then)."""
    assert room.host is not None, "the game has not started"
    return room.host


# -- the timers and the other processes ------------------------------------------------------


async def due(room: Room, now: float) -> None:
    """One timed step of `room` at `now` (timers.py `Timers.due`, as its task runs it)."""
    await Timers(room).due(now)


async def _nothing(*_args: Any) -> None:
    return None


async def follow_after_loss(room: Room) -> None:
    """cluster/node.py `Node._lost` itself, run without a node: the room follows the
    stored game (a `Replica`'s peers, the table read back); no bus to (un)subscribe."""
    stand_in = SimpleNamespace(_presence=lambda _room: None, spawn=lambda work: work.close(),
                               bus=SimpleNamespace(subscribe=_nothing, unsubscribe=_nothing))
    stand_in._follow_hooks = lambda r: Node._follow_hooks(cast(Node, stand_in), r)
    await Node._lost(cast(Node, stand_in), room)


async def node_catch_up(room: Room) -> None:
    """cluster/node.py `Node.catch_up` itself, run without a node (it needs its store)."""
    await Node.catch_up(cast(Node, SimpleNamespace(store=room.store)), room)


class UnfencedWriter(Writer):
    """cluster/writer.py's peers of a game's writer, storing with no fence: the SQLite
    store keeps no leases (a lost lease is FlakyStore's `lease_lost`)."""

    @property
    def fence(self) -> Fence:
        return None


def make_writer(room: Room, publish: Callable[[Message], None],
                fenced: bool = False) -> Writer:
    """Give `room` a writer's peers (as node.py `Node.own` does): what it stores and its
    lobby facts go to `publish`; a lost lease makes it follow (`follow_after_loss`).
    `fenced`: a real fencing number (only for a room that stores no lobby write after)."""
    kind = Writer if fenced else UnfencedWriter
    writer = kind(room, ("n#1", 1), publish, follow_after_loss)
    room.peers = writer
    return writer


async def load_follower(store: Store, table_id: str) -> Room:
    """Another process's copy of a stored table, following its writer (node.py `_load`)."""
    row = await store.table_row(table_id)
    assert row is not None
    room = await load_room(store, row, 1.0, owner=False)
    room.peers = Replica(room, lambda _room: None)
    return room


# -- the transport -----------------------------------------------------------------------


@dataclass
class Wire:
    """Every frame sent to any fake client, and every stored action, in the order they
    happened: what a test reads to check the single writer's order."""

    log: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def stored(self, index: int) -> None:
        self.log.append(("store", {"index": index}))

    def clear(self) -> None:
        self.log.clear()


@dataclass(eq=False)
class FakeClient(Client):
    """A connection whose frames are decoded and kept, never written anywhere: `send` is
    the transport. (Its queue stays empty, so no two `events` messages merge.)"""

    label: str = ""
    wire: Wire | None = None
    frames: list[dict[str, Any]] = field(default_factory=list)

    def send(self, message: Outgoing) -> None:
        if self.closed:
            return
        data = message if isinstance(message, bytes) else message.frame()
        frame = orjson.loads(data)
        self.frames.append(frame)
        if self.wire is not None:
            self.wire.log.append((self.label, frame))

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("type") == kind]

    def last_view(self) -> dict[str, Any] | None:
        """The view this client would show now (the last frame carrying one)."""
        for frame in reversed(self.frames):
            if frame.get("type") in ("events", "snapshot"):
                return cast(dict[str, Any], frame["view"])
        return None

    def events(self) -> list[dict[str, Any]]:
        """Every event received, in order (a snapshot's recent events included)."""
        out: list[dict[str, Any]] = []
        for frame in self.frames:
            if frame.get("type") == "snapshot":
                out = list(frame["events"])
            elif frame.get("type") == "events":
                out.extend(frame["events"])
        return out


def fake_client(player: Player | None, seat: int | None, wire: Wire | None = None,
                label: str = "") -> FakeClient:
    player_id = player.id if player is not None else "watcher"
    name = player.name if player is not None else "Watcher"
    return FakeClient(cast(WebSocket, None), player_id, name, seat,
                      label=label or name, wire=wire)


async def connect(room: Room, client: FakeClient, last_seq: int | None = None) -> None:
    """What api/websocket.py does once a `hello` arrives: join under the room's lock, catch up.
    The coalesced `table` message for the others is cancelled: tests send none late."""
    async with room.lock:
        room.join(client)
        room.catch_up(client, last_seq)
    quiet(room)


def disconnect(room: Room, client: FakeClient) -> None:
    room.part(client)
    quiet(room)


def quiet(room: Room) -> None:
    if room.table_due is not None:
        room.table_due.cancel()
        room.table_due = None


async def act(hub: Hub, room: Room, client: FakeClient, client_id: str,
              **action: Any) -> dict[str, Any]:
    """A command sent on `client`'s connection, answered as api/websocket.py answers it (the ack is
    the client's last frame)."""
    message = parse(orjson.dumps({"type": "act", "id": client_id, "action": action}))
    assert isinstance(message, Act)
    await _act(hub, room, client, message)
    return client.frames[-1]


def view_json(table: Table, seat: int | None, chat: bool = False) -> Any:
    """A seat's view as a client decodes it."""
    return orjson.loads(orjson.dumps(view(table.state, seat, chat=chat)))


def view_bytes(table: Table, seat: int | None) -> bytes:
    return orjson.dumps(table.snapshot(seat))


# -- a game ------------------------------------------------------------------------------


@dataclass
class Game:
    """A started table: its hub and room, the people at it and their fake connections."""

    hub: Hub
    room: Room
    store: FlakyStore
    clock: FakeClock
    wire: Wire
    host: Player
    people: dict[int, Player]
    clients: dict[int | None, FakeClient]

    @property
    def table(self) -> Table:
        return hosted(self.room).table

    def client(self, seat: int | None) -> FakeClient:
        return self.clients[seat]

    async def submit(self, action: Action, player: Player | None = None,
                     client_id: str | None = None) -> Any:
        return await hosted(self.room).submit(action, player.id if player else None, client_id)


async def new_game(store: FlakyStore, clock: FakeClock, names: tuple[str, ...] = ("Ann", "Bob"),
                   seats: int = 5, bots_take_over: bool = True, grace_seconds: int = 60,
                   connected: tuple[int, ...] | None = None, start: bool = True) -> Game:
    """A table of `seats`: the people of `names` in the first seats (the first one hosts),
    bots in the rest, a spectator; everyone of `connected` (default: every person) and the
    spectator connected in the lobby; started unless `start` is False. The room's own
    clock task is stopped: the test runs each timed step (`due`) itself."""
    wire = Wire()
    store.on_stored = wire.stored
    hub = Hub(store)
    people = {n: await store.new_player(name, "guest") for n, name in enumerate(names, 1)}
    host = people[1]
    options = TableOptions(seats=seats, bots_take_over=bots_take_over,
                           grace_seconds=grace_seconds)
    room = await hub.create(host, "core", options)
    for number, player in people.items():
        assert await hub.sit(room, player, number) == number
    for number in range(len(names) + 1, seats + 1):
        await hub.add_bot(room, host, "heuristic", number)
    quiet(room)
    clients: dict[int | None, FakeClient] = {}
    for number in connected if connected is not None else tuple(people):
        clients[number] = fake_client(people[number], number, wire)
        await connect(room, clients[number])
    clients[None] = fake_client(None, None, wire, "spectator")
    await connect(room, clients[None])
    game = Game(hub, room, store, clock, wire, host, people, clients)
    if start:
        await hub.start(room, host)
        await hosted(room).stop()  # no clock task: each timed step is the test's
        quiet(room)
    return game


# -- fixtures (tests/conftest.py shares them) ----------------------------------------------


@pytest.fixture(scope="session")
def core_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return migrated_template(tmp_path_factory.mktemp("core"))


@pytest.fixture
def core_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    clock = FakeClock()
    install_clock(monkeypatch, clock)
    seed_randomness(monkeypatch)
    return clock


@pytest_asyncio.fixture
async def core_store(core_template: Path, tmp_path: Path) -> AsyncIterator[FlakyStore]:
    store = store_copy(core_template, tmp_path)
    try:
        yield store
    finally:
        await store.close()
