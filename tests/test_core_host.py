"""The game's single writer, in-process (server/host.py `GameHost.submit`): apply, store,
deliver to every client, then the sender's ack — and what happens when the store says
no: a lost lease (the room follows the stored game) or a failed write (the room is
rebuilt from the store). With the fakes of tests/core_fakes.py: no process, no socket,
no sleep."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from core_fakes import (
    FakeClock,
    FlakyStore,
    Game,
    act,
    connect,
    disconnect,
    due,
    fake_client,
    hosted,
    make_writer,
    new_game,
    stored_actions,
    stored_table,
    view_bytes,
    view_json,
)
from trusis.rules.actions import PASS, SAY, TIMEOUT, Action
from trusis.server.cluster.messages import Message
from trusis.server.cluster.replica import Replica
from trusis.server.data import schema
from trusis.server.data.store import LeaseLost
from trusis.server.tables.restore import load_room

SEATS = (None, 1, 2, 3, 4, 5)


@pytest.mark.asyncio
async def test_an_action_is_stored_then_each_client_gets_its_own_view_then_the_ack(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """The single writer's order (room.py): the store commits the action, then every
    client gets what its own seat may see (its events and its view), and only then
    does the sender get its `ack`, whose `seq` is its stream number after them."""
    game = await new_game(core_store, core_clock)
    ann, bob, watcher = game.client(1), game.client(2), game.client(None)
    before = len(game.table.record.actions)
    game.wire.clear()
    ack = await act(game.hub, game.room, ann, "c1", do=SAY, text="hello all")
    assert ack["type"] == "ack" and ack["id"] == "c1"
    order = [who for who, _ in game.wire.log]
    assert order[0] == "store" and order[-1] == "Ann"
    assert sorted(order[1:-1]) == ["Ann", "Bob", "spectator"]
    assert game.wire.log[-1][1] is ack
    for client, seat in ((ann, 1), (bob, 2), (watcher, None)):
        events = client.of_type("events")
        assert len(events) == 1
        assert events[0]["view"] == view_json(game.table, seat)  # its own seat's view
        assert [e["code"] for e in events[0]["events"]] == ["said"]
    assert ack["seq"] == ann.seq == ann.of_type("events")[-1]["seq"]
    rows = await core_store.action_rows(game.room.id)
    assert len(rows) == before + 1
    assert (rows[-1]["player_id"], rows[-1]["client_id"]) == (game.people[1].id, "c1")
    assert await stored_actions(core_store, game.room.id) == \
        [a.to_dict() for a in game.table.record.actions]


@pytest.mark.asyncio
async def test_a_private_message_reaches_its_two_seats_only_and_after_the_store(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R50 (D16): a whisper's events go to its sender and its recipient only; nobody
    else is sent a frame for it, not even an empty one."""
    game = await new_game(core_store, core_clock)
    game.wire.clear()
    ack = await act(game.hub, game.room, game.client(1), "w1", do=SAY, text="psst", to=2)
    assert ack["type"] == "ack"
    order = [who for who, _ in game.wire.log]
    assert order[0] == "store" and order[-1] == "Ann"
    assert sorted(order[1:-1]) == ["Ann", "Bob"]
    assert game.client(None).of_type("events") == []
    assert "psst" not in str(game.client(None).frames)


@pytest.mark.asyncio
async def test_a_lost_lease_mid_commit_leaves_the_room_following_the_stored_game(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """Several processes (docs/architecture.md, leases): another process took the game
    over and stored its own action at the same index; this one's append raises
    `LeaseLost`. Its action is not applied in memory, nobody is sent a byte of it, the
    room now follows (`owned` False: no bots, no grace clocks, no claim codes, D18) and
    its table is the stored one, view for view. It stores nothing after."""
    game = await new_game(core_store, core_clock)
    room, ann = game.room, game.people[1]
    assert (await act(game.hub, room, game.client(2), "b1", do="leave"))["type"] == "ack"
    code = await game.hub.replace(room, game.host, 2, "person", "")
    assert code is not None and room.lobby.claims == {code: 2}
    told: list[Message] = []
    make_writer(room, told.append, fenced=True)
    index = len(game.table.record.actions)
    core_clock.advance(5)
    await core_store.real_append(room.id, index, {"seat": 1, "do": SAY, "text": "the new owner"},
                                 core_clock.now, ann.id, "elsewhere", hosted(room).deadline,
                                 hosted(room).phase_key(), None)
    game.wire.clear()
    core_store.fail_next("lease_lost")
    with pytest.raises(LeaseLost):
        await game.submit(Action(SAY, 1, text="never stored"), ann, "c2")
    assert isinstance(room.peers, Replica) and told == []
    assert (room.owned, room.fence, hosted(room).bots, room.lobby.claims, room.away) == \
        (False, None, None, {}, {})
    stored = await stored_table(core_store, room.id)
    assert game.table.record.actions == stored.record.actions
    assert game.table.record.actions[index].text == "the new owner"
    assert all(a.text != "never stored" for a in game.table.record.actions)
    for seat in SEATS:
        assert view_bytes(game.table, seat) == view_bytes(stored, seat)
    assert "never stored" not in str(game.wire.log)
    with pytest.raises(LeaseLost):  # a follower forwards; it never applies nor stores
        await game.submit(Action(SAY, 1, text="after"), ann, "c3")
    assert len(await core_store.action_rows(room.id)) == index + 1


@pytest.mark.asyncio
async def test_a_failed_write_rebuilds_the_game_from_the_store_and_the_next_action_works(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """host.py `GameHost.rebuild`: an append that fails (not a lost lease) leaves nothing
    unacknowledged in memory: the table is the stored one again, the bots play on that
    table, no client was sent the action, and the command is not remembered, so the
    same command sent again is applied — once — and acknowledged."""
    game = await new_game(core_store, core_clock)
    room, ann = game.room, game.client(1)
    seq = ann.seq
    bots_from_the_start = game.table.state.bot_seats
    assert bots_from_the_start  # D73: public in every view
    game.wire.clear()
    core_store.fail_next("error")
    with pytest.raises(RuntimeError):
        await act(game.hub, room, ann, "c1", do=SAY, text="first try")
    assert room.owned and room.status == "running"
    assert game.table.state.bot_seats == bots_from_the_start  # read back with the game
    stored = await stored_table(core_store, room.id)
    assert game.table.record.actions == stored.record.actions
    for seat in SEATS:
        assert view_bytes(game.table, seat) == view_bytes(stored, seat)
    assert hosted(room).bots is not None
    assert hosted(room).bots.table is game.table and hosted(room).bots.driver.game is game.table
    assert game.wire.log == []
    assert room.answers.answer(game.people[1].id, "c1") is None
    ack = await act(game.hub, room, ann, "c1", do=SAY, text="first try")
    assert ack["type"] == "ack"
    assert [e["seq"] for e in ann.of_type("events")[-1]["events"]] == [seq + 1]
    again = await act(game.hub, room, ann, "c1", do=SAY, text="first try")  # the same id
    assert again == ack
    texts = [a.text for a in game.table.record.actions if a.do == SAY]
    assert texts == ["first try"]
    assert await stored_actions(core_store, room.id) == \
        [a.to_dict() for a in game.table.record.actions]


@pytest.mark.asyncio
async def test_a_failed_timeout_write_leaves_the_phase_timer_due(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R12: the timer's `timeout` could not be stored; the game is rebuilt in Day 1 and
    its deadline (the stored one, passed) is still due: the next timed step fires it."""
    game = await new_game(core_store, core_clock)
    room = game.room
    assert hosted(room).deadline is not None
    core_clock.set(hosted(room).deadline + 1)
    core_store.fail_next("error")
    with pytest.raises(RuntimeError):
        await due(room, core_clock.now)
    assert (game.table.state.kind, game.table.state.number) == ("day", 1)
    await due(room, core_clock.now)  # what timers.py `_run` does a second later
    assert [a.do for a in game.table.record.actions].count(TIMEOUT) == 1


@pytest.mark.asyncio
async def test_a_command_made_in_an_ended_phase_is_refused_as_stale_and_not_kept(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """docs/protocol.md `stale_phase`: a command that names the phase it was made in is
    refused, under the room's lock, once that phase has ended — neither applied nor
    stored nor sent to anyone — and the same command id is answered the same again."""
    game = await new_game(core_store, core_clock)
    room, ann = game.room, game.client(1)
    day1 = {"kind": "day", "number": 1}
    ok = await act(game.hub, room, ann, "a1", do=SAY, text="in time", phase=day1)
    assert ok["type"] == "ack"
    assert hosted(room).deadline is not None
    core_clock.set(hosted(room).deadline + 1)
    await due(room, core_clock.now)  # R12: the day's timer ends Day 1
    assert game.table.state.kind == "night"
    count = len(game.table.record.actions)
    rows = len(await core_store.action_rows(room.id))
    game.wire.clear()
    refused = await act(game.hub, room, ann, "a2", do=PASS, phase=day1)
    assert (refused["type"], refused["code"], refused["params"]) == \
        ("refused", "stale_phase", day1)
    assert len(game.table.record.actions) == count
    assert len(await core_store.action_rows(room.id)) == rows
    assert [who for who, _ in game.wire.log] == ["Ann"]  # the answer, nothing else
    assert await act(game.hub, room, ann, "a2", do=PASS, phase=day1) == refused


@pytest.mark.asyncio
async def test_the_phase_timer_fires_once(core_store: FlakyStore,
                                          core_clock: FakeClock) -> None:
    """R12 (D13): past the deadline, the timed step submits one `timeout`; the same step
    again at the same moment finds the next phase's deadline and fires nothing. The
    new deadline is stored with the timeout."""
    game = await new_game(core_store, core_clock)
    room = game.room
    assert hosted(room).deadline is not None
    core_clock.set(hosted(room).deadline + 1)
    await due(room, core_clock.now)
    await due(room, core_clock.now)
    assert [a.do for a in game.table.record.actions].count(TIMEOUT) == 1
    assert (game.table.state.kind, game.table.state.number) == ("night", 1)
    assert hosted(room).deadline == core_clock.now + room.lobby.options.night_seconds
    row = await core_store.table_row(room.id)
    assert row is not None and row["deadline"] == hosted(room).deadline
    assert [a["do"] for a in await stored_actions(core_store, room.id)].count(TIMEOUT) == 1


@pytest.mark.asyncio
async def test_a_deadline_passed_while_down_fires_once_after_the_game_is_read_back(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R12, restore.py: a server down past a phase's deadline reads the game back with
    the stored deadline, and its first timed step fires the timer — once."""
    game = await new_game(core_store, core_clock)
    deadline = hosted(game.room).deadline
    assert deadline is not None
    core_clock.set(deadline + 30)  # the process is gone meanwhile
    row = await core_store.table_row(game.room.id)
    assert row is not None
    room = await load_room(core_store, row, 1.0)
    assert hosted(room).deadline == deadline and room.owned
    await due(room, core_clock.now)
    await due(room, core_clock.now)
    assert room.host is not None
    assert [a.do for a in hosted(room).table.record.actions].count(TIMEOUT) == 1
    assert hosted(room).deadline == core_clock.now + room.lobby.options.night_seconds
    assert [a["do"] for a in await stored_actions(core_store, room.id)].count(TIMEOUT) == 1


@pytest.mark.asyncio
async def test_a_client_back_with_its_stream_number_gets_exactly_what_it_missed(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """docs/protocol.md `hello.last_seq`: a connection back after a drop reads the
    events of its seat it missed, in one `events` message with its seat's view — what
    a connection that never dropped read; a number the stream never reached gets a
    snapshot instead."""
    game = await new_game(core_store, core_clock)
    room, bob = game.room, game.client(2)
    await act(game.hub, room, game.client(1), "a1", do=SAY, text="one")
    seen = bob.seq
    disconnect(room, bob)
    await act(game.hub, room, game.client(1), "a2", do=SAY, text="two", to=2)
    await act(game.hub, room, game.client(1), "a3", do=SAY, text="three")
    back = fake_client(game.people[2], 2)
    await connect(room, back, seen)
    assert [f["type"] for f in back.frames] == ["table", "events"]
    missed = back.frames[-1]
    assert missed["events"] == game.table.events_after(2, seen)
    assert [e["params"]["text"] for e in missed["events"]] == ["two", "three"]
    assert missed["view"] == view_json(game.table, 2) and back.seq == missed["seq"]
    ahead = fake_client(game.people[2], 2)
    await connect(room, ahead, back.seq + 50)
    assert ahead.frames[-1]["type"] == "snapshot"
    assert ahead.frames[-1]["view"] == game.table.snapshot(2)


async def play_to_the_end(game: Game) -> None:
    """Bots think, the people pass by day, timers end the nights: until the game ends
    (or the store fails: the error goes up)."""
    room = game.room
    for step in range(400):
        if not game.table.state.running:
            return
        game.clock.advance(30)
        await due(room, game.clock.now)
        if step % 2 == 0 and game.table.state.kind == "day":
            for seat in (1, 2):
                if game.table.state.alive[seat] and not game.table.state.passed[seat]:
                    await act(game.hub, room, game.client(seat), f"p{step}.{seat}", do=PASS)


@pytest.mark.asyncio
async def test_the_end_is_stored_once_with_its_winner_and_kept_in_the_history(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R31–R35, D13: the action that ends the game stores the winner with it; the room
    is finished, its deadline gone, and no timer fires after the end; the finished
    game goes into each seat's player's history (hub.py `finished_game`)."""
    game = await new_game(core_store, core_clock)
    room = game.room
    await play_to_the_end(game)
    assert not game.table.state.running
    assert (room.status, hosted(room).deadline) == ("finished", None)
    row = await core_store.table_row(room.id)
    assert row is not None
    assert (row["status"], row["winner"], row["deadline"]) == \
        ("finished", game.table.state.winner, None)
    count = len(game.table.record.actions)
    core_clock.advance(3600)
    await due(room, core_clock.now)
    assert len(game.table.record.actions) == count
    async with core_store.engine.connect() as conn:
        kept = (await conn.execute(select(schema.game_players.c.seat)
                                   .where(schema.game_players.c.table_id == room.id))).all()
    assert sorted(r[0] for r in kept) == [1, 2]  # the people's (bots of their own: none)
    for reader in (1, 2, None):
        assert game.client(reader).of_type("table")[-1]["table"]["status"] == "finished"


@pytest.mark.asyncio
async def test_a_failed_write_of_the_ending_action_leaves_the_game_timed(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R12: the action that would end the game could not be stored; rebuilt from the
    store, the game runs on, with the phase's stored deadline still ahead or due."""
    game = await new_game(core_store, core_clock)
    core_store.fail_the_end = True
    with pytest.raises(RuntimeError):
        await play_to_the_end(game)
    assert game.table.state.running and game.room.status == "running"
    row = await core_store.table_row(game.room.id)
    assert row is not None and row["deadline"] is not None
    assert hosted(game.room).deadline == row["deadline"]
