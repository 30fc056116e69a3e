"""A forwarded command's deadline (issue 41): `unavailable` means not applied, always.

A command forwarded to a game's owner may wait on a stalled link and arrive much later:
the owner applies it only before its deadline (by the database's clock), stores it only
before its deadline and `STORE_SECONDS` (the commit's last statement reads the clock),
and the forwarder says `unavailable` only once nothing can store it any more — after
asking the store when the owner may have heard it. These tests drive the forwarder with
a Redis of their own making and a clock they move, and the group commits on the
machine's PostgreSQL, with no timing involved; the cut-off processes are
test_server_partitions.py's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from sqlalchemy import select

from serverproc import drop_database, new_database, postgres_available
from test_server_leases import new_table
from trusis.server.cluster import forward
from trusis.server.cluster.forward import Forwarder, OwnerUnavailable, Unsettled
from trusis.server.cluster.messages import Act, Failure, Reply
from trusis.server.config import normalise_database_url
from trusis.server.connections.protocol import ActionIn
from trusis.server.data import schema
from trusis.server.data.commits import STORE_BY, TooLate
from trusis.server.data.leases import Leases
from trusis.server.data.store import Store
from trusis.server.tables.answers import AnswerBook, CommandAnswer


@dataclass
class Clock:
    """The database's clock as a process reckons it: moved by the test."""

    now: float = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Redis:
    """A bus whose publications `heard` processes receive, and none ever answers."""

    heard: int
    sent: list[Any] = field(default_factory=list)

    async def publish(self, name: str, message: Any) -> int:
        self.sent.append(message)
        return self.heard


@dataclass
class Room:
    id: str = "t1"
    owned: bool = False
    answers: AnswerBook = field(default_factory=AnswerBook)


def say(client: str = "c1") -> Act:
    return Act(player="p1", seat=1, client=client, action=ActionIn(do="say", text="hi"),
               lang="en")


def forwarder(heard: int, clock: Clock) -> tuple[Forwarder, Redis, list[tuple[str, Reply]]]:
    bus = Redis(heard)
    posted: list[tuple[str, Reply]] = []
    return Forwarder(bus, "b#1", 0.02, lambda to, reply: posted.append((to, reply)),  # type: ignore[arg-type]
                     clock, transaction_seconds=2.0), bus, posted


async def nowhere() -> Reply:
    raise AssertionError("this process does not own the game")


@pytest.mark.asyncio
async def test_the_owner_does_not_run_a_command_that_comes_after_its_deadline() -> None:
    clock = Clock()
    ran: list[Any] = []
    owner, _, posted = forwarder(1, clock)

    async def serve(room: Any, message: Any) -> Reply:
        ran.append((message.client, STORE_BY.get()))
        return Reply(req=message.req, answer=CommandAnswer.ack(message.client))

    late = say("late").model_copy(update={"until": clock.now - 0.1, "req": "r1",
                                          "sender": "b#1"})
    fresh = say("fresh").model_copy(update={"until": clock.now + 5, "req": "r2",
                                            "sender": "b#1"})
    room = Room(owned=True)
    await owner.answer(room, late, serve)  # type: ignore[arg-type]
    await owner.answer(room, fresh, serve)  # type: ignore[arg-type]
    assert [reply.expired for _, reply in posted] == [True, False]
    # Run, and stored only until its deadline and STORE_SECONDS (the commit checks it).
    assert ran == [("fresh", clock.now + 5 + forward.STORE_SECONDS)]


@pytest.mark.asyncio
async def test_a_late_copy_of_a_command_run_here_gets_its_answer_not_expired() -> None:
    """A command is sent again while its first copy waits: a copy that comes after the
    deadline must not be answered `expired` while an earlier one is being stored (it would
    then be applied after all): it waits for that one, and gets its answer."""
    clock = Clock()
    owner, _, posted = forwarder(1, clock)
    room = Room(owned=True)
    storing: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    room.answers.pending[("p1", "c1")] = storing
    late = say("c1").model_copy(update={"until": clock.now - 1, "req": "r9",
                                        "sender": "b#1"})
    answered = asyncio.create_task(owner.answer(room, late, None))  # type: ignore[arg-type]
    await asyncio.sleep(0.05)
    assert not posted, "answered while the first copy was being stored"
    room.answers.remember("p1", "c1", CommandAnswer.ack("c1", count=7))
    del room.answers.pending[("p1", "c1")]
    storing.set_result(None)
    await answered
    reply = posted[0][1]
    assert not reply.expired and reply.answer is not None and reply.answer.type == "ack"


@pytest.mark.asyncio
async def test_a_command_never_heard_is_unavailable_and_one_heard_is_looked_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`unavailable` once nothing can store it; before that, the forwarder keeps asking.
    Heard by some process (or by nobody knows, Redis not answering), it may have been
    applied: the caller must look in the store (`Unsettled`)."""
    monkeypatch.setattr(forward, "ANSWER_SECONDS", 0.01)
    for heard, outcome in ((0, OwnerUnavailable), (1, Unsettled), (-1, Unsettled)):
        clock = Clock()
        owner, bus, _ = forwarder(heard, clock)
        task = asyncio.create_task(owner.on_owner(Room(), nowhere, say(),  # type: ignore[arg-type]
                                                  again=True))
        await asyncio.sleep(0.2)
        assert not task.done(), "it gave up before its deadline"
        sent = list(bus.sent)
        assert sent and {m.until for m in sent} == {1_000_000.0 + forward.APPLY_SECONDS}
        clock.now += owner.settled_after - 0.5
        await asyncio.sleep(0.1)
        assert not task.done(), "it gave up while a commit could still store the command"
        clock.now += 1.0
        with pytest.raises(outcome):
            await asyncio.wait_for(task, 2)


@pytest.mark.asyncio
async def test_an_expired_answer_is_unavailable_at_once() -> None:
    clock = Clock()
    owner, bus, _ = forwarder(1, clock)

    async def answer_expired() -> None:
        while not bus.sent or not owner.waiting:
            await asyncio.sleep(0.01)
        owner.heard(Reply(req=next(iter(owner.waiting)), expired=True))

    helper = asyncio.create_task(answer_expired())
    with pytest.raises(OwnerUnavailable):
        await asyncio.wait_for(owner.on_owner(Room(), nowhere, say(),  # type: ignore[arg-type]
                                              again=True), 5)
    await helper


pytestmark_pg = pytest.mark.skipif(not postgres_available(),
                                   reason="needs the machine's PostgreSQL")


@pytest_asyncio.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    url = await asyncio.to_thread(new_database, "postgresql", tmp_path)
    store = Store(normalise_database_url(url))
    await store.migrate()
    try:
        yield store
    finally:
        await store.close()
        await asyncio.to_thread(drop_database, url)


async def stored_clients(store: Store) -> list[str | None]:
    a = schema.actions
    async with store.engine.connect() as conn:
        return [r[0] for r in await conn.execute(select(a.c.client_id).order_by(a.c.idx))]


@pytestmark_pg
@pytest.mark.asyncio
async def test_a_forwarded_command_past_its_deadline_is_not_stored(store: Store) -> None:
    """The commit's last statement reads the database's clock: a command whose deadline
    has passed is not stored (`TooLate`), and the others of its group commit are."""
    leases = Leases(store, "a", 5.0)
    await new_table(store, "t1")
    await new_table(store, "t2")
    fences = {t: ("a", await leases.create(t)) for t in ("t1", "t2")}
    now = (await leases.renew(), leases.heartbeat.now())[1]

    async def append(table: str, index: int, client: str, until: float | None) -> None:
        STORE_BY.set(until)  # this task's: as forward.py sets it for a forwarded command
        await store.append(table, index, {"seat": 1, "do": "pass"}, 1.0, "p1", client,
                           None, "day:1", None, fences[table])

    results = await asyncio.gather(append("t1", 0, "on time", now + 60),
                                   append("t2", 0, "too late", now - 60),
                                   append("t1", 1, "not forwarded", None),
                                   return_exceptions=True)
    assert [type(r) for r in results] == [type(None), TooLate, type(None)]
    assert sorted(c for c in await stored_clients(store) if c) == ["not forwarded", "on time"]
    assert await store.stored_command("t1", "p1", "on time") == 0
    assert await store.stored_command("t2", "p1", "too late") is None


@pytest.mark.asyncio
async def test_a_command_that_failed_at_its_owner_runs_here_once_this_process_owns_it(
        ) -> None:
    """A forwarded command that failed at its owner may have been stored there: its sender
    waits until nothing can store it, then looks (`Unsettled`) — 18 s. But a process that
    took the game over meanwhile read the record after the last commit its former owner
    could make (the fencing number): it runs the command itself at once, as it does one
    whose answer never came, and the command's id keeps it once-only."""
    clock = Clock()
    owner, bus, _ = forwarder(1, clock)
    room = Room()

    async def fail_then_take_over() -> None:
        while not bus.sent or not owner.waiting:
            await asyncio.sleep(0.01)
        owner.heard(Reply(req=next(iter(owner.waiting)), error=Failure(
            status=500, code="server_error", params={}, message="the server could not")))
        await asyncio.sleep(0.3)
        room.owned = True  # taken over here

    async def here() -> Reply:
        return Reply(req="", answer=CommandAnswer.ack("c1", count=3))

    helper = asyncio.create_task(fail_then_take_over())
    reply = await asyncio.wait_for(owner.on_owner(room, here, say(),  # type: ignore[arg-type]
                                                  again=True), 10)
    await helper
    assert reply.answer is not None and reply.answer.type == "ack"
