"""A draw on a player's profile (D49) through a real `trusis serve`: a draw, never a loss.

A game the server's staff ended (D38) and a game the rules ended with no winner (R34's
stalemate) are each one game on the profile, drawn: `result` is `draw`, it counts in
`wins.drawn` and never in `wins.won`. The staff's draw is rated for nobody (D38); a draw
by the rules is rated as a tie between the teams.
"""

from __future__ import annotations

from typing import Any

import httpx

from modhelp import account, grant
from serverproc import ServerProcess, pass_to_the_end


def profile(server: ServerProcess, player_id: str) -> dict[str, Any]:
    reply = httpx.get(f"{server.url}/api/players/{player_id}")
    assert reply.status_code == 200, reply.text
    data: dict[str, Any] = reply.json()
    return data


def seated_table(people: list[httpx.Client], **options: Any) -> str:
    host = people[0]
    created = host.post("/api/tables", json={"name": "drawn", "seats": 5, **options})
    assert created.status_code == 201, created.text
    table_id: str = created.json()["id"]
    for client in people:
        assert client.post(f"/api/tables/{table_id}/seats", json={}).status_code == 200
    if len(people) < 5:
        for _ in range(5 - len(people)):
            assert host.post(f"/api/tables/{table_id}/bots", json={}).status_code == 200
    assert host.post(f"/api/tables/{table_id}/start").status_code == 200
    return table_id


def test_D49_a_game_the_staff_ended_is_a_draw_on_the_profile_and_rated_for_nobody(
        server: ServerProcess) -> None:
    ann, ann_id = account(server.url, "Ann")
    ops, _ = account(server.url, "Ops")
    grant(server, "Ops", "admin")
    table_id = seated_table([ann], day_seconds=3600)  # Ann away: nothing ends Day 1
    done = ops.post(f"/api/admin/tables/{table_id}/draw", json={"reason": "stuck"})
    assert done.status_code == 200, done.text
    data = profile(server, ann_id)
    [game] = data["games"]
    assert (game["table_id"], game["result"], game["won"]) == (table_id, "draw", False)
    assert {k: data["wins"][k] for k in ("games", "won", "drawn")} == {
        "games": 1, "won": 0, "drawn": 1}
    assert data["rated_games"] == 0 and data["rating"] is None  # D38
    for client in (ann, ops):
        client.close()


def test_D49_a_stalemate_is_a_draw_on_every_profile_and_rated_as_a_tie(
        server: ServerProcess) -> None:
    people = [account(server.url, name) for name in ("Bea", "Cid", "Dee", "Eli", "Fay")]
    clients = [client for client, _ in people]
    table_id = seated_table(clients)
    pass_to_the_end(server, table_id, clients)  # nobody votes, nobody dies: R34
    assert httpx.get(f"{server.url}/api/tables/{table_id}").json()["winner"] == "DRAW"
    for _, player_id in people:
        data = profile(server, player_id)
        assert [(g["result"], g["won"]) for g in data["games"]] == [("draw", False)]
        assert (data["wins"]["won"], data["wins"]["drawn"]) == (0, 1)
        assert data["rated_games"] == 1  # a draw the game itself reached: a tie
    won = profile(server, people[0][1])["wins"]["by_team"]
    assert [row["wins"] for row in won] == [0]  # one game for its team, not won
    for client in clients:
        client.close()
