"""A whole game through a real `trusis serve` process (uvicorn), on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from serverproc import Guest, Player, postgres_available, running_server

KINDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.skipif(
    not postgres_available(), reason="no PostgreSQL at TRUSIS_TEST_POSTGRES"))]


def _play_to_the_end(player: Player, timeout: float = 120) -> None:
    """Vote for the first legal target by day, then pass, until the game ends."""
    def step(p: Player) -> bool:
        view = p.view
        if view is None:
            return False
        if view["status"] == "finished":
            return True
        me = view["seat"]
        mine = view["players"][me - 1]
        if mine["alive"] and not mine["passed"] and not mine["left"]:
            legal = p.legal()
            if view["phase"]["kind"] == "day" and legal.get("vote", {}).get("targets") \
                    and "vote" not in view["choices"]:
                p.command(do="vote", target=legal["vote"]["targets"][0])
            if "pass" in p.legal():
                p.command(do="pass")
        return False
    player.until(step, timeout)


@pytest.mark.parametrize("kind", KINDS)
def test_one_person_and_four_bots_play_from_the_lobby_to_the_end_screen(
        kind: str, tmp_path: Path) -> None:
    with running_server(kind, tmp_path) as server:
        ann = Guest(server.url, "Ann")
        table = ann.create(seats=5, day_seconds=60, night_seconds=30)
        assert table["roles"] == {"HUMAN": 2, "TRUSIS": 1, "SWEEPER": 1, "BUTCHER": 1}
        assert ann.sit(table["id"]) == 1
        ann.bots(table["id"], 4)
        assert ann.start(table["id"])["status"] == "running"
        # The record is secret while the game runs (it holds the seed and the deal).
        assert ann.http.get(f"/api/tables/{table['id']}/record").status_code == 403
        player = Player(server, table["id"], ann.token)
        _play_to_the_end(player)
        assert player.view is not None and player.view["winner"] is not None
        assert [e["seq"] for e in player.events] == list(range(1, player.seq + 1))
        record = ann.http.get(f"/api/tables/{table['id']}/record")
        assert record.status_code == 200 and record.json()["format"] == "trusis-record/1"
        assert all("t" in a for a in record.json()["actions"])
        end = ann.http.get(f"/api/tables/{table['id']}/summary").json()
        assert end["winner"] == player.view["winner"] and len(end["roles"]) == 5
        assert end["stats"]["table"] and end["stats"]["players"]["rows"]
        player.close()
