"""D38 through a real `trusis serve`: an admin ends a stuck game as a draw.

Online: `POST /api/admin/tables/{id}/draw` (and `trusis admin draw --server URL --as
ADMIN`, which calls it) plays the staff's `draw` where the game is owned: every
connected seat and spectator receives `operator_draw` and `game_over` with no winner,
the lobby stops listing the table, its record ends with `{"do": "draw"}` and
`trusis replay` plays it to the same draw. Nobody else can: not the host, not a
player (as a command), not a moderator. Offline: `trusis admin draw` on the database
of a stopped server ends the game there; the restarted server shows it finished, the
players' history keeps it as a draw and nobody's rating moves. The refusals have a
code, a sentence and exit status 2 (docs/deploy.md, "Administration")."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import httpx
import pytest
from sqlalchemy import update

from clusterproc import Cluster
from modhelp import account, grant
from serverplay import NAMES, Conn, people
from serverproc import (
    Guest,
    Player,
    ServerProcess,
    drop_database,
    new_database,
    postgres_available,
    running_server,
)
from trusis.server.data import schema
from trusis.server.data.staff import grant as grant_role
from trusis.server.data.store import Store
from trusis.server.errors import LobbyError
from trusis.server.tables.room import Room
from trusis.server.tables.stuck import end_on_owner

KINDS = ["sqlite", "postgresql"]


def admin(server: ServerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trusis", "admin", *args, "--database",
                           server.database], capture_output=True, text=True, timeout=60)


def replay(tmp_path: Path, record: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "trusis", "replay", str(path), "--json"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path) as running:
        yield running


def ended_for(conn: Conn) -> dict[str, Any]:
    """The `game_over` a client received, once its view shows the end."""
    conn.until(lambda c: c.view is not None and c.view["status"] == "finished", 15)
    codes = [e["code"] for e in conn.events]
    assert codes[-2:] == ["operator_draw", "game_over"], codes[-5:]
    over: dict[str, Any] = conn.events[-1]["params"]
    return over


def lobby_ids(server: ServerProcess) -> list[str]:
    return [t["id"] for t in httpx.get(server.url + "/api/tables", timeout=10).json()["tables"]]


def test_D38_an_admin_ends_a_stuck_game_for_everyone(server: ServerProcess,
                                                     tmp_path: Path) -> None:
    ops, _ = account(server.url, "Ops")
    grant(server, "Ops", "admin")
    mod, _ = account(server.url, "Mod")
    grant(server, "Mod", "moderator")
    table = people(server)
    watcher = table.watch()
    try:
        table.play(1, do="vote", target=2)
        assert table.id in lobby_ids(server)
        path = f"/api/admin/tables/{table.id}/draw"
        # Nobody but an admin: not the host, not a moderator, not a player's command.
        for who in (table.host.http, mod):
            refused = who.post(path, json={"reason": "mine"})
            assert refused.status_code == 403 and refused.json()["code"] == "not_admin"
        assert table.play(2, do="draw")["code"] == "unknown_action"
        assert httpx.post(server.url + path, timeout=10).status_code == 401
        assert table.conns[1].view is not None and table.conns[1].view["status"] == "running"

        done = ops.post(path, json={"reason": "two players gone, the rest asked"})
        assert done.status_code == 200, done.text
        assert done.json()["winner"] == "DRAW" and done.json()["status"] == "finished"
        for conn in table.everyone():
            over = ended_for(conn)
            assert over["winner"] == "DRAW" and over["winners"] == []
            assert len(over["roles"]) == 5  # R35: every role shown
        assert watcher.view is not None and watcher.view["winner"] == "DRAW"
        assert table.id not in lobby_ids(server)

        record = table.host.http.get(f"/api/tables/{table.id}/record").json()
        last = record["actions"][-1]
        assert {k: v for k, v in last.items() if k != "t"} == {"do": "draw"}
        result = replay(tmp_path, record)
        assert (result["status"], result["winner"], result["winners"]) == (
            "finished", "DRAW", [])

        again = ops.post(path)
        assert again.status_code == 409 and again.json()["code"] == "not_running"
        assert again.json()["params"] == {"table_status": "finished"}
        missing = ops.post("/api/admin/tables/nosuchtable/draw")
        assert missing.status_code == 404 and missing.json()["code"] == "no_such_table"
        audit = ops.get("/api/moderation/audit").json()
        lines = [a for a in audit["log"] if a["action"] == "draw"]
        assert [a["reason"] for a in lines] == [
            f"table {table.id}: two players gone, the rest asked"]
    finally:
        table.close()


def test_D38_an_open_table_is_not_a_game_to_end(server: ServerProcess) -> None:
    ops, _ = account(server.url, "Ops")
    grant(server, "Ops", "admin")
    host = Guest(server.url, "Ann")
    table = host.create(seats=5)
    refused = ops.post(f"/api/admin/tables/{table['id']}/draw")
    assert refused.status_code == 409 and refused.json()["code"] == "not_running"
    assert refused.json()["params"] == {"table_status": "open"}
    done = admin(server, "draw", table["id"])
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: not_running: ") and "is open" in done.stderr


def test_D38_the_cli_reaches_the_running_server(server: ServerProcess,
                                                tmp_path: Path) -> None:
    account(server.url, "Ops")
    grant(server, "Ops", "admin")
    account(server.url, "Pat")
    table = people(server, private=True)
    try:
        base = ["draw", table.id, "--server", server.url]
        for args, message in (
            ([*base], "error: --as: with --server"),
            ([*base, "--as", "Pat"], "error: not_admin: 'Pat' does not hold the role admin"),
            (["draw", table.id, "--server", "http://127.0.0.1:9", "--as", "Ops"],
             "error: server_unreachable: --server: cannot reach"),
            (["draw", "nosuchtable", "--server", server.url, "--as", "Ops"],
             "error: no_such_table: there is no table 'nosuchtable'"),
        ):
            refused = admin(server, *args)
            assert refused.returncode == 2 and refused.stdout == "", refused
            assert refused.stderr.startswith(message), refused.stderr
        assert table.conns[1].view is not None and table.conns[1].view["status"] == "running"
        done = admin(server, *base, "--as", "Ops", "--reason", "stuck", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["winner"] == "DRAW"
        for conn in table.everyone():
            assert ended_for(conn)["winner"] == "DRAW"
        again = admin(server, *base, "--as", "Ops")
        assert again.returncode == 2
        assert again.stderr.startswith("error: not_running: ") and "is finished" in again.stderr
        # The command's token is gone: nothing signs in with it after.
        tokens = admin(server, "export", "Ops")
        assert tokens.returncode == 0 and "cli-" not in tokens.stdout
    finally:
        table.close()


@pytest.mark.parametrize("kind", KINDS)
def test_D38_offline_on_the_database_of_a_stopped_server(kind: str, tmp_path: Path) -> None:
    database = new_database(kind, tmp_path)
    running = ServerProcess(database)
    running.start()
    try:
        players = [account(running.url, name) for name in ("Ann", "Bob", "Cid", "Dee", "Eve")]
        created = players[0][0].post("/api/tables", json={"name": "stuck", "seats": 5,
                                                          "day_seconds": 3600})
        table_id = created.json()["id"]
        for n, (client, _) in enumerate(players, 1):
            assert client.post(f"/api/tables/{table_id}/seats", json={"seat": n}).status_code == 200
        assert players[0][0].post(f"/api/tables/{table_id}/start").status_code == 200
        conn = Player(running, table_id, "", headers={
            "Cookie": f"trusis_session={players[1][0].cookies.get('trusis_session')}"})
        conn.until(lambda c: c.view is not None)
        assert conn.command(do="vote", target=3)["type"] == "ack"
        conn.close()
        running.stop()

        for client, _ in players:
            client.close()
        done = admin(running, "draw", table_id, "--reason", "server moved", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {"table": table_id, "status": "finished",
                                           "winner": "DRAW", "count": 2}
        again = admin(running, "draw", table_id)
        assert again.returncode == 2 and again.stderr.startswith("error: not_running: ")
        missing = admin(running, "draw", "nosuchtable")
        assert missing.returncode == 2
        assert missing.stderr == "error: no_such_table: there is no table 'nosuchtable'\n"
        listed = admin(running, "tables", "--json")
        row = next(t for t in json.loads(listed.stdout)["tables"] if t["id"] == table_id)
        assert (row["status"], row["winner"]) == ("finished", "DRAW")

        running.start()
        assert table_id not in lobby_ids(running)
        ann = httpx.Client(base_url=running.url, timeout=10)
        ann.post("/api/login", json={"name": "Ann", "password": "a long password"})
        record = ann.get(f"/api/tables/{table_id}/record").json()
        assert [{k: v for k, v in a.items() if k != "t"} for a in record["actions"]] == [
            {"seat": 2, "do": "vote", "target": 3}, {"do": "draw"}]
        result = replay(tmp_path, record)
        assert (result["winner"], result["winners"]) == ("DRAW", [])
        for _, player_id in players:  # kept as a draw, rated for nobody (D38)
            profile = ann.get(f"/api/players/{player_id}").json()
            assert [(g["table_id"], g["won"]) for g in profile["games"]] == [(table_id, False)]
            assert profile["rated_games"] == 0 and profile["rating"] is None
        ann.close()
    finally:
        running.stop()
        drop_database(database)


@pytest.mark.parametrize("via", ["api", "cli"])
@pytest.mark.skipif(not postgres_available(), reason="needs the machine's PostgreSQL")
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_D38_in_a_cluster_the_draw_reaches_the_owner_from_the_other_process(
        two_processes: Cluster, via: str) -> None:
    """The game is owned by process a; the admin asks b, which forwards to a (hub.py
    `_on_owner`); clients on both processes see the end. The CLI on the database alone
    refuses while a process holds the game's lease (`owned`)."""
    a, b = two_processes.servers
    ops, _ = account(b.url, "Ops")
    grant(b, "Ops", "admin")
    guests = [Guest(a.url, NAMES[0])] + [Guest(b.url, n) for n in NAMES[1:5]]
    table = guests[0].create(seats=5, day_seconds=3600, night_seconds=1800)
    for n, guest in enumerate(guests, 1):
        assert guest.sit(table["id"], n) == n
    guests[0].start(table["id"])
    conns = [Conn(a if n % 2 else b, table["id"], g.token).open()
             for n, g in enumerate(guests, 1)]
    try:
        assert (two_processes.health(0)["owned"], two_processes.health(1)["owned"]) == (1, 0)
        offline = admin(b, "draw", table["id"])
        assert offline.returncode == 2
        assert offline.stderr.startswith("error: owned: ") and "process 'a#" in offline.stderr
        # Refused: the audit log (the moderation page) says no draw happened (issue 38).
        lines = ops.get("/api/moderation/audit").json()["log"]
        assert [x for x in lines if x["action"].startswith("draw")] == [], lines
        if via == "api":
            done = ops.post(f"/api/admin/tables/{table['id']}/draw", json={"reason": "x"})
            assert done.status_code == 200, done.text
        else:
            ran = admin(b, "draw", table["id"], "--server", b.url, "--as", "Ops")
            assert ran.returncode == 0, ran.stderr
        for conn in conns:
            assert ended_for(conn)["winner"] == "DRAW"
        for server in (a, b):
            assert table["id"] not in lobby_ids(server)
            summary = httpx.get(f"{server.url}/api/tables/{table['id']}/summary", timeout=10)
            assert summary.json()["winner"] == "DRAW"
    finally:
        for conn in conns:
            conn.close()


@pytest.mark.skipif(not postgres_available(), reason="needs the machine's PostgreSQL")
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_D38_a_stopped_cluster_s_game_is_ended_on_the_database(two_processes: Cluster) -> None:
    """Every process stopped: the command line takes the game's lease as a process would
    (a process that wakes up later can store nothing more in it), ends the game, lets the
    lease go; the restarted processes show the game finished."""
    a, b = two_processes.servers
    guests = [Guest(a.url, name) for name in NAMES[:5]]
    table = guests[0].create(seats=5, day_seconds=3600, night_seconds=1800)
    for n, guest in enumerate(guests, 1):
        assert guest.sit(table["id"], n) == n
    guests[0].start(table["id"])
    for guest in guests:
        guest.close()
    a.stop()
    b.stop()
    done = admin(a, "draw", table["id"], "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["count"] == 1
    a.start()
    assert table["id"] not in lobby_ids(a)
    summary = httpx.get(f"{a.url}/api/tables/{table['id']}/summary", timeout=10)
    assert summary.status_code == 200 and summary.json()["winner"] == "DRAW"


def test_D38_the_owner_checks_the_role_itself(tmp_path: Path) -> None:
    """A forwarded request is run by the game's owner (hub.py `serve`): the owner checks
    the role in the database before it writes anything, whoever forwarded it."""
    written: list[object] = []

    async def attempt(store: Store, player_id: str) -> str:
        room = cast(Room, SimpleNamespace(store=store, id="t", status="open", host=None))
        with pytest.raises(LobbyError) as refused:
            await end_on_owner(room, player_id)
        return refused.value.code

    async def run() -> list[str]:
        store = Store(f"sqlite+aiosqlite:///{tmp_path / 'owner.db'}")
        await store.migrate()
        try:
            player = await store.new_player("Ops", "account")
            codes = [await attempt(store, player.id)]
            async with store.engine.begin() as conn:  # an account, made an admin
                await conn.execute(update(schema.players).where(
                    schema.players.c.id == player.id).values(login="ops"))
            assert await grant_role(store.engine, player.id, "admin")
            codes.append(await attempt(store, player.id))
            return codes
        finally:
            await store.close()

    assert asyncio.run(run()) == ["not_admin", "not_running"]
    assert written == []
