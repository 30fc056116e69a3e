"""A moderator hides a troll's chat line, and shows it again (issue 38, D71), over a real
`trusis serve`: every byte to a seat that is not staff (live events, the snapshot, the
history a reconnect reads, the replay, the record's download) says the placeholder, the
writer reads their own line marked hidden with the reason, staff read it marked hidden;
the act and its undoing are audited, and the record still replays."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modhelp import account, grant
from serverplay import Conn, People, command, fresh_view, people
from serverproc import Guest, ServerProcess, running_server
from trusis.table.hiding import HIDDEN_TEXT
from trusis.table.record import parse_record
from trusis.table.table import Table

TROLL = "TROLL-line-7f3a"
WHISPER = "WHISPER-line-91c"


@pytest.fixture(params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server(request.param, tmp_path) as running:
        yield running


def moderator(server: ServerProcess, name: str = "Mod") -> httpx.Client:
    """An account signed in by cookie (as a browser is), made moderator."""
    mod, _ = account(server.url, name)
    grant(server, name, "moderator")
    return mod


def cookie(client: httpx.Client) -> dict[str, str]:
    return {"Cookie": f"trusis_session={client.cookies.get('trusis_session')}"}


def said(conn: Conn, text: str) -> dict[str, Any]:
    """The `said` event of `text` that `conn` received (its params)."""
    conn.until(lambda c: any(e["code"] == "said" and e["params"]["text"] == text
                             for e in c.events))
    return next(e["params"] for e in conn.events
                if e["code"] == "said" and e["params"]["text"] == text)


def chat_after_snapshot(conn: Conn, mark: int) -> list[dict[str, Any]]:
    """The chat of the first snapshot `conn` received after `mark`, after a `line_hidden`."""
    conn.until(lambda c: any(m["type"] == "snapshot" for m in c.since(mark)))
    kinds = [m["type"] for m in conn.since(mark) if m["type"] in ("line_hidden", "snapshot")]
    assert kinds[:2] == ["line_hidden", "snapshot"], kinds
    snapshot = next(m for m in conn.since(mark) if m["type"] == "snapshot")
    return list(snapshot["view"]["chat"])


def path(table: People, step: int, place: str = "game") -> str:
    return f"/api/moderation/tables/{table.id}/chat/{place}/{step}"


def test_D71_a_hidden_line_is_gone_for_everyone_but_staff_and_its_writer(
        server: ServerProcess) -> None:
    mod = moderator(server)
    root, _ = account(server.url, "Root")
    grant(server, "Root", "admin")
    table = people(server, 5)
    watching = Conn(server, table.id, "", headers=cookie(mod)).open()  # staff: lines named
    onlooker = table.watch()
    try:
        assert command(table.conns[2], do="say", text=TROLL)["type"] == "ack"
        assert command(table.conns[3], do="say", text="a fair line")["type"] == "ack"
        assert command(table.conns[2], do="say", text=WHISPER, to=4)["type"] == "ack"
        table.barrier()
        step = said(watching, TROLL)["line"]
        assert isinstance(step, int) and step >= 1
        assert "line" not in said(table.conns[4], TROLL)  # a seat is never told a step
        whisper_step = said(watching, "a fair line")["line"] + 1

        # refusals, each with its code, and nothing hidden by them
        gus = Guest(server.url, "Gus")
        assert gus.http.post(path(table, step), json={"reason": "x"}).json()["code"] == \
            "not_staff"
        missing = mod.post(path(table, 10_000), json={"reason": "troll"})
        assert missing.status_code == 404 and missing.json()["code"] == "no_such_line"
        nobody = mod.post(f"/api/moderation/tables/nosuch/chat/game/{step}",
                               json={"reason": "troll"})
        assert nobody.status_code == 404 and nobody.json()["code"] == "no_such_table"
        empty = mod.post(path(table, step), json={"reason": "\u200b"})
        assert empty.status_code == 422 and empty.json()["code"] == "needs_reason"
        unreported = mod.post(path(table, whisper_step), json={"reason": "troll"})
        assert unreported.status_code == 403, unreported.text
        assert unreported.json()["code"] == "whisper_not_reported"

        marks = table.marks()
        watched_at, onlooker_at = watching.mark(), onlooker.mark()
        hid = mod.post(path(table, step), json={"reason": "insults\x00 a player"})
        assert hid.status_code == 201, hid.text
        assert hid.json() == {"table": table.id, "place": "game", "number": step, "seat": 2,
                              "hidden": True, "reason": "insults a player",
                              "at": hid.json()["at"]}
        again = mod.post(path(table, step), json={"reason": "troll"})
        assert again.status_code == 409 and again.json()["code"] == "line_hidden"

        # live: every page reads the chat again, as it may
        for seat in (1, 3, 4, 5):
            chat = chat_after_snapshot(table.conns[seat], marks[table.conns[seat]])
            line = next(x for x in chat if x["from"] == 2 and "to" not in x)
            assert line["text"] == HIDDEN_TEXT and line["hidden"] is True
            assert "reason" not in line and "line" not in line
            assert any(x["text"] == "a fair line" for x in chat)  # the others stay
        own = next(x for x in chat_after_snapshot(table.conns[2], marks[table.conns[2]])
                   if x["from"] == 2 and "to" not in x)
        assert own == {**own, "text": TROLL, "hidden": True, "reason": "insults a player"}
        staff_line = next(x for x in chat_after_snapshot(watching, watched_at)
                          if x.get("line") == step)
        assert staff_line["text"] == TROLL and staff_line["reason"] == "insults a player"
        chat_after_snapshot(onlooker, onlooker_at)

        # a reconnect: the snapshot, and the events after a stream number (the history)
        assert TROLL not in json.dumps(fresh_view(server, table.id, table.guests[4].token))
        again_4 = Conn(server, table.id, table.guests[4].token, last_seq=0).open()
        again_4.barrier()
        assert TROLL not in "".join(again_4.frames)
        # a returning page starts from a snapshot: its chat replaces what the page held
        assert next(m["type"] for m in again_4.messages if m["type"] in ("snapshot", "events")
                ) == "snapshot"
        again_4.close()
        # a line said after the hide is sent to everyone as said
        assert command(table.conns[2], do="say", text="later line")["type"] == "ack"
        said(table.conns[5], "later line")

        # no frame to a seat but its writer, nor to a watcher who is not staff, holds it
        table.barrier()
        for conn in [*[table.conns[s] for s in (1, 3, 4, 5)], onlooker]:
            after = "".join(conn.frames[marks.get(conn, 0):])
            assert TROLL not in after

        # a report's excerpt: the host (a player) reads the placeholder; a whisper the
        # report holds may be hidden, and its reader then reads the placeholder too
        assert table.guests[4].http.post(f"/api/tables/{table.id}/reports", json={
            "seat": 2, "reason": "insults"}).status_code == 201
        hosted = table.host.http.get(f"/api/tables/{table.id}/reports")
        assert hosted.status_code == 200 and TROLL not in hosted.text, hosted.text
        assert HIDDEN_TEXT in hosted.text
        excerpt = mod.get("/api/moderation/reports").json()["reports"][0]["chat"]
        assert next(x for x in excerpt if x["text"] == TROLL)["hidden_reason"] == \
            "insults a player"  # staff read it, marked
        mark_4 = table.conns[4].mark()
        whispered = mod.post(path(table, whisper_step), json={"reason": "threats"})
        assert whispered.status_code == 201, whispered.text
        chat = chat_after_snapshot(table.conns[4], mark_4)
        assert next(x for x in chat if x.get("to") == 4)["text"] == HIDDEN_TEXT

        log = mod.get("/api/moderation/audit").json()["log"]
        hide_line = next(x for x in log if x["action"] == "hide_line"
                         and x["line"].endswith(f"/{step}"))
        assert hide_line["line"] == f"{table.id}/game/{step}"
        assert hide_line["target_id"] == table.guests[2].id
        assert hide_line["reason"] == "insults a player"

        # unhide: audited, and the line is back on every page
        marks = table.marks()
        no_reason = mod.delete(path(table, step))
        assert no_reason.status_code == 422, no_reason.text
        shown = mod.delete(path(table, step), params={"reason": "it was a quote"})
        assert shown.status_code == 200 and shown.json()["hidden"] is False, shown.text
        twice = mod.delete(path(table, step), params={"reason": "again"})
        assert twice.status_code == 409 and twice.json()["code"] == "line_not_hidden"
        chat = chat_after_snapshot(table.conns[4], marks[table.conns[4]])
        line = next(x for x in chat if x["from"] == 2 and "to" not in x)
        assert line["text"] == TROLL and "hidden" not in line
        log = mod.get("/api/moderation/audit").json()["log"]
        assert log[0]["action"] == "unhide_line" and log[0]["reason"] == "it was a quote"

        # after the end: the replay and the downloads of everyone but its writer mask it
        assert mod.post(path(table, step), json={"reason": "insults"}).status_code == 201
        drawn = root.post(f"/api/admin/tables/{table.id}/draw", json={"reason": "test"})
        assert drawn.status_code == 200, drawn.text
        _check_downloads(server, table, step)
    finally:
        watching.close()
        table.close()


def _check_downloads(server: ServerProcess, table: People, step: int) -> None:
    """The record and the replay say the placeholder but to the writer, and still replay."""
    other = table.guests[4].http
    record = other.get(f"/api/tables/{table.id}/record")
    assert record.status_code == 200, record.text
    assert TROLL not in record.text
    data = record.json()
    assert data["actions"][step - 1]["text"] == HIDDEN_TEXT  # the same action, masked
    mine = table.guests[2].http.get(f"/api/tables/{table.id}/record").json()
    assert mine["actions"][step - 1]["text"] == TROLL
    assert len(mine["actions"]) >= len(data["actions"])
    for query in ({"step": step}, {"step": step, "seat": 4}, {"step": 10_000}):
        replay = other.get(f"/api/tables/{table.id}/replay", params=query)
        assert replay.status_code == 200, replay.text
        assert TROLL not in replay.text
    assert TROLL in table.guests[2].http.get(f"/api/tables/{table.id}/replay",
                                             params={"step": step}).text
    anyone = httpx.get(f"{server.url}/api/tables/{table.id}/replay", params={"step": step},
                       timeout=10)
    assert anyone.status_code == 200 and TROLL not in anyone.text
    assert TROLL not in other.get("/api/me/data").text
    replayed = Table.from_record(parse_record(data))  # the masked record replays the same
    assert not replayed.state.running


def test_D71_a_waiting_room_line_is_hidden_for_everyone_but_staff_and_its_writer(
        server: ServerProcess) -> None:
    """A line of the waiting room (D45), named by its number `n`: every connection reads the
    room's lines again whole, the placeholder in its place; one that connects later too."""
    mod = moderator(server)
    guests = [Guest(server.url, name) for name in ("Ann", "Bob")]
    tid = guests[0].create(seats=5, day_seconds=60, night_seconds=30)["id"]
    for number, guest in enumerate(guests, 1):
        assert guest.sit(tid, number) == number
    ann, bob = (Conn(server, tid, g.token) for g in guests)
    watcher = Conn(server, tid, Guest(server.url, "Watcher").token)
    staff = Conn(server, tid, "", headers=cookie(mod))
    try:
        for conn in (ann, bob, watcher, staff):
            conn.barrier()
        assert command(bob, do="say", text="hello")["type"] == "ack"
        assert command(bob, do="say", text=TROLL)["type"] == "ack"
        for conn in (ann, bob, watcher, staff):
            conn.barrier()
        said_lines = [x for m in staff.messages if m["type"] == "waiting_chat"
                      for x in m["lines"]]
        number = next(x["n"] for x in said_lines if x["text"] == TROLL)
        assert next(x for x in said_lines if x["text"] == TROLL)["line"] == number
        marks = {conn: conn.mark() for conn in (ann, bob, watcher, staff)}
        hid = mod.post(f"/api/moderation/tables/{tid}/chat/waiting/{number}",
                       json={"reason": "insults"})
        assert hid.status_code == 201, hid.text
        missing = mod.post(f"/api/moderation/tables/{tid}/chat/waiting/99",
                           json={"reason": "insults"})
        assert missing.status_code == 404 and missing.json()["code"] == "no_such_line"
        for conn in (ann, bob, watcher, staff):
            conn.barrier()
            news = [m for m in conn.since(marks[conn]) if m["type"] in ("line_hidden",
                                                                        "waiting_chat")]
            assert [m["type"] for m in news] == ["line_hidden", "waiting_chat"], news
            assert news[0]["place"] == "waiting" and news[0]["hidden"] is True
            line = next(x for x in news[1]["lines"] if x["n"] == number)
            assert news[1]["lines"][0]["text"] == "hello"  # whole, in order
            if conn in (bob, staff):  # its writer, and staff: as written, with the reason
                assert (line["text"], line["hidden"], line["reason"]) == (TROLL, True,
                                                                         "insults")
            else:
                assert line == {**line, "text": HIDDEN_TEXT, "hidden": True}
                assert "reason" not in line
                assert TROLL not in "".join(conn.frames[marks[conn]:])
        later = Conn(server, tid, Guest(server.url, "Later").token)
        later.barrier()
        assert TROLL not in "".join(later.frames)
        later.close()
        # a restart forgets the room's lines (D45), not the hide: the lines said after it
        # are numbered past it, and none is hidden by a hide of a line of before
        for conn in (ann, bob, watcher, staff):
            conn.close()
        server.stop()
        server.start()
        ann, bob = (Conn(server, tid, g.token) for g in guests)
        for conn in (ann, bob):
            conn.barrier()
        assert command(bob, do="say", text="back again")["type"] == "ack"
        ann.barrier()
        [again] = [x for m in ann.messages if m["type"] == "waiting_chat" for x in m["lines"]]
        assert again["text"] == "back again" and "hidden" not in again
        assert again["n"] > number
    finally:
        for conn in (ann, bob, watcher, staff):
            conn.close()


def test_D71_D36_nobody_hides_their_own_line_and_only_an_admin_a_moderator_s(
        server: ServerProcess) -> None:
    mona = moderator(server, "Mona")  # a moderator who plays
    mod = moderator(server, "Mod")
    root, _ = account(server.url, "Root")
    grant(server, "Root", "admin")
    host = Guest(server.url, "Ann")
    tid = host.create(seats=5, day_seconds=60, night_seconds=30)["id"]
    assert host.sit(tid, 1) == 1
    assert mona.post(f"/api/tables/{tid}/seats", json={"seat": 2}).status_code == 200
    conn = Conn(server, tid, "", headers=cookie(mona))
    try:
        conn.barrier()
        assert command(conn, do="say", text="a moderator's line")["type"] == "ack"
        conn.barrier()
        number = next(x["n"] for m in conn.messages if m["type"] == "waiting_chat"
                      for x in m["lines"])
        where = f"/api/moderation/tables/{tid}/chat/waiting/{number}"
        own = mona.post(where, json={"reason": "mine"})
        assert own.status_code == 409 and own.json()["code"] == "own_line", own.text
        fellow = mod.post(where, json={"reason": "rude"})
        assert fellow.status_code == 403 and fellow.json()["code"] == "not_admin"
        assert root.post(where, json={"reason": "rude"}).status_code == 201
        assert mod.delete(where, params={"reason": "ok"}).json()["code"] == "not_admin"
        assert mona.delete(where, params={"reason": "ok"}).json()["code"] == "own_line"
        assert root.delete(where, params={"reason": "ok"}).status_code == 200
    finally:
        conn.close()
