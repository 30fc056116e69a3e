"""The game host (server/host.py) alone: its one path (apply, store, deliver) through a
fake `Delivery` that logs what it is asked, with the fakes of tests/core_fakes.py (a
store that fails on demand, a clock moved by the test) and no room, process or socket.

The host is given the stored game of a table `new_game` started (a copy of its table,
read back from the store), so that its appends continue that table's record.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from core_fakes import FakeClock, FlakyStore, Game, hosted, new_game, stored_table
from trusis.rules.actions import LEAVE, SAY, STAFF_DRAW, TIMEOUT, Action
from trusis.server.data.store import LeaseLost
from trusis.server.tables.host import GameHost
from trusis.server.tables.peers import LocalPeers, Peers, Stored


class LoggedPeers(LocalPeers):
    """A single process's peers that log what the host tells them it stored."""

    def __init__(self, log: list[str], writes: bool = True) -> None:
        super().__init__(writes)
        self.log = log

    def stored(self, stored: Stored) -> None:
        self.log.append(f"stored {stored[0]}")


@dataclass
class FakeDelivery:
    """The room, as the host sees it: each call is logged, in order."""

    log: list[str] = field(default_factory=list)
    writes: bool = True
    lost_calls: int = 0
    _peers: Peers | None = None

    @property
    def peers(self) -> Peers:
        if self._peers is None:
            self._peers = LoggedPeers(self.log, self.writes)
        return self._peers

    def push(self) -> None:
        self.log.append("push")

    def broadcast_table(self) -> None:
        self.log.append("table")

    def left_on_purpose(self, seat: int) -> None:
        self.log.append(f"left {seat}")

    async def finished(self) -> None:
        self.log.append("finished")

    async def lost(self) -> None:
        self.lost_calls += 1
        self.log.append("lost")


async def _host(game: Game, delivery: FakeDelivery) -> GameHost:
    """A host of `game`'s stored table (its own copy), delivering to `delivery`; each
    append it stores is logged there too."""
    game.store.on_stored = lambda index: delivery.log.append(f"store {index}")
    table = await stored_table(game.store, game.room.id)
    return GameHost(game.room.id, table, game.store, game.room.lobby, delivery,
                    asyncio.Lock(), hosted(game.room).deadline)


@pytest.mark.asyncio
async def test_an_action_is_stored_then_seated_then_delivered_then_announced(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """The one path's order: the store commits the action, `seated` runs (a hand-over's
    seat changes there, R53), then every client is pushed what it may see, then the
    other processes hear what was stored. A chat line moves no timed moment: no wake."""
    game = await new_game(core_store, core_clock)
    delivery = FakeDelivery()
    host = await _host(game, delivery)
    index = len(host.table.record.actions)

    async def seated() -> None:
        delivery.log.append("seated")

    outcome = await host.submit(Action(SAY, 1, text="hello"), game.people[1].id, "c1",
                                seated=seated)
    assert outcome.accepted and outcome.index == index
    assert delivery.log == [f"store {index}", "seated", "push", f"stored {index}"]
    assert not host.wake.is_set()


@pytest.mark.asyncio
async def test_a_player_s_leave_is_kept_as_left_on_purpose_and_the_lobby_is_told(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """D31: an accepted `leave` sent by its player makes the seat theirs to come back to
    (after the push and the announcement), and every client gets the lobby facts."""
    game = await new_game(core_store, core_clock)
    delivery = FakeDelivery()
    host = await _host(game, delivery)
    index = len(host.table.record.actions)
    assert (await host.submit(Action(LEAVE, 2), game.people[2].id, "b1")).accepted
    assert delivery.log == [f"store {index}", "push", f"stored {index}", "left 2", "table"]


@pytest.mark.asyncio
async def test_the_end_is_stored_without_a_deadline_then_finished_before_anyone_is_told(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """The action that ends the game (here the staff's draw, D38) is stored with no
    deadline; the room is told the game finished before any client is pushed it; the
    timers wake to stop."""
    game = await new_game(core_store, core_clock)
    delivery = FakeDelivery()
    host = await _host(game, delivery)
    index = len(host.table.record.actions)
    outcome = await host.submit(Action(STAFF_DRAW))
    assert outcome.ended and host.deadline is None
    assert delivery.log == [f"store {index}", "finished", "push", f"stored {index}", "table"]
    assert host.wake.is_set()
    row = await core_store.table_row(game.room.id)
    assert row is not None and row["deadline"] is None


@pytest.mark.asyncio
async def test_a_timeout_stores_the_next_phase_s_deadline_and_wakes_the_timers(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R12: the deadline of the phase a `timeout` begins is the host's once stored with
    it; the timers wake to wait for it."""
    game = await new_game(core_store, core_clock)
    host = await _host(game, FakeDelivery())
    assert host.deadline is not None
    core_clock.set(host.deadline + 1)
    assert (await host.submit(Action(TIMEOUT))).phase_changed
    assert host.phase_key() == "night:1"
    assert host.deadline == core_clock.now + host.phase_seconds()
    row = await core_store.table_row(game.room.id)
    assert row is not None and row["deadline"] == host.deadline
    assert host.wake.is_set()


@pytest.mark.asyncio
async def test_a_lost_lease_mid_commit_hands_the_game_to_the_room_and_delivers_nothing(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """The append found the lease gone: the host drops its bots, the room is told (its
    peers read the stored game back, room.py `lost`), the timers wake to stop, and no
    client nor process hears of the action; the deadline stays the stored one."""
    game = await new_game(core_store, core_clock)
    delivery = FakeDelivery()
    host = await _host(game, delivery)
    host.seat_bots(1, 1.0)
    deadline = host.deadline
    core_clock.advance(5)
    core_store.fail_next("lease_lost")
    with pytest.raises(LeaseLost):
        await host.submit(Action(SAY, 1, text="never stored"), game.people[1].id, "c1")
    assert delivery.log == ["lost"] and delivery.lost_calls == 1
    assert host.bots is None and host.wake.is_set() and host.deadline == deadline


@pytest.mark.asyncio
async def test_a_failed_write_rebuilds_the_table_from_the_store_and_delivers_nothing(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """An append that fails otherwise: the host's table is read back as stored (without
    the action), its bots play on that table, the deadline stays the stored one, and
    nobody is sent anything. The next action is stored at the same index."""
    game = await new_game(core_store, core_clock)
    delivery = FakeDelivery()
    host = await _host(game, delivery)
    host.seat_bots(1, 1.0)
    before, deadline = host.table, host.deadline
    index = len(before.record.actions)
    core_clock.set(host.deadline + 1 if host.deadline else core_clock.now)
    core_store.fail_next("error")
    with pytest.raises(RuntimeError):
        await host.submit(Action(TIMEOUT))
    assert host.table is not before and len(host.table.record.actions) == index
    assert host.bots is not None
    assert host.bots.table is host.table and host.bots.driver.game is host.table
    assert host.deadline == deadline and host.phase_key() == "day:1"
    assert delivery.log == []
    assert (await host.submit(Action(TIMEOUT))).index == index
    assert host.phase_key() == "night:1"


@pytest.mark.asyncio
async def test_a_host_that_does_not_write_refuses_before_applying(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """A follower's host (its peers do not write): `LeaseLost`, for the caller to forward
    the action; nothing applied, stored or delivered."""
    game = await new_game(core_store, core_clock)
    delivery = FakeDelivery(writes=False)
    host = await _host(game, delivery)
    count = len(host.table.record.actions)
    with pytest.raises(LeaseLost):
        await host.submit(Action(SAY, 1, text="forwarded"), game.people[1].id, "c1")
    assert len(host.table.record.actions) == count and delivery.log == []


@pytest.mark.asyncio
async def test_an_action_made_in_another_phase_is_refused_under_the_lock_and_not_kept(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """`stale_phase`: neither applied, stored nor delivered."""
    game = await new_game(core_store, core_clock)
    delivery = FakeDelivery()
    host = await _host(game, delivery)
    count = len(host.table.record.actions)
    outcome = await host.submit(Action(SAY, 1, text="late"), game.people[1].id, "c1",
                                made_in=("night", 3))
    assert outcome.refusal is not None and outcome.refusal.code == "stale_phase"
    assert outcome.index is None and len(host.table.record.actions) == count
    assert delivery.log == []
