"""The lobby and the seats changing hands, in-process (server/hub.py, seating.py,
handover.py): sitting, bots and the start stored and told to every client; a departed
seat handed to a bot when its grace period ends, or to a person with a claim code, and
claim codes dying when the seat changes hands. With the fakes of tests/core_fakes.py."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from core_fakes import (
    FakeClock,
    FlakyStore,
    act,
    connect,
    disconnect,
    due,
    fake_client,
    hosted,
    new_game,
    quiet,
)
from trusis.rules.actions import LEAVE, REPLACE
from trusis.server.data.store import Store
from trusis.server.errors import LobbyError
from trusis.server.tables.hub import Hub
from trusis.server.tables.restore import load_room
from trusis.server.tables.room import Room
from trusis.server.tables.seats.handover import returnable
from trusis.server.tables.seats.seat import departed


async def seat_rows(store: Store, room: Room) -> dict[int, tuple[Any, ...]]:
    return {r["seat"]: (r["kind"], r["name"], r["player_id"], r["bot_kind"])
            for r in await store.seat_rows(room.id)}


def held(room: Room) -> dict[int, tuple[Any, ...]]:
    return {n: (s.kind, s.name, s.player_id, s.bot_kind) for n, s in room.lobby.seats.items()}


def last_two(room: Room) -> list[dict[str, Any]]:
    assert room.host is not None
    return [a.to_dict() for a in hosted(room).table.record.actions[-2:]]


@pytest.mark.asyncio
async def test_the_lobby_stores_each_seat_and_the_start_tells_each_client_its_seat(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """Seats, bots and the start go to the store with the room; only the host adds bots
    and starts; every seat must be held; at the start each connected client gets its
    own seat's snapshot, and a person not connected is away from the first second (R52)."""
    game = await new_game(core_store, core_clock, connected=(1,), start=False)
    hub, room, host, bob = game.hub, game.room, game.host, game.people[2]
    assert await seat_rows(core_store, room) == held(room)
    assert await hub.sit(room, bob, None) == 2  # sitting again: the same seat
    with pytest.raises(LobbyError) as taken:
        await hub.sit(room, bob, 1)
    assert (taken.value.status, taken.value.code) == (409, "seat_taken")
    for refused in (hub.add_bot(room, bob, "heuristic", None), hub.start(room, bob)):
        with pytest.raises(LobbyError) as not_host:
            await refused
        assert (not_host.value.status, not_host.value.code) == (403, "not_host")
    await hub.free(room, host, 5)
    with pytest.raises(LobbyError) as empty:
        await hub.start(room, host)
    assert (empty.value.code, empty.value.params) == ("seats_empty", {"seats": [5]})
    assert await hub.add_bot(room, host, "heuristic", None) == 5
    assert await seat_rows(core_store, room) == held(room)
    await hub.start(room, host)
    await hosted(room).stop()
    assert room.status == "running" and room.host is not None
    row = await core_store.table_row(room.id)
    assert row is not None
    assert (row["status"], row["deadline"], row["deadline_phase"]) == \
        ("running", core_clock.now + room.lobby.options.day_seconds, "day:1")
    for seat in (1, None):
        snapshot = game.client(seat).of_type("snapshot")[-1]
        assert snapshot["view"] == hosted(room).table.snapshot(seat)
    assert room.away == {2: core_clock.now}  # R52: Bob's grace runs from the start
    with pytest.raises(LobbyError) as started:
        await hub.sit(room, bob, None)
    assert started.value.code == "already_started"


@pytest.mark.asyncio
async def test_a_seat_gone_past_its_grace_goes_to_a_bot_and_back_to_its_player(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R52–R53 with `bots_take_over`: a seat only disconnected has not left (D18: the
    host cannot hand it over); when its grace period ends the seat leaves and a bot
    plays it, still its player's (`player_id` kept, D29, D32); the player coming back
    takes it at once (D29)."""
    game = await new_game(core_store, core_clock)
    hub, room, bob = game.hub, game.room, game.people[2]
    grace = room.lobby.options.grace_seconds
    disconnect(room, game.client(2))
    assert room.away == {2: core_clock.now}
    with pytest.raises(LobbyError) as not_left:
        await hub.replace(room, game.host, 2, "bot", "heuristic")
    assert (not_left.value.status, not_left.value.code) == (409, "not_left")
    core_clock.advance(grace - 1)
    await due(room, core_clock.now)
    assert room.host is not None and not hosted(room).table.state.left[2]
    assert room.lobby.holding(2, hosted(room).table) == "person"  # only disconnected (D18)
    core_clock.advance(1)
    await due(room, core_clock.now)
    assert last_two(room) == [{"seat": 2, "do": LEAVE}, {"seat": 2, "do": REPLACE, "by": "bot"}]
    assert room.lobby.seats[2].kind == "bot" and room.lobby.seats[2].player_id == bob.id
    assert await seat_rows(core_store, room) == held(room)
    assert hosted(room).bots is not None and 2 in hosted(room).bots.seats
    assert room.lobby.holding(2, hosted(room).table) == "bot"
    assert bob.id in room.lobby.former and room.away == {}
    assert returnable(room, bob.id) == 2
    assert await hub.return_seat(room, bob) == 2  # D29
    assert held(room)[2] == ("person", "Bob", bob.id, None)
    assert room.lobby.holding(2, hosted(room).table) == "person" and bob.id not in room.lobby.former
    assert hosted(room).table.record.actions[-1].to_dict() == \
        {"seat": 2, "do": REPLACE, "by": "Bob"}
    assert 2 not in hosted(room).bots.seats
    assert await seat_rows(core_store, room) == held(room)
    assert room.away == {2: core_clock.now}  # D29: not connected yet, its grace runs again


@pytest.mark.asyncio
async def test_without_bots_a_seat_gone_past_its_grace_leaves_and_passes_by_itself(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R52 without `bots_take_over`: the grace period's end stores the seat's `leave`
    (the server's, not its player's: it may come back, D29, D31), once."""
    game = await new_game(core_store, core_clock, bots_take_over=False)
    room = game.room
    disconnect(room, game.client(2))
    core_clock.advance(room.lobby.options.grace_seconds)
    await due(room, core_clock.now)
    await due(room, core_clock.now)
    assert room.host is not None and hosted(room).table.state.left[2]
    leaves = [r for r in await core_store.action_rows(room.id) if '"leave"' in r["data"]]
    assert len(leaves) == 1 and leaves[0]["player_id"] is None
    assert room.lobby.seats[2].kind == "person" and 2 not in room.lobby.quit
    assert room.lobby.holding(2, hosted(room).table) == "departed"  # it passes by itself (R52)
    assert returnable(room, game.people[2].id) == 2


@pytest.mark.asyncio
async def test_a_claim_code_seats_one_person_once_and_every_other_code_dies(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R53, D18, D31: a seat its player left on purpose is handed by the host to a new
    person with a claim code; the first claim takes it (with all the seat knew), every
    other code for it dies, and the one who held it now watches."""
    game = await new_game(core_store, core_clock)
    hub, room, host = game.hub, game.room, game.host
    bob_client = game.client(2)
    assert (await act(hub, room, bob_client, "b1", do=LEAVE))["type"] == "ack"
    assert room.lobby.quit == {2}  # D31: not given back by coming back
    with pytest.raises(LobbyError) as not_host:
        await hub.replace(room, game.people[2], 2, "person", "")
    assert not_host.value.code == "not_host"
    first = await hub.replace(room, host, 2, "person", "")
    second = await hub.replace(room, host, 2, "person", "")
    assert first is not None and second is not None and first != second
    carl = await core_store.new_player("Carl", "guest")
    dan = await core_store.new_player("Dan", "guest")
    assert room.host is not None
    knew = hosted(room).table.snapshot(2)
    assert await hub.claim(room, carl, first) == 2
    assert room.lobby.claims == {}
    for player, code in ((dan, second), (dan, first)):
        with pytest.raises(LobbyError) as dead:
            await hub.claim(room, player, code)
        assert (dead.value.status, dead.value.code) == (404, "no_such_claim")
    assert held(room)[2] == ("person", "Carl", carl.id, None)
    assert await seat_rows(core_store, room) == held(room)
    assert hosted(room).table.record.actions[-1].to_dict() == \
        {"seat": 2, "do": REPLACE, "by": "Carl"}
    assert bob_client.seat is None  # reseated: Bob watches now
    assert bob_client.of_type("snapshot")[-1]["view"] == hosted(room).table.snapshot(None)
    assert room.away == {2: core_clock.now}  # D29: Carl is not connected yet
    carl_client = fake_client(carl, 2)
    await connect(room, carl_client)
    view = carl_client.of_type("snapshot")[-1]["view"]
    assert (view["seat"], view["role"], view["team"], view["known"]) == \
        (2, knew["role"], knew["team"], knew["known"])  # R53: all the seat knew
    assert room.away == {}


@pytest.mark.asyncio
@pytest.mark.parametrize("by", ["grace", "host"])
async def test_claim_codes_die_when_the_seat_goes_to_a_bot(
        core_store: FlakyStore, core_clock: FakeClock, by: str) -> None:
    """D18: a code made for a departed seat dies when a bot takes the seat — at the end
    of its player's grace period (R52) or by the host's hand-over (R53)."""
    game = await new_game(core_store, core_clock)
    hub, room = game.hub, game.room
    assert (await act(hub, room, game.client(2), "b1", do=LEAVE))["type"] == "ack"
    code = await hub.replace(room, game.host, 2, "person", "")
    assert code is not None
    if by == "grace":
        disconnect(room, game.client(2))
        core_clock.advance(room.lobby.options.grace_seconds)
        await due(room, core_clock.now)
    else:
        assert await hub.replace(room, game.host, 2, "bot", "heuristic") is None
    assert room.lobby.seats[2].kind == "bot" and room.lobby.claims == {}
    carl = await core_store.new_player("Carl", "guest")
    with pytest.raises(LobbyError) as dead:
        await hub.claim(room, carl, code)
    assert dead.value.code == "no_such_claim"


@pytest.mark.asyncio
@pytest.mark.parametrize("codes", ["one", "two"])
async def test_two_claims_at_once_seat_one_person(
        core_store: FlakyStore, core_clock: FakeClock, codes: str) -> None:
    """D18: two people open claim links for one departed seat at the same moment (the
    same link, or two links the host made): one takes the seat, the other is refused,
    and the record holds one hand-over."""
    game = await new_game(core_store, core_clock)
    hub, room = game.hub, game.room
    assert (await act(hub, room, game.client(2), "b1", do=LEAVE))["type"] == "ack"
    first = await hub.replace(room, game.host, 2, "person", "")
    second = first if codes == "one" else await hub.replace(room, game.host, 2, "person", "")
    assert first is not None and second is not None
    carl = await core_store.new_player("Carl", "guest")
    dan = await core_store.new_player("Dan", "guest")
    results = await asyncio.gather(hub.claim(room, carl, first), hub.claim(room, dan, second),
                                   return_exceptions=True)
    seated = [r for r in results if r == 2]
    refused = [r for r in results if isinstance(r, LobbyError)]
    assert len(seated) == 1 and len(refused) == 1, results
    assert refused[0].code in ("no_such_claim", "not_left")
    assert room.host is not None
    actions = hosted(room).table.record.actions
    assert [a.by for a in actions if a.do == REPLACE] in (["Carl"], ["Dan"])
    assert room.lobby.seats[2].name == hosted(room).table.record.actions[-1].by
    assert await seat_rows(core_store, room) == held(room) and room.lobby.claims == {}


@pytest.mark.asyncio
@pytest.mark.parametrize("bots_take_over", [True, False])
async def test_a_failed_write_of_the_grace_leave_is_tried_again(
        core_store: FlakyStore, core_clock: FakeClock, bots_take_over: bool) -> None:
    """R52: the end of a seat's grace period stores its `leave`; a failed write of it
    (rebuilt from the store, host.py `GameHost.rebuild`) leaves the seat still due, so the next
    timed step stores it."""
    game = await new_game(core_store, core_clock, bots_take_over=bots_take_over)
    room = game.room
    disconnect(room, game.client(2))
    core_clock.advance(room.lobby.options.grace_seconds)
    core_store.fail_next("error")
    with pytest.raises(RuntimeError):
        await due(room, core_clock.now)
    assert room.host is not None and not hosted(room).table.state.left[2]
    core_clock.advance(1)  # timers.py `_run` tries again a second later
    await due(room, core_clock.now)
    assert departed(hosted(room).table, 2) and room.away == {}  # left, or a bot's (R53)
    assert (room.lobby.seats[2].kind == "bot") == bots_take_over


@pytest.mark.asyncio
@pytest.mark.parametrize("trouble", ["none", "pass_fails", "leave_fails", "restart"])
async def test_R52_D50_the_grace_period_s_pass_is_stored_once(
        core_store: FlakyStore, core_clock: FakeClock, trouble: str) -> None:
    """D50: Bob voted and lost his connection; at the end of his grace period the server
    passes for his seat (the vote stands, R12), then the seat leaves and a bot takes it:
    one pass, the server's (no player id), then the leave and the hand-over — also when
    the pass's write fails, when the leave's does (the seat, passed, is not passed twice),
    and across a restart between the two (restore.py: a new grace period, then the leave
    only). Bob may still come back (D29): his seat left by no choice of his (D31)."""
    game = await new_game(core_store, core_clock)
    room, bob = game.room, game.people[2]
    assert (await act(game.hub, room, game.client(2), "v1", do="vote", target=3))["type"] \
        == "ack"
    disconnect(room, game.client(2))
    core_clock.advance(room.lobby.options.grace_seconds)
    if trouble == "pass_fails":
        core_store.fail_next("error")
    elif trouble != "none":  # the pass is stored; the write after it fails
        wire = core_store.on_stored

        def then_fail(index: int) -> None:
            core_store.on_stored = wire
            if wire is not None:
                wire(index)
            core_store.fail_next("error")

        core_store.on_stored = then_fail
    if trouble == "none":
        await due(room, core_clock.now)
    else:
        with pytest.raises(RuntimeError):
            await due(room, core_clock.now)
        assert not hosted(room).table.state.left[2]
        assert hosted(room).table.state.passed[2] == (trouble != "pass_fails")
    if trouble == "restart":
        row = await core_store.table_row(room.id)
        assert row is not None
        room = await load_room(core_store, row, 1.0)  # the server restarted
        await connect(room, fake_client(game.people[1], 1))  # Ann is back at once; Bob not
        assert room.away == {2: core_clock.now}  # R52: his grace runs again, from now
        core_clock.advance(room.lobby.options.grace_seconds - 1)
        await due(room, core_clock.now)
        assert not hosted(room).table.state.left[2]
    core_clock.advance(1)
    await due(room, core_clock.now)
    state = hosted(room).table.state
    assert state.bots[2] and state.passed[2] and state.votes[2] == 3  # locked, not dropped
    assert (state.kind, state.number) == ("day", 1) and room.away == {}
    rows = [r for r in await core_store.action_rows(room.id) if '"seat": 2' in r["data"]
            or '"seat":2' in r["data"]]
    assert [(orjson.loads(r["data"]), r["player_id"]) for r in rows] == [
        ({"seat": 2, "do": "vote", "target": 3}, bob.id),
        ({"seat": 2, "do": "pass", "by": "server"}, None),  # D50: the server's, not Bob's
        ({"seat": 2, "do": LEAVE}, None),
        ({"seat": 2, "do": REPLACE, "by": "bot"}, None),
    ]
    assert returnable(room, bob.id) == 2


@pytest.mark.asyncio
async def test_R52_D29_D50_a_player_back_while_the_grace_pass_is_stored_keeps_the_seat(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """D50: the pass at the end of Bob's grace period is being stored when Bob's phone
    connects again: his seat has passed with his vote, and does not leave — nor does a bot
    take it — since he is back (R52 is for a seat whose player did not come back)."""
    game = await new_game(core_store, core_clock)
    room = game.room
    assert (await act(game.hub, room, game.client(2), "v1", do="vote", target=3))["type"] \
        == "ack"
    disconnect(room, game.client(2))
    core_clock.advance(room.lobby.options.grace_seconds)
    wire = core_store.on_stored

    def back(index: int) -> None:  # the pass is stored; Bob's connection comes meanwhile
        core_store.on_stored = wire
        if wire is not None:
            wire(index)
        room.join(game.client(2))

    core_store.on_stored = back
    await due(room, core_clock.now)
    quiet(room)
    state = hosted(room).table.state
    assert state.passed[2] and state.votes[2] == 3
    assert not state.left[2] and not state.bots[2] and room.lobby.seats[2].kind == "person"
    assert room.away == {}
    assert [a.to_dict() for a in hosted(room).table.record.actions if a.seat == 2] == [
        {"seat": 2, "do": "vote", "target": 3}, {"seat": 2, "do": "pass", "by": "server"}]


@pytest.mark.asyncio
async def test_after_a_restart_a_player_whose_seat_a_bot_took_gets_a_snapshot(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """R53, D29: Bob's seat went to a bot (his grace ended); his stream number counted in
    seat 2's stream, which means nothing to a spectator's: coming back to watch, he is
    sent a snapshot — by the live room, and by the room read back after a restart."""
    game = await new_game(core_store, core_clock)
    room, bob = game.room, game.client(2)
    seen = bob.seq
    disconnect(room, bob)
    core_clock.advance(room.lobby.options.grace_seconds)
    await due(room, core_clock.now)
    assert room.lobby.seats[2].kind == "bot"
    for n in range(seen + 5):  # the spectators' stream grows past Bob's number
        await act(game.hub, room, game.client(1), f"s{n}", do="say", text=f"line {n}")
    live = fake_client(game.people[2], None)
    await connect(room, live, seen)
    assert live.frames[-1]["type"] == "snapshot"
    row = await core_store.table_row(room.id)
    assert row is not None
    again = await load_room(core_store, row, 1.0)  # the server restarted
    back = fake_client(game.people[2], None)
    await connect(again, back, seen)
    assert back.frames[-1]["type"] == "snapshot"


@pytest.mark.asyncio
async def test_no_whisper_to_a_seats_new_holder_reaches_its_former_player_mid_hand_over(
        core_store: FlakyStore, core_clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """R50, R53, D18: once the record gives Bob's departed seat to Carl, what only seat 2
    may see is Carl's: a whisper to seat 2 sent while the hand-over stores its seat row
    never reaches Bob's connection."""
    game = await new_game(core_store, core_clock)
    hub, room, bob = game.hub, game.room, game.client(2)
    assert (await act(hub, room, bob, "bye", do=LEAVE))["type"] == "ack"  # D31
    code = await hub.replace(room, game.host, 2, "person", "")
    assert code is not None
    carl = await core_store.new_player("Carl", "guest")
    store_row = core_store.set_person_seat

    sent: list[asyncio.Task[Any]] = []

    async def meanwhile(*args: Any, **kwargs: Any) -> None:
        # The whisper arrives while the seat's row is being stored: it waits for the room.
        sent.append(asyncio.create_task(
            act(hub, room, game.client(1), "w1", do="say", text="for Carl", to=2)))
        await asyncio.sleep(0.01)
        await store_row(*args, **kwargs)

    monkeypatch.setattr(core_store, "set_person_seat", meanwhile)
    assert await hub.claim(room, carl, code) == 2
    assert (await sent[0])["type"] == "ack"
    assert bob.seat is None
    assert "for Carl" not in str(bob.frames)


async def refused_to_person(game: Any, room: Room) -> dict[str, Any]:
    """The host's hand-over of seat 2 to a person, refused for the player's absence (D52)."""
    with pytest.raises(LobbyError) as refused:
        await game.hub.replace(room, game.host, 2, "person", "")
    assert (refused.value.status, refused.value.code) == (409, "player_may_return")
    return refused.value.params


@pytest.mark.asyncio
async def test_D52_a_person_takes_a_seat_only_after_its_players_long_absence(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """D52: Bob's connection drops at t0; his grace period (60 s) hands the seat to a bot
    (R52), which the host may do too; a person only once Bob has been away 180 s, counted
    from when his last connection went — not from the end of his grace. Coming back and
    dropping again starts the count again."""
    game = await new_game(core_store, core_clock)
    hub, room = game.hub, game.room
    t0 = core_clock.now
    disconnect(room, game.client(2))
    assert room.absent == {2: t0}
    core_clock.advance(room.lobby.options.grace_seconds)
    await due(room, core_clock.now)
    assert room.lobby.seats[2].kind == "bot" and room.away == {} and room.absent == {2: t0}
    params = await refused_to_person(game, room)
    assert params == {"seat": 2, "name": "Bob", "since": t0, "until": t0 + 180,
                      "away": 60, "wait": 180}
    core_clock.set(t0 + 179)
    await refused_to_person(game, room)
    bob = fake_client(game.people[2], None)  # D29: Bob opens the table again
    assert await hub.return_seat(room, game.people[2]) == 2
    bob.seat = 2
    await connect(room, bob)
    assert room.absent == {}
    t1 = core_clock.advance(1)
    disconnect(room, bob)  # and drops again: away from now
    core_clock.advance(room.lobby.options.grace_seconds)
    await due(room, core_clock.now)  # the day's timer ran out meanwhile (R12): one step
    await due(room, core_clock.now)  # and the grace period
    assert room.lobby.seats[2].kind == "bot"
    assert (await refused_to_person(game, room))["since"] == t1
    core_clock.set(t1 + 180)
    code = await hub.replace(room, game.host, 2, "person", "")
    assert code is not None
    carl = await core_store.new_player("Carl", "guest")
    assert await hub.claim(room, carl, code) == 2
    assert held(room)[2] == ("person", "Carl", carl.id, None)
    assert room.absent == {2: core_clock.now}  # Carl's own absence, until he connects


@pytest.mark.asyncio
async def test_D52_a_seat_left_on_purpose_goes_to_a_person_at_once(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """D31: Bob chose to leave: no wait (D52 is for a player who did not)."""
    game = await new_game(core_store, core_clock)
    assert (await act(game.hub, game.room, game.client(2), "b1", do=LEAVE))["type"] == "ack"
    disconnect(game.room, game.client(2))
    assert await game.hub.replace(game.room, game.host, 2, "person", "") is not None


@pytest.mark.asyncio
async def test_D52_after_a_restart_the_absence_counts_from_the_restart(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    """How long Bob has been away was in the memory of the process before: read back
    (restore.py), his absence counts from the restart — the host may wait longer, never
    less — also for the seat a bot now plays for him (D29)."""
    game = await new_game(core_store, core_clock)
    room = game.room
    disconnect(room, game.client(2))
    core_clock.advance(room.lobby.options.grace_seconds)
    await due(room, core_clock.now)
    assert room.lobby.seats[2].kind == "bot"
    restart = core_clock.advance(170)
    row = await core_store.table_row(room.id)
    assert row is not None
    again = await load_room(core_store, row, 1.0)
    assert again.host is not None
    await again.host.stop()
    assert again.absent == {1: restart, 2: restart}  # nobody is connected yet
    hub = Hub(core_store)
    with pytest.raises(LobbyError) as refused:
        await hub.replace(again, game.host, 2, "person", "")
    assert refused.value.code == "player_may_return"
    assert refused.value.params["until"] == restart + 180
    core_clock.advance(180)
    assert await hub.replace(again, game.host, 2, "person", "") is not None
