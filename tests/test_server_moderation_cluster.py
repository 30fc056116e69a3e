"""Sanctions across two `trusis serve` processes (issue 18): a mute, a warning or a ban
given on process a is in force (or told, D53) on process b at once — the database holds
them and is asked where chat is refused and where a player signs in, a warning reaches b
over the bus, and so does a ban's revocation, which closes the banned player's connections
there (after telling them why) and hands their seat to a bot on the game's owner (R52,
R53)."""

from __future__ import annotations

import time

import httpx

from clusterproc import Cluster, needs_cluster
from modhelp import account, grant, sanction
from serverplay import Conn, command
from serverproc import Guest

pytestmark = needs_cluster


def test_mute_and_ban_on_a_hold_on_b(two_processes: Cluster) -> None:
    a, b = two_processes.servers
    mod, _ = account(a.url, "Mod")
    grant(a, "Mod", "moderator")
    # a game owned by b (created there), its players connected to b
    host = Guest(b.url, "Host")
    cid = Guest(b.url, "Cid")
    table = host.create(seats=5, day_seconds=3600, night_seconds=1800)["id"]
    host.sit(table)
    assert cid.sit(table) == 2
    host.bots(table, 3)
    host.start(table)
    conn = Conn(b, table, cid.token).open()
    try:
        assert command(conn, do="say", text="hello")["type"] == "ack"
        muted = sanction(mod, cid.id, "mute", "spam", minutes=5)  # on a
        answer = command(conn, do="say", text="again")  # on b, at once
        assert answer["type"] == "refused" and answer["code"] == "muted", answer
        assert mod.delete(f"/api/moderation/sanctions/{muted['id']}",
                          params={"reason": "lifted"}).status_code == 200
        assert command(conn, do="say", text="sorry")["type"] == "ack"
        warned = sanction(mod, cid.id, "warning", "calm down")  # on a: told on b at once
        conn.until(lambda c: any(m["type"] == "warning" for m in c.messages), 10)
        told = next(m for m in conn.messages if m["type"] == "warning")
        assert (told["id"], told["reason"]) == (warned["id"], "calm down")
        sanction(mod, cid.id, "ban", "threats")  # on a
        assert conn.wait_closed() == 4423  # b closed it, after saying why
        assert [m for m in conn.messages if m["type"] == "banned"] == [
            {"type": "banned", "until": None, "reason": "threats"}]
        assert httpx.get(b.url + "/api/me", headers={"Authorization": f"Bearer {cid.token}"}
                         ).status_code == 403
        refused = httpx.post(b.url + "/api/guest", json={"name": "Cid2"},
                             headers={"Authorization": f"Bearer {cid.token}"})
        assert refused.status_code == 403 and refused.json()["code"] == "banned"
        deadline = time.monotonic() + 15
        while (seats := host.http.get(f"/api/tables/{table}").json()["seats"])[1][
                "kind"] != "bot" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert seats[1]["kind"] == "bot", seats  # handed over by b, the owner
    finally:
        conn.close()


def test_D71_a_line_hidden_on_a_is_gone_at_once_from_a_page_on_b(
        two_processes: Cluster) -> None:
    """A hide given on process a reaches the pages process b serves over the bus (the
    `line_hidden` message): they read the chat again, the placeholder in the line's place,
    and the unhide brings it back."""
    a, b = two_processes.servers
    mod, _ = account(a.url, "Mod")
    grant(a, "Mod", "moderator")
    host = Guest(b.url, "Host")
    cid = Guest(b.url, "Cid")
    table = host.create(seats=5, day_seconds=3600, night_seconds=1800)["id"]
    host.sit(table)
    assert cid.sit(table) == 2
    host.bots(table, 3)
    host.start(table)
    reader = Conn(b, table, host.token).open()  # on b, the game's owner
    writer = Conn(b, table, cid.token).open()
    watching = Conn(a, table, "", headers={  # staff, on a: told each line's step
        "Cookie": f"trusis_session={mod.cookies.get('trusis_session')}"}).open()
    try:
        troll = "TROLL-cluster-4b1"
        assert command(writer, do="say", text=troll)["type"] == "ack"
        watching.until(lambda c: any(e["params"].get("text") == troll for e in c.events), 10)
        step = next(e["params"]["line"] for e in watching.events
                    if e["params"].get("text") == troll)
        reader.barrier()
        mark = reader.mark()
        hid = mod.post(f"/api/moderation/tables/{table}/chat/game/{step}",
                       json={"reason": "insults"})
        assert hid.status_code == 201, hid.text
        reader.until(lambda c: any(m["type"] == "snapshot" for m in c.since(mark)), 10)
        kinds = [m["type"] for m in reader.since(mark) if m["type"] != "table"]
        assert kinds[:2] == ["line_hidden", "snapshot"], kinds
        chat = next(m for m in reader.since(mark) if m["type"] == "snapshot")["view"]["chat"]
        assert any(x.get("hidden") and x["text"] == "(hidden by a moderator)" for x in chat)
        assert troll not in "".join(reader.frames[mark:])
        mark = reader.mark()
        shown = mod.delete(f"/api/moderation/tables/{table}/chat/game/{step}",
                           params={"reason": "a quote"})
        assert shown.status_code == 200, shown.text
        reader.until(lambda c: any(m["type"] == "snapshot" for m in c.since(mark)), 10)
        chat = next(m for m in reader.since(mark) if m["type"] == "snapshot")["view"]["chat"]
        assert any(x["text"] == troll and "hidden" not in x for x in chat)
    finally:
        for conn in (reader, writer, watching):
            conn.close()
