"""`trusis admin`: the operator's commands, on the server's own `--database`.

They work on the database, beside a running server or without one: a backup, the
tables and players, a player's data (export, deletion), the server roles (admin,
moderator), and ending a stuck game as a draw (D38: on the database while no server
runs, through the running server's admin route with `--server`; cli/draw.py). Errors
are one line on standard error with exit status 2, as every
`trusis` command (docs/record.md, "Exit codes").
"""

from __future__ import annotations

import asyncio
import datetime
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from trusis.cli.common import echo, fail, json_text
from trusis.cli.draw import end_through_server
from trusis.server.config import default_database_url, normalise_database_url
from trusis.server.data import audit, overview
from trusis.server.data.backup import BackupError, backup_sqlite, no_database
from trusis.server.data.backup import sqlite_file as backup_source
from trusis.server.data.personal import NotDeleted, PersonalData, forget_logged, player_data
from trusis.server.data.staff import NotAnAccount, StaffRole, grant, revoke, staff
from trusis.server.data.store import Player, Store
from trusis.server.data.urls import sqlite_file
from trusis.server.errors import LobbyError
from trusis.server.players.texts import free_text
from trusis.server.tables.stuck import end_in_store

admin = typer.Typer(
    help="Run a server: back it up, list its tables and players, export or delete a "
         "player's data, grant and revoke the roles admin and moderator, end a stuck game "
         "as a draw.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]})

Database = Annotated[str | None, typer.Option(
    "--database", help="The server's database URL, as given to `trusis serve` (default: "
                       "the SQLite file in your data folder).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON document.")]
PlayerArg = Annotated[str, typer.Argument(help="A player's id, or an account's name.")]
T = TypeVar("T")


def _url(database: str | None) -> str:
    return normalise_database_url(database or default_database_url(create=False))


def _on_store(database: str | None, work: Callable[[Store], Awaitable[T]]) -> T:
    """Run `work` on the database, its schema brought up to date first (as the server
    does at start: the same migrations, harmless when they have run). An SQLite file that
    is not there is refused, and nothing is created: SQLite would make an empty one, and
    the command would answer as if the server had no players."""
    url = _url(database)
    if (path := sqlite_file(url)) is not None and not path.exists():
        fail(no_database(path))

    async def run() -> T:
        store = Store(url)
        try:
            await store.migrate()
            return await work(store)
        finally:
            await store.close()

    try:
        return asyncio.run(run())
    except OSError as err:
        fail(f"--database: cannot reach the database: {err}")


def _when(t: float | None) -> str:
    if t is None:
        return "-"
    return datetime.datetime.fromtimestamp(t, datetime.UTC).strftime("%Y-%m-%d %H:%M")


async def _find(store: Store, who: str) -> Player:
    """The player `who` names: an id, else an account's name (names of guests repeat)."""
    found = await overview.find_player(store.engine, who)
    if found is None:
        guests = await overview.guests_named(store.engine, who)
        if guests:  # names of guests repeat, so a guest is named by their id
            called = f"1 guest is called {who.strip()!r}" if guests == 1 \
                else f"{guests} guests are called {who.strip()!r}"
            fail(f"no player has the id or account name {who!r}; {called}: name a guest "
                 f"by their id (`trusis admin players --name {who.strip()}` lists them)")
        fail(f"no player has the id or account name {who!r}")
    return found


@admin.command("backup")
def backup_command(
    file: Annotated[Path, typer.Argument(help="Where to write the copy (a new file).")],
    database: Database = None,
) -> None:
    """A consistent copy of an SQLite database, safe while the server runs."""
    try:
        size = backup_sqlite(backup_source(_url(database)), file)
    except BackupError as err:
        fail(str(err))
    echo(f"backed up to {file} ({size / 1e6:.1f} MB)")


@admin.command("tables")
def tables_command(
    database: Database = None,
    status: Annotated[str | None, typer.Option(
        "--status", help="open, running or finished (default: all)")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="The newest N.")] = 100,
    as_json: AsJson = False,
) -> None:
    """The tables, newest first: status, seats, host, when (never an invite code)."""
    if status is not None and status not in ("open", "running", "finished"):
        fail("--status: open, running or finished")

    rows = _on_store(database, lambda store: overview.tables(store.engine, status, limit))
    if as_json:
        echo(json_text({"tables": rows}))
        return
    for r in rows:
        echo(f"{r['id']}  {r['status']:<8} {r['taken']:>2}/{r['seats']:<2} "
             f"{'private ' if r['private'] else ''}{r['name']!r} host {r['host']!r}, "
             f"created {_when(r['created_at'])}"
             + (f", winner {r['winner']}" if r["winner"] else ""))
    echo(f"{len(rows)} table{'s' * (len(rows) != 1)}")


@admin.command("players")
def players_command(
    database: Database = None,
    name: Annotated[str | None, typer.Option("--name", help="Names containing this.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="The newest N.")] = 100,
    as_json: AsJson = False,
) -> None:
    """The players, newest first: id, name, guest or account, server roles."""
    rows = _on_store(database, lambda store: overview.players(store.engine, name, limit))
    if as_json:
        echo(json_text({"players": rows}))
        return
    for r in rows:
        kind = "account" if r["account"] else r["kind"]
        echo(f"{r['id']}  {r['name']!r} {kind}, since {_when(r['created_at'])}"
             + (f", {' and '.join(r['roles'])}" if r["roles"] else "")
             + (" (deleted)" if r["deleted"] else ""))
    echo(f"{len(rows)} player{'s' * (len(rows) != 1)}")


@admin.command("export")
def export_command(player: PlayerArg, database: Database = None) -> None:
    """Everything kept about a player, as one JSON document.

    The same document the player downloads at /api/me/data."""
    async def read(store: Store) -> PersonalData | None:
        found = await _find(store, player)
        return await player_data(store.engine, found.id)

    echo(json_text(_on_store(database, read)))


@admin.command("delete")
def delete_command(
    player: PlayerArg, database: Database = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do it (without it: say what would "
                                                    "be deleted).")] = False,
    reason: Annotated[str, typer.Option("--reason", help="Why, for the audit log.")] = "",
) -> None:
    """Delete a player's account and data, as their own deletion does.

    Their name becomes "Deleted player" in stored games (which stay playable as replays
    for the others); their sessions, tokens and roles end."""
    async def run(store: Store) -> str:
        found = await _find(store, player)
        try:
            why = free_text(reason, "--reason")  # refused before anything is deleted
        except LobbyError as err:
            fail(f"{err.code}: --reason: {err.message}")
        if not yes:
            return f"would delete {found.name!r} ({found.id}): run again with --yes"
        try:  # the deletion and its line are one transaction (D37): both or neither
            await forget_logged(store.engine, found.id, audit.CLI, why)
        except NotDeleted as err:
            fail(f"nothing was deleted: the database refused the deletion ({err})")
        return f"deleted {found.name!r} ({found.id})"

    echo(_on_store(database, run))


def _role_change(player: str, role: StaffRole, database: str | None, give: bool,
                 reason: str) -> None:
    """Grant or revoke, and its line in the audit log (as the page's own change writes:
    docs/deploy.md, "Moderation": every role change is logged), by `audit.CLI`."""
    async def run(store: Store) -> str:
        found = await _find(store, player)
        try:
            changed = await (grant if give else revoke)(
                store.engine, found.id, role, audit.CLI, free_text(reason, "--reason"))
        except NotAnAccount:
            fail(f"{found.name!r} is not a registered account: roles go to accounts only")
        what = "now holds" if give else "no longer holds"
        if not changed:
            what = "already holds" if give else "did not hold"
        return f"{found.name!r} ({found.id}) {what} the role {role}"

    echo(_on_store(database, run))


Reason = Annotated[str, typer.Option("--reason", help="Why, for the audit log.")]


@admin.command("grant")
def grant_command(player: PlayerArg, role: Annotated[StaffRole, typer.Argument(
        help="admin or moderator")], database: Database = None, reason: Reason = "") -> None:
    """Give an account a server role: admin (runs the server) or moderator."""
    _role_change(player, role, database, give=True, reason=reason)


@admin.command("revoke")
def revoke_command(player: PlayerArg, role: Annotated[StaffRole, typer.Argument(
        help="admin or moderator")], database: Database = None, reason: Reason = "") -> None:
    """Take a server role away."""
    _role_change(player, role, database, give=False, reason=reason)


@admin.command("staff")
def staff_command(database: Database = None, as_json: AsJson = False) -> None:
    """Who holds a server role."""
    rows = _on_store(database, lambda store: staff(store.engine))
    if as_json:
        echo(json_text({"staff": rows}))
        return
    for r in rows:
        echo(f"{r['role']:<9} {r['name']!r} ({r['player_id']}), since "
             f"{_when(r['granted_at'])}")
    echo(f"{len(rows)} role{'s' * (len(rows) != 1)} held")


@admin.command("draw")
def draw_command(
    table: Annotated[str, typer.Argument(help="The table's id (`trusis admin tables "
                                              "--status running`).")],
    database: Database = None,
    reason: Annotated[str, typer.Option("--reason", help="Why, for the audit log.")] = "",
    server: Annotated[str | None, typer.Option(
        "--server", help="The running server's URL (http://host:port): the draw is played "
                         "there, for everyone at the table. Without it, on the database, "
                         "which no server may be running on.")] = None,
    as_admin: Annotated[str | None, typer.Option(
        "--as", help="With --server: the account (holding the role admin) that asks.")] = None,
    as_json: AsJson = False,
) -> None:
    """End a stuck running game as a draw, recorded as such (D38; unrated).

    Errors (exit 2) start with a code: no_such_table; not_running (an open or a
    finished table); owned (a server is running the game: use --server); not_admin;
    server_unreachable (docs/deploy.md, "Administration")."""
    if server is not None and as_admin is None:
        fail("--as: with --server, name the admin account that asks (`trusis admin staff`)")
    if server is None and as_admin is not None:
        fail("--as: only with --server (without it the command works on the database)")

    async def run(store: Store) -> dict[str, Any]:
        try:
            if server is None:
                return (await end_in_store(store, table, reason)).as_json()
            found = await _find(store, as_admin or "")
            return await end_through_server(store, server, found, table, reason)
        except LobbyError as err:
            fail(f"{err.code}: {err.message}")

    done = _on_store(database, run)
    if as_json:
        echo(json_text(done))
        return
    echo(f"table {done['table']} ended as a draw ({done['count']} actions in its record)")
