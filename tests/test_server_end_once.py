"""The end of a game happens once (issue 21): an action after the end — a "gg" in the chat —
is an ordinary action, not a second end of the game, through a real `trusis serve` whose
log output is read."""

from __future__ import annotations

from pathlib import Path

from serverproc import Guest, Player, running_server
from test_server_game import _play_to_the_end


def test_a_message_after_the_end_does_not_end_the_game_again(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with running_server("sqlite", tmp_path, log=log) as server:
        ann = Guest(server.url, "Ann")
        table = ann.create(seats=5, day_seconds=60, night_seconds=30)
        ann.sit(table["id"])
        ann.bots(table["id"], 4)
        ann.start(table["id"])
        player = Player(server, table["id"], ann.token)
        try:
            _play_to_the_end(player)
            winner = ann.http.get(f"/api/tables/{table['id']}/summary").json()["winner"]
            for text in ("gg", "well played", "again?"):
                assert player.command(do="say", text=text)["type"] == "ack"
            player.until(lambda p: sum(e["code"] == "said" for e in p.events) >= 3, 10)
            # The game ended once: one game_over, and the end screen has not moved.
            assert sum(e["code"] == "game_over" for e in player.events) == 1
            assert ann.http.get(f"/api/tables/{table['id']}/summary").json()["winner"] == winner
        finally:
            player.close()
            ann.close()
    text = log.read_text()
    assert "history was not kept" not in text, text
    assert "IntegrityError" not in text, text
    assert "Traceback" not in text, text
