"""Small things a first visitor meets, through a real `trusis serve` (issue 21)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from serverproc import Guest, Player, ServerProcess, running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("forgiving")) as proc:
        yield proc


def test_head_of_every_page_answers_200_like_get(server: ServerProcess) -> None:
    for path in ("/", "/t/abc", "/leaderboard"):
        head = httpx.head(server.url + path)
        get = httpx.get(server.url + path)
        assert head.status_code == 200 == get.status_code, path
        assert head.headers["content-type"] == get.headers["content-type"]
        assert head.content == b""


def test_a_visitor_without_a_name_is_no_error(server: ServerProcess) -> None:
    """The page asks /api/session on a first visit: 200 and no player, not a 401."""
    visitor = httpx.get(server.url + "/api/session")
    assert visitor.status_code == 200 and visitor.json() == {"player": None}
    ann = Guest(server.url, "Ann")
    try:
        known = ann.http.get("/api/session").json()["player"]
        assert known == {"id": ann.id, "name": "Ann", "kind": "guest"}
        assert ann.http.get("/api/me").json()["player"] == known
        assert httpx.get(server.url + "/api/me").status_code == 401  # unchanged (docs/protocol.md)
    finally:
        ann.close()


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_human_in_a_custom_set_is_refused_with_the_reason_of_R3(
        server: ServerProcess, lang: str, tmp_path: Path) -> None:
    """D24: HUMAN is a role, but a custom set never counts it (R3): the refusal says so."""
    ann = Guest(server.url, "Ann")
    try:
        reply = ann.http.post("/api/tables", json={
            "name": "humans", "seats": 5, "set": {"custom": {"TRUSIS": 1, "HUMAN": 4}}})
        assert reply.status_code == 422
        body = reply.json()
        assert body["code"] == "setup.human_in_set"
        assert "R3" in body["message"] and "not a role" not in body["message"]
        catalogue = ann.http.get(f"/api/i18n/{lang}").json()
        human = catalogue["roles"]["HUMAN"]["name"]
        text = catalogue["messages"]["setup.human_in_set"]
        assert text.startswith(human) and "(R3)" in text, text
    finally:
        ann.close()


def test_an_action_chosen_in_a_phase_that_is_over_is_refused(server: ServerProcess) -> None:
    """D22: an action carrying the phase it was chosen in is refused once that phase is over
    (`stale_phase`), changes nothing, and acts as usual in its own phase."""
    ann = Guest(server.url, "Ann")
    table = ann.create(seats=5, day_seconds=300, night_seconds=300)
    ann.sit(table["id"])
    ann.bots(table["id"], 4)
    ann.start(table["id"])
    player = Player(server, table["id"], ann.token)
    try:
        player.until(lambda p: p.view is not None and p.view["phase"]["kind"] == "day", 15)
        target = player.legal()["vote"]["targets"][0]
        late = player.command(do="vote", target=target, phase={"kind": "night", "number": 1})
        assert late["type"] == "refused" and late["code"] == "stale_phase"
        assert late["params"] == {"kind": "night", "number": 1}
        assert late["message"] == ("chosen during Night 1, which has ended: nothing was "
                                   "applied, choose again")
        player.until(lambda p: True, 0.5)
        assert "vote" not in (player.view or {})["choices"]
        seen = player.command(do="vote", target=target, phase={"kind": "day", "number": 1})
        assert seen["type"] == "ack"
        # A phase that is not one is a malformed frame: an `error` naming the field.
        player.send(do="vote", target=target, phase={"kind": "dusk", "number": 1})
        player.until(lambda p: any(m["type"] == "error" for m in p.messages), 10)
        error = next(m for m in player.messages if m["type"] == "error")
        assert error["field"] == "action.phase.kind"
    finally:
        player.close()
        ann.close()
