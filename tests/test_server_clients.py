"""A client's send queue: a client that is behind gets no view that is already out of date."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import orjson
import pytest

from trusis.server.connections import clients
from trusis.server.connections.clients import QUEUE_LIMIT, Client
from trusis.server.limits.settings import Limits


class SlowSocket:
    """Stands for a WebSocket whose sends wait until the test lets them through."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.gate = asyncio.Event()

    async def send_text(self, text: str) -> None:
        await self.gate.wait()
        self.sent.append(json.loads(text))

    async def close(self, code: int = 1000, reason: str = "") -> None:
        pass


def events(*numbers: int) -> bytes:
    """Events as `Table.events_json` gives them: their JSON objects joined by commas."""
    return b",".join(orjson.dumps({"seq": n, "code": "passed", "params": {"seat": n}})
                     for n in numbers)


def clock(now: float) -> bytes:
    return orjson.dumps({"now": now})


def test_events_waiting_side_by_side_become_one_message_with_every_event_and_the_last_view(
        ) -> None:
    async def run() -> list[dict[str, Any]]:
        socket = SlowSocket()
        client = Client(socket, "p", "Ann", 1)  # type: ignore[arg-type]
        client.send_events(1, events(1), orjson.dumps({"seq": 1}), clock(1.0))
        await asyncio.sleep(0)  # the writer takes the first one and waits on the network
        client.send_events(2, events(2), orjson.dumps({"seq": 2}), clock(2.0))
        client.send_events(4, events(3, 4), orjson.dumps({"seq": 4}), clock(3.0))
        client.send(b'{"type": "ack", "id": "c1", "seq": 4}')
        client.send_events(5, events(5), orjson.dumps({"seq": 5}), clock(4.0))
        socket.gate.set()
        for _ in range(20):
            await asyncio.sleep(0)
        await client.stop()
        return socket.sent

    sent = asyncio.run(run())
    assert [m["type"] for m in sent] == ["events", "events", "ack", "events"]
    first, merged, ack, last = sent
    assert [e["seq"] for e in first["events"]] == [1] and first["view"] == {"seq": 1}
    # Waiting side by side: one message, the events of both in order, the newer view.
    assert merged["seq"] == 4 and merged["view"] == {"seq": 4} and merged["clock"]["now"] == 3.0
    assert [e["seq"] for e in merged["events"]] == [2, 3, 4]
    # Never merged across another message: the answer stays after the events it follows.
    assert ack["id"] == "c1"
    assert [e["seq"] for e in last["events"]] == [5] and last["view"] == {"seq": 5}


class Wire:
    """Stands for `transport.DirectFrames`: takes frames at once while `open`."""

    def __init__(self) -> None:
        self.open = True
        self.written: list[dict[str, Any]] = []
        self.cuts: list[int] = []

    def write(self, data: bytes) -> bool:
        if self.open:
            self.written.append(orjson.loads(data))
        return self.open

    def cut(self, code: int, reason: str) -> None:
        self.cuts.append(code)


def direct_client(socket: SlowSocket, wire: Wire) -> Client:
    return Client(socket, "p", "Ann", 1, direct=wire)  # type: ignore[arg-type]


def test_a_frame_with_nothing_queued_is_written_at_once_and_needs_no_writer_task() -> None:
    async def run() -> Client:
        wire = Wire()
        client = direct_client(SlowSocket(), wire)
        client.send_events(1, events(1), orjson.dumps({"seq": 1}), clock(1.0))
        client.send(b'{"type": "ack", "id": "c1", "seq": 1}')
        assert [m["type"] for m in wire.written] == ["events", "ack"]  # before any await
        await client.stop()
        return client

    client = asyncio.run(run())
    assert client.writer is None and not client.queue


def test_a_client_the_network_holds_back_queues_in_order_and_goes_direct_once_caught_up(
        ) -> None:
    async def run() -> tuple[SlowSocket, Wire]:
        socket, wire = SlowSocket(), Wire()
        client = direct_client(socket, wire)
        client.send_events(1, events(1), orjson.dumps({"seq": 1}), clock(1.0))
        wire.open = False  # its transport's buffer is full
        client.send_events(2, events(2), orjson.dumps({"seq": 2}), clock(2.0))
        await asyncio.sleep(0)  # the writer took it and waits for the network
        wire.open = True  # the buffer drained, but 2 is still on its way: 3 must not pass it
        client.send_events(3, events(3), orjson.dumps({"seq": 3}), clock(3.0))
        client.send_events(4, events(4), orjson.dumps({"seq": 4}), clock(4.0))
        assert [m["seq"] for m in wire.written] == [1]
        socket.gate.set()
        for _ in range(20):
            await asyncio.sleep(0)
        client.send_events(5, events(5), orjson.dumps({"seq": 5}), clock(5.0))
        await client.stop()
        return socket, wire

    socket, wire = asyncio.run(run())
    # 2 went through the queue; 3 and 4 queued behind it (and became one message).
    assert [m["seq"] for m in socket.sent] == [2, 4]
    assert [e["seq"] for e in socket.sent[1]["events"]] == [3, 4]
    # Caught up: direct again.
    assert [m["seq"] for m in wire.written] == [1, 5]


def test_a_goodbye_leaves_after_what_was_written_directly() -> None:
    async def run() -> tuple[SlowSocket, Wire, Client]:
        socket, wire = SlowSocket(), Wire()
        socket.gate.set()
        client = direct_client(socket, wire)
        client.send(b'{"type": "pong", "now": 1}')
        client.shut(4001, "signed out")
        client.send(b'{"type": "pong", "now": 2}')  # after the goodbye: never sent
        await client.stop()
        return socket, wire, client

    socket, wire, client = asyncio.run(run())
    assert [m["now"] for m in wire.written] == [1] and socket.sent == []
    assert client.closed and client.writer is not None and client.writer.done()


def pong(now: int) -> bytes:
    return b'{"type": "pong", "now": %d}' % now


def test_a_client_whose_queue_overflows_is_cut_at_once_and_keeps_nothing() -> None:
    """The goodbye used to be queued behind the 500 frames, for a network that took none
    of them: now the queue is dropped and the connection closed without waiting."""
    async def run() -> tuple[Client, Wire]:
        socket, wire = SlowSocket(), Wire()
        client = direct_client(socket, wire)
        wire.open = False  # its transport's buffer is full, and stays so
        for n in range(QUEUE_LIMIT + 1):
            client.send(pong(n))
        assert client.closed and wire.cuts == [1013]  # at once, before any await
        assert client.queue == [] and client.queued_bytes == 0 and client.writer is None
        client.send(pong(0))  # after the cut: nothing
        await client.stop()
        return client, wire

    client, wire = asyncio.run(run())
    assert client.queue == [] and wire.cuts == [1013]


def test_a_client_is_cut_once_its_queue_holds_too_many_bytes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clients, "LIMITS", Limits(send_queue_bytes=10_000))

    async def run() -> tuple[Client, Wire]:
        socket, wire = SlowSocket(), Wire()
        client = direct_client(socket, wire)
        wire.open = False
        big = b'{"type": "pong", "pad": "%b"}' % (b" " * 4000)
        client.send(big * 3)  # one message may always wait, whatever its size
        assert not client.closed and client.queued_bytes == len(big) * 3
        client.send(pong(1))
        assert client.closed and wire.cuts == [1013] and client.queued_bytes == 0
        await client.stop()
        return client, wire

    asyncio.run(run())


def test_merged_events_count_against_the_bound_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that never reads a running game's events gets them all folded into one
    message: its size, not only the count of messages, is bounded."""
    monkeypatch.setattr(clients, "LIMITS", Limits(send_queue_bytes=5_000))

    async def run() -> Wire:
        socket, wire = SlowSocket(), Wire()
        client = direct_client(socket, wire)
        wire.open = False
        seq = 0
        while not client.closed and seq < 1000:
            seq += 1
            client.send_events(seq, events(seq), orjson.dumps({"seq": seq}), clock(seq))
        assert client.closed and len(client.queue) == 0 and seq < 200
        await client.stop()
        return wire

    assert asyncio.run(run()).cuts == [1013]


def test_a_table_message_waiting_is_replaced_by_the_next() -> None:
    """`table` is the lobby's state whole: a client that is behind gets the newest one,
    once, after what was queued before it, and nothing else changes order."""
    async def run() -> SlowSocket:
        socket, wire = SlowSocket(), Wire()
        client = direct_client(socket, wire)
        wire.open = False
        for n in range(1, 6):
            client.send_table(orjson.dumps({"type": "table", "table": {"n": n}}))
            client.send(pong(n))
        assert len(client.queue) == 6  # 5 pongs and the last table
        assert client.queued_bytes == sum(len(m) for m in client.queue
                                          if isinstance(m, bytes)) + len(
            orjson.dumps({"type": "table", "table": {"n": 5}}))
        socket.gate.set()
        for _ in range(30):
            await asyncio.sleep(0)
        await client.stop()
        return socket

    sent = asyncio.run(run()).sent
    assert [(m["type"], m.get("now", m.get("table", {}).get("n"))) for m in sent] == [
        ("pong", 1), ("pong", 2), ("pong", 3), ("pong", 4), ("table", 5), ("pong", 5)]


def test_a_client_whose_socket_takes_nothing_for_too_long_is_cut(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 1 s, with a look at 0.1 s: with 0.05 s and a look at 0.02 s, a loaded machine's late
    # wake-up could pass the bound before the look, and the client was cut already.
    monkeypatch.setattr(clients, "LIMITS", Limits(send_stall_seconds=1.0))

    async def run() -> tuple[Client, Wire]:
        socket, wire = SlowSocket(), Wire()
        client = direct_client(socket, wire)
        wire.open = False
        client.send(pong(1))
        await asyncio.sleep(0.1)
        assert not client.closed  # behind, not yet for too long
        await asyncio.sleep(1.5)
        assert client.closed and wire.cuts == [1013]
        await client.stop()
        return client, wire

    client, _ = asyncio.run(run())
    assert client.writer is None


def test_a_goodbye_the_network_does_not_take_is_cut_by_stop(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`stop` waits GOODBYE_SECONDS for a goodbye, then drops the connection rather than
    leave it holding what its transport could not send."""
    async def run() -> Wire:
        socket, wire = SlowSocket(), Wire()
        client = direct_client(socket, wire)
        wire.open = False
        client.send(pong(1))
        client.shut(4401, "signed out")
        await client.stop()
        return wire

    monkeypatch.setattr(clients, "GOODBYE_SECONDS", 0.05)
    assert asyncio.run(run()).cuts == [4401]
