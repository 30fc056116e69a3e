"""bench/load.py's clients: each seat a protocol client played by a trusis bot, in the client
processes, and what they measure (latencies, bytes on the wire).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import random
import time
from dataclasses import dataclass, field
from multiprocessing.synchronize import Barrier
from typing import Any

import httpx
import orjson
import websockets
from websockets.asyncio.client import ClientConnection

from load_servers import HOST
from trusis.bots.base import Bot
from trusis.bots.registry import create_bot

SEATS = 10
# The event a command causes at the other seats, by code: the commands it answers.
CAUSES = {"vote_cast": ("vote", "illusion"), "vote_withdrawn": ("vote", "illusion"),
          "trusis_vote": ("vote",), "trusis_vote_withdrawn": ("vote",), "passed": ("pass",),
          "said": ("say",)}
COMPRESSION: str | None = os.environ.get("LOAD_COMPRESSION", "deflate") or None
PAGE_PING = 5.0  # web/net.js PING_EVERY: a page pings after this long without a frame
BEATS = 10  # a page looks once a second (web/net.js `beat`), at a tenth of its own
PATIENCE = 3  # a bot that says "not yet" this many times in a phase passes
SETUP_RETRIES = 2  # a 503 during the set-up of a table is tried again this many times


WIRE = [0]
"""Bytes the WebSocket clients of this process have received from the network so far."""


class CountingConnection(ClientConnection):
    """A client connection that counts what comes over the wire: the frames as sent,
    compressed or not, with their headers (a client reads them decompressed)."""

    def data_received(self, data: bytes) -> None:
        WIRE[0] += len(data)
        super().data_received(data)


def read_bytes() -> int:
    return WIRE[0]



def percentile(samples: list[float], p: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]



# -- the clients (in each client process) ------------------------------------------


STREAMS = 20
"""Connections whose frames are kept for bench/transport_cost.py, per client process."""
STREAM_FRAMES = 300
"""Frames kept of each."""


@dataclass
class Stats:
    acks: list[float] = field(default_factory=list)
    acks_by: dict[str, list[float]] = field(default_factory=dict)  # the same, per command
    broadcasts: list[float] = field(default_factory=list)
    acked: int = 0
    refused: int = 0
    frames: int = 0
    bytes: int = 0
    games: int = 0
    errors: int = 0
    error: str = ""  # the first client error, as printed
    retried: int = 0  # HTTP requests of the set-up tried again after a 503
    lost_tables: int = 0  # tables whose set-up was still refused after those tries
    lost_reason: str = ""
    sample: str = ""  # one game frame, whose text the bare server pads with
    streams: dict[int, list[str]] = field(default_factory=dict)
    """The `events` frames of a few connections, in order (bench/transport_cost.py)."""
    lag: list[float] = field(default_factory=list)
    """How late this process's own event loop woke a 10 ms sleep, through the window: a
    frame that arrives while the clients' loop is busy is timed late, so the latencies
    measured cannot be told below this."""

    def for_window(self) -> Stats:
        """A new tally for the window after a warm-up, keeping what the set-up counted."""
        return Stats(retried=self.retried, lost_tables=self.lost_tables,
                     lost_reason=self.lost_reason, sample=self.sample)


class Seat:
    """One client: a WebSocket, and for the game server a bot playing its seat."""

    def __init__(self, slot: Slot, index: int, token: str) -> None:
        self.slot = slot
        self.index = index
        self.token = token
        self.ws: ClientConnection | None = None
        self.seat = index + 1
        self.bot: Bot | None = None
        self.view: dict[str, Any] | None = None
        self.news: list[dict[str, Any]] = []
        self.pending: str | None = None
        self.sent_at = 0.0
        self.sent_do = ""  # the command in flight (its ack's latency is counted under it)
        self.count = 0
        self.phase: tuple[str, int] = ("", 0)
        self.waits = 0
        self.acted = 0
        self.force_pass = False
        self.retry: asyncio.TimerHandle | None = None
        self.thinking = False  # --think: waiting before its next command
        self.thought = False
        self.heard = 0.0  # when the server last sent it anything (the page's ping clock)
        self.beat = random.randrange(BEATS)  # which tenth of each second its page looks


class Slot:
    """One table's ten clients, which open a new table when their game ends."""

    def __init__(self, run: ClientRun, number: int) -> None:
        self.run = run
        self.number = number
        self.seats: list[Seat] = []
        self.table_id = ""
        self.inflight: dict[int, tuple[float, str, set[int]]] = {}
        self.restarting = False
        self.games = 0  # tables this slot opened
        self.tasks: list[asyncio.Task[None]] = []


class ClientRun:
    """Every client of one client process, and what they measured."""

    def __init__(self, kind: str, ports: list[int], slots: list[int], seconds: float,
                 think: float, warmup: float = 0.0) -> None:
        self.kind = kind
        self.think = think
        self.warmup = warmup
        """Seconds of play before the window (`--warmup`), measured apart (`warm`)."""
        self.warm: Stats | None = None
        self.ports = ports
        """One per server process: the client of index i of a table uses ports[i % len]."""
        self.numbers = slots
        self.seconds = seconds
        self.stats = Stats()
        self.window = False
        self.acting = False
        self.slots: list[Slot] = []
        self.sent: dict[str, list[float]] = {}  # bare: message id -> [send time, receipts]
        self.https: list[httpx.AsyncClient] = []
        self.restarts: set[asyncio.Task[None]] = set()
        """The new games being set up: cancelled when the window ends, before the HTTP
        clients close (closed under a request, httpcore failed it with `ReadError('')`,
        which was counted as a client error: 0-15 a round at 50 saturated tables)."""

    # -- set-up ------------------------------------------------------------

    async def setup(self) -> None:
        self.https = [httpx.AsyncClient(base_url=f"http://{HOST}:{port}", timeout=120,
                                        limits=httpx.Limits(max_connections=16))
                      for port in self.ports]
        gate = asyncio.Semaphore(8)

        async def one(number: int) -> Slot | None:
            async with gate:
                slot = Slot(self, number)
                if self.kind == "trusis":
                    try:
                        for index in range(SEATS):
                            reply = await self.post(index, "/api/guest", "",
                                                    {"name": f"T{number}.{index}"}, 200)
                            slot.seats.append(Seat(slot, index, reply["token"]))
                        await self.new_table(slot)
                    except RuntimeError as err:  # still refused: the run goes on without it
                        self.stats.lost_tables += 1
                        self.stats.lost_reason = str(err)
                        return None
                else:
                    slot.seats = [Seat(slot, index, "") for index in range(SEATS)]
                    slot.table_id = str(number)
                await self.connect(slot)
                return slot

        self.slots = [slot for slot in await asyncio.gather(*(one(n) for n in self.numbers))
                      if slot is not None]

    def http_(self, index: int) -> httpx.AsyncClient:
        """The HTTP client of server process `index` (modulo their number)."""
        assert self.https
        return self.https[index % len(self.https)]

    def port_(self, index: int) -> int:
        return self.ports[index % len(self.ports)]

    async def post(self, index: int, path: str, token: str, body: dict[str, Any],
                   expected: int) -> dict[str, Any]:
        """POST through server process `index`; a 503 (a game's owner not answering, as
        while a lease changes hands) is tried again a few times, as a client would, and
        counted."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        for attempt in range(SETUP_RETRIES + 1):
            reply = await self.http_(index).post(path, json=body, headers=headers)
            if reply.status_code == expected:
                answer: dict[str, Any] = reply.json()
                return answer
            if reply.status_code != 503 or attempt == SETUP_RETRIES:
                raise RuntimeError(f"POST {path} through process {index % len(self.ports) + 1}"
                                   f": {reply.status_code} {reply.text}")
            self.stats.retried += 1
            await asyncio.sleep(0.5 * (attempt + 1))
        raise AssertionError("unreachable")

    async def new_table(self, slot: Slot) -> None:
        """A table created and started through one process (the processes take turns,
        table after table and game after game), each seat taken through the process its
        client plays on."""
        through = slot.number + slot.games
        slot.games += 1
        host = slot.seats[0].token
        reply = await self.post(through, "/api/tables", host, {
            "name": f"load {slot.number}", "seats": SEATS, "day_seconds": 30,
            "night_seconds": 15}, 201)
        slot.table_id = reply["id"]
        for seat in slot.seats:
            reply = await self.post(seat.index, f"/api/tables/{slot.table_id}/seats",
                                    seat.token, {}, 200)
            seat.seat = reply["seat"]
        await self.post(through, f"/api/tables/{slot.table_id}/start", host, {}, 200)

    async def connect(self, slot: Slot) -> None:
        for seat in slot.seats:
            if self.kind == "trusis":
                seat.bot = create_bot("heuristic", seat.seat, random.randrange(1 << 30))
                seat.view, seat.news, seat.pending = None, [], None
                seat.phase, seat.waits, seat.acted, seat.force_pass = ("", 0), 0, 0, False
                seat.ws = await websockets.connect(
                    f"ws://{HOST}:{self.port_(seat.index)}/ws/tables/{slot.table_id}",
                    max_size=None, ping_interval=None,  # as a browser: no pings of its own
                    compression=COMPRESSION, create_connection=CountingConnection,
                    additional_headers={"Authorization": f"Bearer {seat.token}"})
                await seat.ws.send(orjson.dumps({"type": "hello", "protocol": 1}).decode())
            else:
                seat.ws = await websockets.connect(
                    f"ws://{HOST}:{self.port_(seat.index)}/ws/{slot.table_id}",
                    max_size=None, ping_interval=None, create_connection=CountingConnection,
                    compression=COMPRESSION)
            slot.tasks.append(asyncio.create_task(self.read(seat)))

    async def restart(self, slot: Slot) -> None:
        """A new game on this table: a new table for the same ten clients."""
        await asyncio.sleep(0.05)
        for seat in slot.seats:
            if seat.ws is not None:
                await seat.ws.close()
        slot.tasks = []
        slot.inflight = {}
        try:
            await self.new_table(slot)
            await self.connect(slot)
        except Exception as err:
            self.stats.errors += 1
            self.stats.error = self.stats.error or f"a new game's set-up: {err!r}"[:300]
            return
        slot.restarting = False
        if self.acting:
            for seat in slot.seats:
                self.act(seat)

    # -- reading ------------------------------------------------------------

    async def read(self, seat: Seat) -> None:
        ws = seat.ws
        assert ws is not None
        try:
            async for frame in ws:
                self.take(seat, frame)
        except websockets.ConnectionClosed:
            pass
        except Exception as err:
            self.stats.errors += 1
            self.stats.error = self.stats.error or f"reading: {err!r}"[:300]

    def take(self, seat: Seat, frame: str | bytes) -> None:
        now = time.perf_counter()
        stats = self.stats
        message = orjson.loads(frame)
        seat.heard = now
        if self.window:
            stats.frames += 1
            stats.bytes += len(frame)
            if self.kind == "trusis" and message["type"] == "events":
                text = frame if isinstance(frame, str) else frame.decode()
                stats.sample = stats.sample or text
                stream = stats.streams.get(id(seat))
                if stream is None and len(stats.streams) < STREAMS:
                    stream = stats.streams[id(seat)] = []
                if stream is not None and len(stream) < STREAM_FRAMES:
                    stream.append(text)
        if self.kind == "bare":
            self.take_bare(seat, message, now)
            return
        kind = message["type"]
        if kind in ("snapshot", "events"):
            seat.view = message["view"]
            events = message.get("events", [])
            if kind == "snapshot":
                seat.news = list(events)
            else:
                seat.news.extend(events)
                if self.window:
                    self.broadcast_samples(seat, events, now)
            if seat.view["status"] == "finished":
                slot = seat.slot
                if self.acting and not slot.restarting and seat.index == 0:
                    slot.restarting = True
                    stats.games += 1
                    task = asyncio.get_running_loop().create_task(self.restart(slot))
                    self.restarts.add(task)
                    task.add_done_callback(self.restarts.discard)
                return
            self.act(seat)
        elif kind in ("ack", "refused") and message["id"] == seat.pending:
            if self.window:
                stats.acks.append(now - seat.sent_at)
                stats.acks_by.setdefault(seat.sent_do, []).append(now - seat.sent_at)
                if kind == "ack":
                    stats.acked += 1
                else:
                    stats.refused += 1
            seat.pending = None
            if kind == "refused":
                seat.force_pass = True  # as the bot driver does: a refused bot passes
            self.act(seat)

    def broadcast_samples(self, seat: Seat, events: list[dict[str, Any]], now: float) -> None:
        inflight = seat.slot.inflight
        for event in events:
            causes = CAUSES.get(event["code"])
            if causes is None or event["params"].get("auto"):
                continue
            params = event["params"]
            actor = params.get("voter", params.get("seat"))
            sent = inflight.get(actor) if actor != seat.seat else None
            if sent is not None and sent[1] in causes and seat.seat not in sent[2]:
                sent[2].add(seat.seat)
                self.stats.broadcasts.append(now - sent[0])

    # -- acting -------------------------------------------------------------

    def act(self, seat: Seat) -> None:
        """The bot's next command for this seat, if it may act and has none in flight."""
        if not self.acting or seat.pending is not None or seat.view is None or \
                seat.ws is None or seat.slot.restarting:
            return
        view = seat.view
        if view["status"] != "running":
            return
        me = view["players"][seat.seat - 1]
        if not me["alive"] or me["passed"] or me["left"] or not self.thinks(seat):
            return
        phase = (view["phase"]["kind"], view["phase"]["number"])
        if phase != seat.phase:
            seat.phase, seat.waits, seat.acted, seat.force_pass = phase, 0, 0, False
        command: dict[str, Any]
        if seat.force_pass or seat.acted >= 12:
            command = {"do": "pass"}
        else:
            assert seat.bot is not None
            seat.bot.observe(view, seat.news)
            seat.news = []
            action = seat.bot.act()
            if action is None:
                seat.waits += 1
                if seat.waits < PATIENCE:
                    if seat.retry is None:
                        seat.retry = asyncio.get_running_loop().call_later(
                            0.3, self._retry, seat)
                    return
                command = {"do": "pass"}
            else:
                command = {"do": action.do}
                if action.do not in ("pass", "say", "leave"):
                    command["target"] = action.target
                if action.do == "illusion" and action.target is not None:
                    command["shown"] = action.shown
                if action.do == "say":
                    command["text"] = action.text
                    if action.to is not None:
                        command["to"] = action.to
        seat.acted += 1
        self.send(seat, command)

    def thinks(self, seat: Seat) -> bool:
        """--think: whether the seat has had its pause before this command (a pause of
        random length, the given mean, exponential) — then it decides on the view it has."""
        if self.think <= 0:
            return True
        if seat.thought:
            seat.thought = False
            return True
        if not seat.thinking:
            seat.thinking = True
            asyncio.get_running_loop().call_later(random.expovariate(1 / self.think),
                                                  self._thought, seat)
        return False

    def _thought(self, seat: Seat) -> None:
        seat.thinking = False
        seat.thought = True
        if self.kind == "bare":
            self.act_bare(seat)
        else:
            self.act(seat)

    def _retry(self, seat: Seat) -> None:
        seat.retry = None
        self.act(seat)

    def send(self, seat: Seat, command: dict[str, Any]) -> None:
        seat.count += 1
        client_id = f"{seat.slot.number}:{seat.seat}:{seat.count}"
        seat.pending = client_id
        seat.sent_at = time.perf_counter()
        seat.sent_do = command["do"]
        seat.slot.inflight[seat.seat] = (seat.sent_at, command["do"], set())
        data = orjson.dumps({"type": "act", "id": client_id, "action": command}).decode()
        assert seat.ws is not None
        asyncio.get_running_loop().create_task(self._send(seat.ws, data))

    async def _send(self, ws: ClientConnection, data: str) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.send(data)

    # -- the bare server: one message in flight per client, no thinking --------

    def take_bare(self, seat: Seat, message: dict[str, Any], now: float) -> None:
        client_id = message["id"]
        if client_id == seat.pending:
            if self.window:
                self.stats.acks.append(now - seat.sent_at)
                self.stats.acked += 1
            seat.pending = None
            self.act_bare(seat)
            return
        sent = self.sent.get(client_id)
        if sent is None:
            return
        if self.window:
            self.stats.broadcasts.append(now - sent[0])
        sent[1] += 1
        if sent[1] >= SEATS - 1:
            del self.sent[client_id]

    def act_bare(self, seat: Seat) -> None:
        if not self.acting or seat.ws is None or not self.thinks(seat):
            return
        seat.count += 1
        client_id = f"{seat.slot.number}:{seat.seat}:{seat.count}"
        seat.pending = client_id
        seat.sent_at = time.perf_counter()
        self.sent[client_id] = [seat.sent_at, 0]
        target = (seat.seat + seat.count) % SEATS + 1
        data = orjson.dumps({"type": "act", "id": client_id,
                             "action": {"do": "vote", "target": target}}).decode()
        asyncio.get_running_loop().create_task(self._send(seat.ws, data))

    # -- the run --------------------------------------------------------------

    async def page_pings(self) -> None:
        """What the page does (web/net.js): a `ping` message from a connection that has
        heard nothing for PAGE_PING seconds. A browser sends no WebSocket pings of its own;
        the bench's clients used to, every 20 s each (websockets' default): at 1,000 tables
        500 pings a second that no browser sends, a write and a pong each in the server."""
        ping = orjson.dumps({"type": "ping"}).decode()
        tick = 0
        while True:
            # Each page looks once a second from when its socket opened (a `setInterval`),
            # so pages look at different moments: one look at every seat each second sent
            # the pings of every seat silent since the same moment at once, thousands
            # every 6 s at 1,000 tables, and the server's loop was up to 300 ms late
            # answering them (issue 39).
            await asyncio.sleep(1.0 / BEATS)
            tick = (tick + 1) % BEATS
            now = time.perf_counter()
            for slot in self.slots:
                for seat in slot.seats:
                    if seat.beat == tick and seat.ws is not None \
                            and now - seat.heard >= PAGE_PING:
                        seat.heard = now  # the page waits for the pong before asking again
                        asyncio.get_running_loop().create_task(self._send(seat.ws, ping))

    async def probe_lag(self) -> None:
        while True:
            asked = time.perf_counter()
            await asyncio.sleep(0.01)
            self.stats.lag.append(time.perf_counter() - asked - 0.01)

    async def main(self, barrier: Barrier) -> dict[str, Any]:
        await self.setup()
        await asyncio.to_thread(barrier.wait)  # every process is set up
        # The clients are the instrument: a collection here stopped this process's loop for
        # up to 386 ms at 500 paced tables, and every frame that came meanwhile was timed
        # late. What set-up made is frozen, and nothing is collected until the window ends.
        gc.collect()
        gc.freeze()
        gc.disable()
        self.acting = self.window = True
        probe = asyncio.create_task(self.probe_lag())
        pings = asyncio.create_task(self.page_pings()) if self.kind == "trusis" else None
        for slot in self.slots:
            for seat in slot.seats:
                if self.kind == "bare":
                    self.act_bare(seat)
                else:
                    self.act(seat)
        if self.warmup > 0:  # every client starts at once, each with its first move to
            # make: the window begins once they are spread as a steady pace spreads them,
            # and what the start cost is kept apart (`warm`)
            await asyncio.sleep(self.warmup)
            self.warm, self.stats = self.stats, self.stats.for_window()
            await asyncio.to_thread(barrier.wait)  # the window begins everywhere
        cpu = time.process_time()
        wire = read_bytes()
        start = time.perf_counter()
        await asyncio.sleep(self.seconds)
        self.window = False
        self.acting = False
        probe.cancel()
        if pings is not None:
            pings.cancel()
        gc.enable()
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu
        wire = read_bytes() - wire
        await asyncio.to_thread(barrier.wait)  # the window is over everywhere
        for task in list(self.restarts):
            task.cancel()
        await asyncio.gather(*self.restarts, return_exceptions=True)
        for slot in self.slots:
            for seat in slot.seats:
                if seat.ws is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(seat.ws.close(), 5)
        for http in self.https:
            await http.aclose()
        stats = self.stats
        return {"acks": stats.acks, "acks_by": stats.acks_by, "broadcasts": stats.broadcasts,
                "acked": stats.acked,
                "refused": stats.refused, "frames": stats.frames, "bytes": stats.bytes,
                "games": stats.games, "errors": stats.errors, "error": stats.error,
                "retried": stats.retried,
                "lost_tables": stats.lost_tables, "lost_reason": stats.lost_reason,
                "elapsed": elapsed, "cpu": cpu, "wire": wire,
                "sample": stats.sample, "lag": stats.lag,
                "streams": list(stats.streams.values()),
                "warm_acks": self.warm.acks if self.warm is not None else [],
                "warm_broadcasts": self.warm.broadcasts if self.warm is not None else []}


def client_process(kind: str, ports: list[int], slots: list[int], seconds: float,
                   think: float, barrier: Barrier, results: Any, warmup: float = 0.0) -> None:
    try:
        results.put(asyncio.run(ClientRun(kind, ports, slots, seconds, think,
                                          warmup).main(barrier)))
    except BaseException as err:  # tell the parent rather than leave it at the barrier
        barrier.abort()
        results.put({"error": repr(err)})


