"""A crash between a hand-over's stored `replace` and its seat's row (restore.py,
`after_handovers`): the record is the truth, so the game read back gives the seat to
whom its last `replace` gave it — R53, D29 — and the row catches up.

Found by a black-box run (test_server_return.py): a game killed right after a grace
period's hand-over came back with the seat still its person's, who then played a seat
the engine gives a bot.
"""

from __future__ import annotations

import pytest

from core_fakes import FakeClock, FlakyStore, hosted, new_game
from trusis.rules.actions import LEAVE, REPLACE, Action
from trusis.server.tables.restore import load_room
from trusis.server.tables.seats.seat import Seat


async def _read_back(store: FlakyStore, table_id: str) -> dict[int, Seat]:
    row = await store.table_row(table_id)
    assert row is not None
    room = await load_room(store, row, 1.0)
    # D73: the seats bots held from the start (seats 3-5 of `new_game`) are public in the
    # views read back, as at the start; a seat a bot took over is not one of them
    assert hosted(room).table.state.bot_seats == (3, 4, 5)
    rows = {held["seat"]: (held["kind"], held["player_id"])
            for held in await store.seat_rows(table_id)}
    assert rows == {n: (s.kind, s.player_id) for n, s in room.lobby.seats.items()}  # caught up
    return dict(room.lobby.seats)


@pytest.mark.asyncio
async def test_R53_a_seat_handed_to_a_bot_stays_the_bot_s_after_a_crash_before_its_row(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    game = await new_game(core_store, core_clock)
    bob = game.people[2]
    await game.submit(Action(LEAVE, 2))  # R52: Bob's grace ran out
    assert (await game.submit(Action(REPLACE, 2, by="bot"))).accepted
    # ... and the process died before `hand_to_bot` wrote the seat's row.
    seats = await _read_back(core_store, game.room.id)
    assert seats[2].kind == "bot" and seats[2].player_id == bob.id  # still Bob's (D29)
    assert seats[2].name == "Bob (bot)"


@pytest.mark.asyncio
async def test_R53_a_departed_seat_a_person_claimed_is_theirs_after_a_crash_before_its_row(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    game = await new_game(core_store, core_clock, bots_take_over=False)
    carl = await core_store.new_player("Carl", "guest")
    await game.submit(Action(LEAVE, 2))
    assert (await hosted(game.room).submit(Action(REPLACE, 2, by="Carl"), carl.id)).accepted
    seats = await _read_back(core_store, game.room.id)
    assert (seats[2].kind, seats[2].name, seats[2].player_id) == ("person", "Carl", carl.id)


@pytest.mark.asyncio
async def test_a_game_read_back_with_its_rows_up_to_date_keeps_its_seats(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    game = await new_game(core_store, core_clock)
    before = dict(game.room.lobby.seats)
    assert hosted(game.room).table.state.bot_seats == (3, 4, 5)  # D73, at the start
    assert await _read_back(core_store, game.room.id) == before
