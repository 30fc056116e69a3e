"""A banned player's seat in a running game, in-process (issue 36; R52, R53, D36): it goes
to a bot once — one `leave` and one `replace` through the game's command path — and the
grace period its closed connection starts does not hand it over a second time."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core_fakes import FakeClock, FlakyStore, disconnect, due, hosted, new_game
from trusis.rules.actions import LEAVE, REPLACE, Action
from trusis.server.players.revoked import Revocation
from trusis.server.tables.seats import banning


@pytest.mark.asyncio
async def test_a_banned_seat_s_hand_over_runs_the_command_path_once(
        core_store: FlakyStore, core_clock: FakeClock) -> None:
    game = await new_game(core_store, core_clock, names=("Ann", "Bob", "Cid"))
    room, bob = game.room, game.people[2]
    host = hosted(room)
    passes: list[dict[str, Any]] = []
    submit = host.submit

    async def counted(action: Action, *args: Any, **kwargs: Any) -> Any:
        if action.seat == 2:
            passes.append(action.to_dict())
        return await submit(action, *args, **kwargs)

    host.submit = counted  # type: ignore[method-assign]
    game.hub.connections.close_revoked(Revocation(player=bob.id, ban=True, until=None,
                                                  reason="threats"))
    disconnect(room, game.client(2))  # the banned connection's end, as its socket closes
    await asyncio.gather(*banning._running)
    core_clock.advance(room.lobby.options.grace_seconds + 1)
    await due(room, core_clock.now)  # its grace period would be over now
    assert passes == [{"seat": 2, "do": LEAVE}, {"seat": 2, "do": REPLACE, "by": "bot"}]
    assert room.lobby.seats[2].kind == "bot"
    replaced = [a for a in host.table.record.actions if a.seat == 2 and a.do == REPLACE]
    assert len(replaced) == 1
    assert room.away.get(2) is None
