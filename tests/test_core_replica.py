"""A follower's copy of a game, in-process (server/cluster/replica.py): a second `Room`
for the same stored table applies the actions its owner announces, notices a gap,
catches up from the stored rows, and shows every seat the same bytes as the owner.
With the fakes of tests/core_fakes.py; the bus between the two is a list of the typed
messages (cluster/messages.py) the owner's `Writer` peers publish."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core_fakes import (
    FakeClient,
    FakeClock,
    FlakyStore,
    Game,
    act,
    connect,
    due,
    fake_client,
    hosted,
    load_follower,
    make_writer,
    new_game,
    node_catch_up,
    quiet,
    view_bytes,
    view_json,
)
from trusis.rules.actions import LEAVE, PASS, SAY, Action
from trusis.server.cluster.messages import Actions, Message, TableFacts
from trusis.server.cluster.replica import apply_facts, follow, follow_rows
from trusis.server.data.store import LeaseLost
from trusis.server.tables.hub import Hub
from trusis.server.tables.restore import load_room
from trusis.server.tables.room import Room

SEATS = (None, 1, 2, 3, 4, 5)


async def play_a_while(game: Game, steps: int) -> None:
    """People talk and pass, bots think, timers run out: many kinds of actions."""
    hub, room, clock = game.hub, game.room, game.clock
    await act(hub, room, game.client(1), "a1", do=SAY, text="hello")
    await act(hub, room, game.client(2), "b1", do=SAY, text="secret", to=1)
    for step in range(steps):
        if room.host is None or not hosted(room).table.state.running:
            return
        clock.advance(25)
        await due(room, clock.now)
        if step % 3 == 0 and hosted(room).table.state.kind == "day":  # R12: the timer ends nights
            for seat in (1, 2):
                await act(hub, room, game.client(seat), f"p{step}.{seat}", do=PASS)


@pytest.mark.asyncio
async def test_a_follower_applies_announced_actions_catches_up_a_gap_and_matches_the_owner(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """cluster/replica.py: the owner announces each stored action; a follower applies
    them to its own table; one announcement lost makes the next one a gap (`follow` is
    False and applies nothing); the stored rows fill it; announcements it already has
    change nothing. Then every seat's view and stream is the owner's, byte for byte,
    and the follower's clients hold what the owner's hold. A follower never applies a
    command itself (it forwards: `LeaseLost`)."""
    game = await new_game(core_store, core_clock)
    owner = game.room
    announced: list[Message] = []
    make_writer(owner, announced.append)
    follower = await load_follower(core_store, owner.id)
    mirrors: dict[int | None, FakeClient] = {}
    for seat in (1, 2, None):
        player = game.people.get(seat) if seat is not None else None
        mirrors[seat] = fake_client(player, seat)
        await connect(follower, mirrors[seat])
    await play_a_while(game, 16)
    assert owner.host is not None and follower.host is not None
    actions = [m for m in announced if isinstance(m, Actions)]
    assert len(actions) >= 10
    assert sum(len(m.entries) for m in actions) == len(hosted(owner).table.record.actions) - \
        len(hosted(follower).table.record.actions)
    lost = len(actions) // 2
    for message in actions[:lost]:
        assert follow(follower, message.first, message.entries, message.deadline)
    have = len(hosted(follower).table.record.actions)
    gap = actions[lost + 1]
    assert not follow(follower, gap.first, gap.entries, gap.deadline)
    assert len(hosted(follower).table.record.actions) == have
    stored = await core_store.table_row(owner.id)
    assert stored is not None
    follow_rows(follower, await core_store.action_rows_after(owner.id, have), stored["deadline"])
    for message in actions[lost:]:  # late or repeated announcements: nothing twice
        assert follow(follower, message.first, message.entries, message.deadline)
    assert hosted(follower).table.record.actions == hosted(owner).table.record.actions
    assert hosted(follower).table.record.times == hosted(owner).table.record.times
    assert (hosted(follower).deadline, follower.status) == (hosted(owner).deadline, owner.status)
    for seat in SEATS:
        assert view_bytes(hosted(follower).table, seat) == view_bytes(hosted(owner).table, seat)
        assert hosted(follower).table.events_after(seat, 0) == \
            hosted(owner).table.events_after(seat, 0)
    for seat, mirror in mirrors.items():
        assert mirror.events() == game.client(seat).events()
        assert mirror.last_view() == game.client(seat).last_view() == \
            view_json(hosted(owner).table, seat)
        assert mirror.seq == game.client(seat).seq
    with pytest.raises(LeaseLost):
        await hosted(follower).submit(Action(SAY, 1, text="here"), game.people[1].id, "f1")
    assert len(await core_store.action_rows(owner.id)) == len(hosted(owner).table.record.actions)


@pytest.mark.asyncio
async def test_a_follower_that_takes_over_reads_the_stored_game(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """The owner lost its lease (a failed append: `LeaseLost`) while a follower's copy
    lagged behind: the old owner now follows the stored game, and a copy read back from
    the store (as the process taking the lease over does) is the same game, seat by seat."""
    game = await new_game(core_store, core_clock)
    await play_a_while(game, 3)
    owner: Room = game.room
    make_writer(owner, lambda _message: None, fenced=True)
    core_store.fail_next("lease_lost")
    with pytest.raises(LeaseLost):
        await hosted(owner).submit(Action(SAY, 1, text="lost"), game.people[1].id, "x1")
    row = await core_store.table_row(owner.id)
    assert row is not None
    taken = await load_room(core_store, row, 1.0)
    assert owner.host is not None and taken.host is not None
    assert hosted(owner).table.record.actions == hosted(taken).table.record.actions
    for seat in SEATS:
        assert view_bytes(hosted(owner).table, seat) == view_bytes(hosted(taken).table, seat)
    assert (hosted(owner).deadline, owner.status) == (hosted(taken).deadline, taken.status)


class Bus:
    """The owner's announcements, as its `Writer` peers publish them (cluster/writer.py:
    a `TableFacts` carries the lobby facts at the moment it is announced), delivered to a
    follower as node.py's listener does, with node.py's catch-up from the store."""

    def __init__(self, owner: Room) -> None:
        self.messages: list[Message] = []
        make_writer(owner, self.publish)

    def publish(self, message: Message) -> None:
        self.messages.append(message)

    async def deliver(self, follower: Room) -> int:
        """Every message so far, in order; how many needed the store."""
        caught = 0
        messages, self.messages = self.messages, []
        for message in messages:
            if isinstance(message, Actions):
                behind = not follow(follower, message.first, message.entries,
                                    message.deadline)
            else:
                assert isinstance(message, TableFacts)
                behind = apply_facts(follower, message)
            if behind:
                caught += 1
                await node_catch_up(follower)
        return caught


def lobby(room: Room, player_id: str | None) -> dict[str, Any]:
    """The lobby's table as `player_id` sees it, but its creation time (see the report:
    the owner's is its memory's, a follower's the store's, a few microseconds later)."""
    info = room.info(player_id)
    del info["created_at"]
    return info


@pytest.mark.asyncio
async def test_a_follower_from_the_lobby_follows_the_start_and_a_hand_over(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """cluster/replica.py `apply_facts`: a follower that holds the open table learns of
    the start from the lobby facts (stale: it reads the game from the store, and its
    clients get their seats' first views), then follows the game and the grace period's
    host's hand-over of a departed seat to a bot (R53): its seats, lobby and views are
    the owner's, and the person whose seat a bot took watches on the follower too."""
    game = await new_game(core_store, core_clock, start=False)
    owner = game.room
    bus = Bus(owner)
    follower = await load_follower(core_store, owner.id)
    assert follower.host is None
    mirrors = {seat: fake_client(game.people[seat], seat) for seat in (1, 2)}
    for mirror in mirrors.values():
        await connect(follower, mirror)
    await game.hub.start(owner, game.host)
    await hosted(owner).stop()
    quiet(owner)
    assert await bus.deliver(follower) == 1  # the start: read from the store
    assert follower.host is not None and owner.host is not None
    for seat, mirror in mirrors.items():
        assert mirror.of_type("snapshot")[-1]["view"] == hosted(owner).table.snapshot(seat)
    await play_a_while(game, 2)
    leave = await act(game.hub, owner, game.client(2), "bye", do=LEAVE)  # D31, on purpose
    assert leave["type"] == "ack"
    assert await game.hub.replace(owner, game.host, 2, "bot", "heuristic") is None  # R53
    assert owner.lobby.seats[2].kind == "bot"
    assert await bus.deliver(follower) == 0
    quiet(follower)
    assert follower.lobby.seats == owner.lobby.seats and follower.lobby.former == owner.lobby.former
    for player_id in (game.host.id, game.people[2].id, None):
        assert lobby(follower, player_id) == lobby(owner, player_id)
    for seat in SEATS:
        assert view_bytes(hosted(follower).table, seat) == view_bytes(hosted(owner).table, seat)
    assert mirrors[2].seat is None  # Bob's connection there: his seat is the bot's now
    assert mirrors[2].of_type("snapshot")[-1]["view"] == hosted(owner).table.snapshot(None)
    assert mirrors[1].last_view() == game.client(1).last_view() == view_json(hosted(owner).table, 1)


@pytest.mark.asyncio
async def test_a_follower_tells_a_player_who_left_on_purpose_what_the_owner_does(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """D31, cluster/replica.py: after Bob's own `leave`, the lobby's table says the same to
    Bob on the owner and on a follower: his seat is `left`, not `grace`."""
    game = await new_game(core_store, core_clock)
    owner = game.room
    bus = Bus(owner)
    follower = await load_follower(core_store, owner.id)
    leave = await act(game.hub, owner, game.client(2), "bye", do=LEAVE)
    assert leave["type"] == "ack" and owner.lobby.quit == {2}
    await bus.deliver(follower)
    quiet(follower)
    bob = game.people[2].id
    assert lobby(owner, bob)["seats"][1]["yours_away"] == "left"
    assert lobby(follower, bob)["seats"][1]["yours_away"] == "left"
    assert lobby(follower, bob) == lobby(owner, bob)


@pytest.mark.asyncio
async def test_a_lost_lease_reseats_the_connections_to_the_stored_seats(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R53, D18, D31: while this process (A) still thought it owned the game, the new
    owner (B) gave Bob's departed seat to Carl. When A finds its lease lost it reads the
    stored game back; Bob's connection on A must then watch (seat None) and never read
    what only seat 2 may: a whisper to Carl."""
    game = await new_game(core_store, core_clock)
    a, bob = game.room, game.client(2)
    assert (await act(game.hub, a, bob, "bye", do=LEAVE))["type"] == "ack"  # D31
    make_writer(a, lambda _message: None, fenced=True)  # A writes under its lease
    row = await core_store.table_row(a.id)
    assert row is not None
    hub_b = Hub(core_store)
    b = await load_room(core_store, row, 1.0)  # B takes the lease over and reads the game
    bus = Bus(b)
    code = await hub_b.replace(b, game.host, 2, "person", "")
    assert code is not None
    carl = await core_store.new_player("Carl", "guest")
    assert await hub_b.claim(b, carl, code) == 2
    bus.messages.clear()  # heard by A while it owned the game: node.py drops them
    core_store.fail_next("lease_lost")
    with pytest.raises(LeaseLost):
        await act(game.hub, a, game.client(1), "a1", do=SAY, text="too late")
    assert a.lobby.seats[2].player_id == carl.id  # the stored seats
    assert a.host is not None and bob.seat is None  # reseated at once: Bob watches
    assert bob.of_type("snapshot")[-1]["view"] == hosted(a).table.snapshot(None)
    assert game.client(1).seq == hosted(a).table.stream_length(1)  # caught up with the stored game
    ann_on_b = fake_client(game.people[1], 1)
    await connect(b, ann_on_b)
    quiet(b)
    whisper = await act(hub_b, b, ann_on_b, "w1", do=SAY, text="for Carl", to=2)
    assert whisper["type"] == "ack"
    await bus.deliver(a)
    quiet(a)
    assert a.host is not None and b.host is not None
    assert view_bytes(hosted(a).table, 2) == view_bytes(hosted(b).table, 2)
    assert "for Carl" not in str(bob.frames)
    assert bob.seat is None


@pytest.mark.asyncio
async def test_a_follower_that_missed_a_hand_over_catches_up_the_seats_too(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R53, D18: the bus lost the messages of a claim (Carl takes Bob's departed seat);
    the next action shows the follower a gap, and catching up from the store must
    bring the seats with the actions: Bob's connection there watches, and never reads a
    whisper to Carl."""
    game = await new_game(core_store, core_clock)
    owner = game.room
    bus = Bus(owner)
    follower = await load_follower(core_store, owner.id)
    bob_there = fake_client(game.people[2], 2)
    await connect(follower, bob_there)
    assert (await act(game.hub, owner, game.client(2), "bye", do=LEAVE))["type"] == "ack"
    assert await bus.deliver(follower) == 0
    code = await game.hub.replace(owner, game.host, 2, "person", "")
    assert code is not None
    carl = await core_store.new_player("Carl", "guest")
    assert await game.hub.claim(owner, carl, code) == 2
    bus.messages.clear()  # lost on the way (a reconnection of the bus)
    whisper = await act(game.hub, owner, game.client(1), "w1", do=SAY, text="for Carl", to=2)
    assert whisper["type"] == "ack"
    assert await bus.deliver(follower) == 1  # a gap: caught up from the store
    quiet(follower)
    assert follower.host is not None and owner.host is not None
    assert hosted(follower).table.record.actions == hosted(owner).table.record.actions
    assert "for Carl" not in str(bob_there.frames)
    assert follower.lobby.seats == owner.lobby.seats and bob_there.seat is None


@pytest.mark.asyncio
async def test_a_follower_keeps_the_owners_newer_seats_over_a_slower_read_of_the_store(
        core_store: FlakyStore, core_clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """node.py `catch_up` re-reads an open table from the store about once a second; the
    owner's lobby facts come meanwhile over the bus or with a forwarded reply. A trial on
    a loaded machine met a read that began before a seat changed and ended after the
    owner's facts said so: the follower showed the older seats (5 taken of 6 just after a
    bot was added there). A read that began before the newest facts is left alone."""
    game = await new_game(core_store, core_clock, start=False)
    owner = game.room
    bus = Bus(owner)
    follower = await load_follower(core_store, owner.id)
    await game.hub.stand(owner, game.people[2])  # the store and the owner: seat 2 is free
    assert await bus.deliver(follower) == 0
    assert 2 not in follower.lobby.seats
    gate = asyncio.Event()
    read_seats = core_store.seat_rows_of

    async def slow_read(ids: list[str]) -> Any:
        rows = await read_seats(ids)  # read now: the store without Bob
        await gate.wait()  # ... and answered late
        return rows

    monkeypatch.setattr(core_store, "seat_rows_of", slow_read)
    reading = asyncio.create_task(node_catch_up(follower))
    await asyncio.sleep(0.05)
    monkeypatch.setattr(core_store, "seat_rows_of", read_seats)
    assert await game.hub.sit(owner, game.people[2], 2) == 2  # Bob sits again
    assert await bus.deliver(follower) == 0
    assert follower.lobby.seats[2].player_id == game.people[2].id
    gate.set()
    await reading
    assert follower.lobby.seats == owner.lobby.seats
