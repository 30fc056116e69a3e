"""What a third attack round found in moderation (issue 38), against a real `trusis serve`
over HTTP: reports about staff decided by someone not involved (D36), reasons and free
text cleaned as names are before they are stored (D9, D20) on SQLite and PostgreSQL, and an
act that never takes effect without its audit line (D37)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from modhelp import account, grant
from serverproc import Guest, ServerProcess, postgres_available, running_server

KINDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.skipif(
    not postgres_available(), reason="no PostgreSQL on 127.0.0.1:5432"))]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path) as running:
        yield running


@pytest.fixture(params=KINDS)
def both(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server(request.param, tmp_path) as running:
        yield running


def _table_with(server: ServerProcess, *sitting: httpx.Client) -> tuple[Guest, str]:
    """A waiting table of five hosted by a guest, the given clients seated from seat 2."""
    host = Guest(server.url, "Hugo")
    table = host.create(seats=5)
    host.sit(table["id"], 1)
    for n, client in enumerate(sitting, start=2):
        reply = client.post(f"/api/tables/{table['id']}/seats", json={"seat": n})
        assert reply.status_code == 200, reply.text
    return host, str(table["id"])


def _report(client: httpx.Client, table: str, seat: int, reason: str = "rude") -> str:
    reply = client.post(f"/api/tables/{table}/reports", json={"seat": seat, "reason": reason})
    assert reply.status_code == 201, reply.text
    return str(reply.json()["id"])


def test_d36_a_moderator_cannot_decide_a_report_about_themself_or_a_fellow_moderator(
        server: ServerProcess) -> None:
    """The round's probe: a moderator dismissed a report about themself (200), and one about
    a fellow moderator. Reports about staff go to an admin, as their sanctions do (D36); a
    moderator who filed a report does not decide it either."""
    mod, _ = account(server.url, "Mod")
    other, _ = account(server.url, "Otto")
    root, _ = account(server.url, "Root")
    grant(server, "Mod", "moderator")
    grant(server, "Otto", "moderator")
    grant(server, "Root", "admin")
    host, table = _table_with(server, mod, other)
    about_mod = _report(host.http, table, 2)
    about_otto = _report(host.http, table, 3)
    by_mod = _report(mod, table, 1)
    own = mod.post(f"/api/moderation/reports/{about_mod}", json={"state": "dismissed"})
    assert (own.status_code, own.json()["code"]) == (409, "own_report")
    fellow = mod.post(f"/api/moderation/reports/{about_otto}", json={"state": "dismissed"})
    assert (fellow.status_code, fellow.json()["code"]) == (403, "not_admin")
    filed = mod.post(f"/api/moderation/reports/{by_mod}", json={"state": "dismissed"})
    assert (filed.status_code, filed.json()["code"]) == (409, "own_report")
    reports = {r["id"]: r for r in mod.get("/api/moderation/reports").json()["reports"]}
    assert {r["state"] for r in reports.values()} == {"open"}  # nothing was decided
    assert reports[about_mod]["about_staff"] is reports[about_otto]["about_staff"] is True
    assert reports[by_mod]["about_staff"] is False
    # someone not involved decides them: the other moderator a guest's, an admin any
    assert other.post(f"/api/moderation/reports/{by_mod}",
                      json={"state": "dismissed"}).status_code == 200
    for report in (about_mod, about_otto):
        assert root.post(f"/api/moderation/reports/{report}",
                         json={"state": "acted", "reason": "spoke to them"}).status_code == 200
    assert not any(x["action"] == "dismissed" and x["actor_name"] == "Mod"
                   for x in root.get("/api/moderation/audit").json()["log"])


DIRTY = "spam\x00 and\x07 more\u202e\u200b\x1b[31m"
"""A NUL, a bell, a right-to-left override, a zero-width space and an escape sequence."""


def _clean(text: str) -> bool:
    return text.isprintable() and "\u202e" not in text and "\u200b" not in text


@pytest.mark.parametrize("both", KINDS, indirect=True)
def test_d9_control_characters_in_every_reason_are_cleaned_on_both_databases(
        both: ServerProcess) -> None:
    """A NUL in a reason answered 500 on PostgreSQL (a report, a decision on one, a role's
    reason, a lift's, a draw's). Every reason is cleaned as a name is (D9, D20) before it
    is stored: a NUL becomes a space, as any control or format character does."""
    server = both
    root, _ = account(server.url, "Root")
    grant(server, "Root", "admin")
    _, mona = account(server.url, "Mona")
    rex = Guest(server.url, "Rex")
    host, table = _table_with(server)
    rex.sit(table, 2)
    report = host.http.post(f"/api/tables/{table}/reports",
                            json={"seat": 2, "reason": DIRTY})
    assert report.status_code == 201, report.text
    decided = root.post(f"/api/moderation/reports/{report.json()['id']}",
                        json={"state": "dismissed", "reason": DIRTY})
    assert decided.status_code == 200, decided.text
    role = root.post("/api/staff", json={"name": "Mona", "role": "moderator", "reason": DIRTY})
    assert role.status_code == 200, role.text
    muted = root.post(f"/api/moderation/players/{rex.id}/sanctions",
                      json={"kind": "mute", "reason": DIRTY, "minutes": 5})
    assert muted.status_code == 201, muted.text
    lifted = root.delete(f"/api/moderation/sanctions/{muted.json()['id']}",
                         params={"reason": DIRTY})
    assert lifted.status_code == 200, lifted.text
    stored = root.get("/api/moderation/reports").json()["reports"][0]["reason"]
    assert _clean(stored) and stored.startswith("spam and more"), stored
    lines = root.get("/api/moderation/audit").json()["log"]
    reasons = [x["reason"] for x in lines if x["action"] in (
        "dismissed", "grant_moderator", "mute", "lift_mute")]
    assert len(reasons) == 4 and all(_clean(r) and "spam and more" in r for r in reasons), \
        reasons
    for name in ("Mo\x00na", "Rex\x00"):  # the names looked up are text a query can hold
        found = root.get("/api/moderation/players", params={"name": name})
        assert found.status_code in (200, 422), found.text
        staffed = root.post("/api/staff", json={"name": name, "role": "moderator"})
        assert staffed.status_code in (404, 422), staffed.text
    assert mona


def _refuse_audit_lines(server: ServerProcess) -> None:
    """A trigger that makes every new audit line fail, on the server's own database."""
    if server.database.startswith("sqlite"):
        path = server.database.split("///", 1)[1]
        with sqlite3.connect(path) as db:
            db.execute("CREATE TRIGGER no_audit BEFORE INSERT ON moderation_log "
                       "BEGIN SELECT RAISE(ABORT, 'audit refused'); END")
        return
    import asyncio

    import asyncpg

    async def run() -> None:
        conn = await asyncpg.connect(server.database)
        try:
            await conn.execute("""
                CREATE FUNCTION no_audit() RETURNS trigger AS $$
                BEGIN RAISE EXCEPTION 'audit refused'; END $$ LANGUAGE plpgsql;
                CREATE TRIGGER no_audit BEFORE INSERT ON moderation_log
                FOR EACH ROW EXECUTE FUNCTION no_audit();""")
        finally:
            await conn.close()

    asyncio.run(run())


@pytest.mark.parametrize("both", KINDS, indirect=True)
def test_d37_a_grant_or_a_draw_whose_audit_line_fails_does_not_take_effect(
        both: ServerProcess) -> None:
    """A staff grant and an admin's draw took effect with no audit line when the line could
    not be written. An act and its line are one: no line, no act."""
    server = both
    root, _ = account(server.url, "Root")
    grant(server, "Root", "admin")
    mona, _ = account(server.url, "Mona")
    guests = [Guest(server.url, n) for n in ("Ann", "Bob", "Cid", "Dan", "Eve")]
    table = guests[0].create(seats=5)
    for n, guest in enumerate(guests, start=1):
        guest.sit(table["id"], n)
    guests[0].start(table["id"])
    _refuse_audit_lines(server)
    granted = root.post("/api/staff", json={"name": "Mona", "role": "moderator"})
    assert granted.status_code == 500, granted.text
    assert mona.get("/api/staff").json()["roles"] == []
    drawn = root.post(f"/api/admin/tables/{table['id']}/draw", json={"reason": "stuck"})
    assert drawn.status_code == 500, drawn.text
    state: dict[str, Any] = guests[1].http.get(f"/api/tables/{table['id']}").json()
    assert state["status"] == "running", state


def test_d9_a_report_reason_of_invisible_characters_only_is_refused(
        server: ServerProcess) -> None:
    """Report reasons kept bidi marks and zero-width characters, and one of invisible
    characters only was filed, where a sanction's is refused: both are cleaned alike."""
    host, table = _table_with(server)
    rex = Guest(server.url, "Rex")
    rex.sit(table, 2)
    for invisible in ("\u200b\u2060", "\u3164 \u2800", "\u202e\u200f"):
        refused = host.http.post(f"/api/tables/{table}/reports",
                                 json={"seat": 2, "reason": invisible})
        assert (refused.status_code, refused.json()["code"],
                refused.json()["params"]["field"]) == (422, "needs_reason", "reason")
    _report(host.http, table, 2, "bad\u200fwo\u200brd \u202eword")
    root, _ = account(server.url, "Root")
    grant(server, "Root", "admin")
    assert root.get("/api/moderation/reports").json()["reports"][0]["reason"] == \
        "bad wo rd word"
