"""Your games (D48) through a real `trusis serve`: `GET /api/me/tables`.

Every open or running table where the player holds a seat, or which they host — private
ones included, which the lobby's public list never shows — with what the player needs to
open it again: their seat or their host's role is enough (no invite in the link), and the
invite is in the answer for the host only, never for a seated player or anyone else.
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from serverproc import Guest, Player, ServerProcess


def yours(guest: Guest) -> list[dict[str, Any]]:
    reply = guest.http.get("/api/me/tables")
    assert reply.status_code == 200, reply.text
    tables: list[dict[str, Any]] = reply.json()["tables"]
    return tables


def test_D48_a_private_table_is_found_again_by_its_players_and_its_host_only(
        server: ServerProcess) -> None:
    hana, gus, eve = (Guest(server.url, n) for n in ("Hana", "Gus", "Eve"))
    table = hana.create(name="Secret", seats=5, private=True)  # Hana hosts, does not sit
    tid, invite = table["id"], table["invite"]
    assert gus.sit(tid, invite=invite) == 1
    public = gus.create(name="Open one", seats=5)["id"]  # and a table of his own
    gus.sit(public)

    found = gus.http.get("/api/me/tables")
    assert found.status_code == 200
    assert invite not in found.text  # the invite is the host's (docs/protocol.md)
    mine = found.json()["tables"]
    assert [t["id"] for t in mine] == [public, tid]  # newest first
    secret = mine[1]
    assert (secret["name"], secret["status"], secret["options"]["private"]) == (
        "Secret", "open", True)
    assert [s["seat"] for s in secret["seats"] if s.get("you")] == [1]
    assert "invite" not in secret and secret["you_host"] is False
    # What he needs to open it again is his seat: no invite in the link.
    assert gus.http.get(f"/api/tables/{tid}").status_code == 200

    hosted = yours(hana)
    assert [(t["id"], t["invite"], t["you_host"]) for t in hosted] == [(tid, invite, True)]
    assert yours(eve) == []  # nothing of anyone else's
    assert tid not in {t["id"] for t in eve.http.get("/api/tables").json()["tables"]}
    assert httpx.get(server.url + "/api/me/tables").json()["code"] == "not_signed_in"

    # Running: still his; after he leaves on purpose (D31), no longer his to open.
    hana.bots(tid, 4)
    hana.start(tid)
    running = next(t for t in yours(gus) if t["id"] == tid)
    assert running["status"] == "running"
    assert [s["seat"] for s in running["seats"] if s.get("you")] == [1]
    player = Player(server, tid, gus.token)
    player.until(lambda p: p.view is not None, 15)
    assert player.command(do="leave")["type"] == "ack"
    player.close()
    # The seat goes to a bot after the ack (the hand-over is stored, then the room changes):
    # read until it shows, as a page would on its next look.
    deadline = time.monotonic() + 15
    while [t["id"] for t in yours(gus)] != [public] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [t["id"] for t in yours(gus)] == [public]
    for guest in (hana, gus, eve):
        guest.close()


def test_D48_a_seat_a_bot_plays_while_its_player_is_away_is_still_theirs_to_open(
        server: ServerProcess) -> None:
    """D29: whose grace period ran out gets the seat back by opening the table."""
    hana, gus = Guest(server.url, "Hana"), Guest(server.url, "Gus")
    tid = hana.create(name="Away", seats=5, private=True, grace_seconds=5)["id"]
    hana.sit(tid)
    invite = hana.http.get(f"/api/tables/{tid}").json()["invite"]
    assert gus.sit(tid, invite=invite) == 2
    hana.bots(tid, 3)
    host = Player(server, tid, hana.token)  # Hana plays and does not pass: the day lasts
    host.until(lambda p: any(m["type"] == "table" for m in p.messages), 10)
    hana.start(tid)  # Gus is not connected: away from the start (R52)
    deadline = time.monotonic() + 30
    while True:
        seat = next(t for t in yours(gus) if t["id"] == tid)["seats"][1]
        if seat.get("yours_away") == "grace":
            break
        assert time.monotonic() < deadline, seat
        time.sleep(0.5)
    assert seat["kind"] == "bot" and not seat.get("you")  # a bot plays it meanwhile
    player = Player(server, tid, gus.token)  # opening the table gives it back
    player.until(lambda p: p.view is not None, 15)
    assert player.seat == 2 and player.view is not None and player.view["role"]
    player.close()
    host.close()
    for guest in (hana, gus):
        guest.close()
