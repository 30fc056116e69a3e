"""Each lobby request is its own type (issue 36): forwarded to another process and read
back as the same value, and run by one `match` that names every type — a value that is
no request is refused loudly, never answered as a silent "decline" (as the method-name
strings once fell through to)."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import get_args

import pytest

from trusis.server.data.store import Player
from trusis.server.tables.hub import Hub
from trusis.server.tables.lobby_state import LobbyState
from trusis.server.tables.options import TableOptions
from trusis.server.tables.requests import (
    AddBot,
    Claim,
    Close,
    Draw,
    Free,
    LobbyMethod,
    LobbyRequest,
    ProgramSeat,
    Rematch,
    RematchAccept,
    RematchDecline,
    Remove,
    Rename,
    RenameCheck,
    Replace,
    Return,
    Sit,
    Stand,
    Start,
    from_wire,
    to_wire,
)
from trusis.server.tables.room import Room

ANN = Player("ann", "Ann", "guest")
EVERY: list[LobbyRequest] = [
    Sit(ANN, 3), Sit(ANN), Stand(ANN), AddBot(ANN, "heuristic", 2), AddBot(ANN, "basic"),
    Free(ANN, 4), Remove(ANN, 5), ProgramSeat(ANN, None, "Robo"), ProgramSeat(ANN, 2, "R2"),
    Start(ANN), Replace(ANN, 3, "person", ""), Replace(ANN, 3, "bot", "heuristic"),
    Claim(ANN, "code16chars....."), Return(ANN), Draw(ANN), Close(ANN),
    RenameCheck(ANN, "Anna"), Rename(ANN, "Anna"), Rematch(ANN), RematchAccept(ANN),
    RematchDecline(ANN),
]


def test_every_method_has_its_own_type() -> None:
    types = typing.get_args(LobbyRequest)
    assert sorted(t.method for t in types) == sorted(get_args(LobbyMethod))
    assert {type(r) for r in EVERY} == set(types)


@pytest.mark.parametrize("request_", EVERY, ids=repr)
def test_a_forwarded_request_is_read_back_as_the_same_value(request_: LobbyRequest) -> None:
    assert from_wire(ANN, to_wire(request_)) == request_


@pytest.mark.asyncio
async def test_a_value_that_is_no_request_is_refused_not_declined(tmp_path: Path) -> None:
    hub = Hub(None)  # type: ignore[arg-type]
    room = Room("t", "table", LobbyState("ann", "Ann", TableOptions(), "invite"), None)  # type: ignore[arg-type]
    with pytest.raises(AssertionError):
        await hub.run_lobby(room, "rematch_decline")  # type: ignore[arg-type]
