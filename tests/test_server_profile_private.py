"""A public profile keeps private tables private (issue 38, D68): who played a private table
together is no one else's business. Against a real `trusis serve` over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modhelp import account, grant
from serverplay import people
from serverproc import Guest, ServerProcess, running_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path) as running:
        yield running


def _profile(client: httpx.Client, player_id: str) -> dict[str, Any]:
    reply = client.get(f"/api/players/{player_id}")
    assert reply.status_code == 200, reply.text
    data: dict[str, Any] = reply.json()
    return data


def test_d68_a_profile_lists_a_private_game_only_to_those_who_sat_there(
        server: ServerProcess) -> None:
    """The round's probe: anyone, signed in or not, read a player's private games (table
    name, seat, role, result) on their profile. Now only the player and the others who sat
    at that table see it listed; everyone sees that private games were left out."""
    ops, _ = account(server.url, "Ops")
    grant(server, "Ops", "admin")
    hidden = people(server, 5, private=True, name="our secret table")
    shown = people(server, 5, name="open table")
    try:
        for table in (hidden, shown):
            done = ops.post(f"/api/admin/tables/{table.id}/draw", json={"reason": "test"})
            assert done.status_code == 200, done.text
        ann, bob = hidden.guests[1], hidden.guests[2]
        stranger = Guest(server.url, "Zed")
        visitor = httpx.Client(base_url=server.url, timeout=10)
        for client in (ann.http, bob.http):  # the player, and one who sat there
            seen = _profile(client, ann.id)
            assert {g["table_id"] for g in seen["games"]} == {hidden.id}, seen["games"]
            assert seen["games"][0]["table"] == "our secret table"
            assert seen["private_games_hidden"] == 0
        for client in (stranger.http, visitor, shown.guests[2].http, ops):
            seen = _profile(client, ann.id)
            assert seen["games"] == [], seen["games"]
            assert seen["private_games_hidden"] == 1
            assert "our secret table" not in str(seen) and hidden.id not in str(seen)
            assert seen["wins"]["games"] == 1  # the totals count it, without saying where
        public = _profile(visitor, shown.guests[1].id)
        assert [g["table"] for g in public["games"]] == ["open table"]
        assert public["private_games_hidden"] == 0
    finally:
        hidden.close()
        shown.close()
