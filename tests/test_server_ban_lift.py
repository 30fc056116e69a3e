"""A lifted ban gives the same player back (issue 38, D36, D53): their browser keeps its
session through the ban, refused while the ban holds, so that once it is lifted the same
guest — name, history, seats — plays on. Against a real `trusis serve` over HTTP and the
WebSocket protocol."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modhelp import account, grant, sanction
from serverplay import Conn, people
from serverproc import Guest, ServerProcess, running_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path) as running:
        yield running


def test_d36_a_lifted_ban_gives_the_same_guest_back_with_their_seat(
        server: ServerProcess) -> None:
    """A banned guest whose ban was lifted had lost their identity: a new name, a new
    player, watching their own game. Now the browser's session (its cookie) and the
    program's token are refused while banned and work again once the ban is lifted."""
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    table = people(server, 5)
    try:
        cid = table.guests[3]
        browser = httpx.Client(base_url=server.url, timeout=10)  # Cid's cookie alone
        browser.cookies.update(cid.http.cookies)
        assert browser.get("/api/me").json()["player"]["id"] == cid.id
        ban = sanction(mod, cid.id, "ban", "threats")
        assert table.conns[3].wait_closed() == 4423
        for client in (cid.http, browser):
            refused = client.get("/api/me")
            assert (refused.status_code, refused.json()["code"]) == (403, "banned")
            again = client.post("/api/guest", json={"name": "Cid again"})
            assert (again.status_code, again.json()["code"]) == (403, "banned")
        table.conns[1].until(lambda c: c.view is not None and c.view["players"][2]["bot"])
        lifted = mod.delete(f"/api/moderation/sanctions/{ban['id']}",
                            params={"reason": "appeal heard"})
        assert lifted.status_code == 200, lifted.text
        for client in (cid.http, browser):  # the same player, not a new guest
            me = client.get("/api/me")
            assert me.status_code == 200, me.text
            assert me.json()["player"] == {"id": cid.id, "name": "Cid", "kind": "guest"}
        back = Conn(server, table.id, cid.token).open()  # D29: their seat at once
        assert back.seat == 3 and not back.me["bot"]
        table.conns[1].until(lambda c: c.view is not None
                             and not c.view["players"][2]["bot"])
        info = table.guests[1].http.get(f"/api/tables/{table.id}").json()
        assert (info["seats"][2]["kind"], info["seats"][2]["name"]) == ("person", "Cid")
        back.close()
    finally:
        table.close()


def _seat_of(table: dict[str, Any], name: str) -> int | None:
    return next((s["seat"] for s in table["seats"] if s.get("name") == name), None)


def _until_freed(client: httpx.Client, table_id: str, name: str) -> None:
    """A ban frees the seat just after it is given (banning.py): wait for it."""
    deadline = time.monotonic() + 15
    while _seat_of(client.get(f"/api/tables/{table_id}").json(), name) is not None:
        assert time.monotonic() < deadline, f"{name}'s seat was never freed"
        time.sleep(0.05)


def test_d72_a_lifted_ban_gives_the_waiting_room_seat_back(server: ServerProcess) -> None:
    """A ban freed a guest's seat in a waiting room (D36); lifted while the table still
    waits, the seat stayed free and the player came back a spectator. Now the lift gives
    the same seat back when it is still free (D72)."""
    mod, _ = account(server.url, "Mo")
    grant(server, "Mo", "moderator")
    table = people(server, 5, start=False)
    try:
        cid = table.guests[3]
        ban = sanction(mod, cid.id, "ban", "threats")
        host = table.guests[1].http
        _until_freed(host, table.id, "Cid")
        freed = host.get(f"/api/tables/{table.id}").json()
        assert _seat_of(freed, "Cid") is None
        lifted = mod.delete(f"/api/moderation/sanctions/{ban['id']}",
                            params={"reason": "a mistake"})
        assert lifted.status_code == 200, lifted.text
        back = host.get(f"/api/tables/{table.id}").json()
        assert _seat_of(back, "Cid") == 3, back["seats"]
        mine = cid.http.get(f"/api/tables/{table.id}").json()
        assert "seat_lost" not in mine
    finally:
        table.close()


def test_d72_a_seat_taken_meanwhile_is_said_on_the_player_s_page(
        server: ServerProcess) -> None:
    """The seat was taken while the ban held: the player is not put elsewhere, and their
    table says which seat they lost (`seat_lost`) until they choose one (D72)."""
    mod, _ = account(server.url, "Mu")
    grant(server, "Mu", "moderator")
    table = people(server, 5, start=False)
    try:
        cid = table.guests[3]
        ban = sanction(mod, cid.id, "ban", "threats")
        _until_freed(table.guests[1].http, table.id, "Cid")
        assert table.guests[5].http.delete(f"/api/tables/{table.id}/seats/mine").status_code < 300
        dan = Guest(server.url, "Dot")
        assert dan.sit(table.id, 3) == 3  # Cid's seat, taken while the ban holds
        assert mod.delete(f"/api/moderation/sanctions/{ban['id']}",
                          params={"reason": "a mistake"}).status_code == 200
        mine = cid.http.get(f"/api/tables/{table.id}").json()
        assert _seat_of(mine, "Cid") is None and _seat_of(mine, "Dot") == 3
        assert mine["seat_lost"] == 3
        others = table.guests[1].http.get(f"/api/tables/{table.id}").json()
        assert "seat_lost" not in others  # said to its player only
        assert cid.sit(table.id, 5) == 5
        assert "seat_lost" not in cid.http.get(f"/api/tables/{table.id}").json()
        dan.close()
    finally:
        table.close()
