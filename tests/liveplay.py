"""Protocol clients that play seats of a real `trusis serve`, and the truth read back after.

Shared by the canary (test_server_canary.py) and the crash test (test_server_crash.py).

`Seated` plays one seat as a person would, over the protocol only: it reads its
frames, keeps every one of them (per connection, raw and parsed, for the scans),
and chooses from its view's `legal` list — votes, powers, withdrawals,
illusions, now and then an illegal try — then passes; it whispers markers to
other seats. It sends one command at a time and remembers which were
acknowledged. It survives the server going away: it reconnects with the last
stream number it saw and sends an unanswered command again with the same id.

`stored_record` reads a game's whole record straight from the server's SQLite
file (the players' download leaves out other seats' private messages), which is
the truth the tests replay with `trusis.table.table.Table`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from serverproc import Player, ServerProcess
from trusis.server.tables.records import record_of, with_bot_seats
from trusis.server.tables.seats.seat import Seat
from trusis.table.record import Record

GAME_DOS = ("vote", "illusion", "protect", "extra_vote", "kamikaze", "revive", "sweep",
            "foresee")


@dataclass
class Connection:
    """One WebSocket connection of a client: every message it received, in order."""

    player: Player
    opened: float = field(default_factory=time.time)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.player.messages

    @property
    def frames(self) -> list[str]:
        return self.player.frames


class Seated:
    """One guest at one seat, played over the protocol with a random legal policy."""

    def __init__(self, server: ServerProcess, table_id: str, token: str, player_id: str,
                 seat: int | None, rng: random.Random, tag: str, *, whisper: float = 0.4,
                 idle: float = 0.0, illegal: float = 0.08) -> None:
        self.server = server
        self.table_id = table_id
        self.token = token
        self.player_id = player_id
        self.seat = seat
        self.rng = rng
        self.tag = tag
        self.whisper_rate = whisper
        self.idle_rate = idle
        self.illegal_rate = illegal
        self.connections: list[Connection] = []
        self.player: Player | None = None
        self.seq = 0
        self.view: dict[str, Any] | None = None
        self.pending: str | None = None
        self.sent: dict[str, dict[str, Any]] = {}  # client id -> action
        self.answers: dict[str, dict[str, Any]] = {}  # client id -> ack/refused
        self.acked: list[str] = []  # client ids, in the order of their acks
        self.whispers: dict[str, tuple[int, int]] = {}  # marker -> (sender, recipient)
        self._count = 0
        self._phase: tuple[str, str, int] | None = None
        self._stale: dict[str, Any] | None = None  # the phase of a stale_phase refusal
        self._planned = 0
        self._done = 0
        self._whispered = False
        self._idle = False
        self.lost: list[str] = []  # why connections ended without being dropped
        self.errors: list[dict[str, Any]] = []  # `error` answers to this client's commands

    # -- connection ----------------------------------------------------------

    def connect(self, last_seq: int | str | None = "keep") -> bool:
        """Open a connection (hello with the last number seen, or `last_seq`)."""
        seq = (self.seq or None) if last_seq == "keep" else last_seq
        try:
            player = Player(self.server, self.table_id, self.token, last_seq=seq)
        except Exception:
            self.player = None
            return False
        self.player = player
        self.connections.append(Connection(player))
        if self.pending is not None:  # an unanswered command: the same id again
            self._send_raw(self.pending, self.sent[self.pending])
        return True

    def drop(self) -> None:
        if self.player is not None:
            self.player.close()
        self.player = None

    def _lost(self) -> None:
        if self.player is not None:
            self.player.close()
        self.player = None

    # -- reading ---------------------------------------------------------------

    def pump(self, wait: float = 0.0) -> int:
        """Read every frame already here (waiting up to `wait` for the first)."""
        player = self.player
        if player is None:
            return 0
        count = 0
        timeout = wait
        while True:
            before = len(player.messages)
            try:
                if not player.pump(timeout):
                    break
            except Exception as err:
                self.lost.append(repr(err))
                self._lost()
                break
            timeout = 0.0
            for message in player.messages[before:]:
                self._take(message)
            count += 1
        return count

    def _take(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "welcome":
            self.seat = message["seat"]
        elif kind in ("snapshot", "events"):
            self.view = message["view"]
            self.seq = message["seq"]
        elif kind in ("ack", "refused"):
            cid = message["id"]
            if cid not in self.answers:
                self.answers[cid] = message
                if kind == "ack":
                    self.acked.append(cid)
            if cid == self.pending:
                self.pending = None
                if message.get("code") == "stale_phase":  # wait for the new phase's view
                    self._stale = dict(message["params"])
        elif kind == "error" and message.get("id") is not None:
            # A frame the server found malformed: this client's mistake, reported by the
            # test (`errors`) rather than left waiting for an answer that never comes.
            self.errors.append(message)
            if message["id"] == self.pending:
                self.pending = None

    # -- acting ----------------------------------------------------------------

    def _send_raw(self, client_id: str, action: dict[str, Any]) -> None:
        if self.player is None:
            return
        try:
            self.player.send(client_id, **action)
        except Exception:
            self._lost()

    def send(self, **action: Any) -> str:
        self._count += 1
        client_id = f"{self.tag}-{self._count}"
        self.sent[client_id] = action
        self.pending = client_id
        self._send_raw(client_id, action)
        return client_id

    def settle(self, quiet: float = 0.3, limit: float = 10.0) -> None:
        """Read until its last command is answered and nothing came for `quiet` seconds."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and self.player is not None:
            if not self.pump(quiet) and self.pending is None:
                return

    @property
    def finished(self) -> bool:
        return self.view is not None and self.view["status"] == "finished"

    def step(self) -> bool:
        """Send the next command if none is waiting for its answer; True if one was sent."""
        if self.pending is not None or self.player is None or self.seat is None:
            return False
        view = self.view
        if view is None or view["status"] != "running" or view.get("seat") != self.seat:
            return False
        me = view["players"][self.seat - 1]
        if me["left"]:
            return False
        phase = (view["status"], view["phase"]["kind"], view["phase"]["number"])
        if phase != self._phase:
            self._phase = phase
            self._planned = self.rng.randint(0, 3)
            self._done = 0
            self._whispered = False
            self._idle = self.rng.random() < self.idle_rate
        legal = {entry["do"]: entry for entry in view["legal"]}
        rng = self.rng
        say = legal.get("say")
        if (not self._whispered and say and say["targets"]
                and rng.random() < self.whisper_rate):
            self._whispered = True
            to = rng.choice(say["targets"])
            marker = f"Zq{self.tag}s{self.seat}t{to}n{self._count + 1}Qz"
            self.whispers[marker] = (self.seat, to)
            self.send(do="say", text=f"psst {marker}", to=to)
            return True
        if not me["alive"] or me["passed"] or self._idle:
            return False
        # Game actions say the phase they were chosen in: one sent again after a restart
        # that ended the phase is refused as stale_phase (docs/protocol.md), never applied.
        made_in = dict(view["phase"])
        if made_in == self._stale:  # refused as stale: this view is behind the game
            return False
        if self._done < self._planned:
            self._done += 1
            powers = [e for e in view["legal"] if e["do"] in GAME_DOS]
            if powers:
                entry = rng.choice(powers)
                do = entry["do"]
                targets = entry.get("targets", [])
                if rng.random() < self.illegal_rate:  # a refusal must change nothing
                    dead = [p["seat"] for p in view["players"] if not p["alive"]]
                    # Well formed (an illusion names what it shows), so the engine judges
                    # it; without `shown` it was a malformed frame, answered `error`.
                    extra = {"shown": rng.choice(entry["shown"])} if do == "illusion" else {}
                    self.send(do=do, target=rng.choice([*dead, self.seat]), phase=made_in,
                              **extra)
                    return True
                if entry.get("withdraw") and (not targets or rng.random() < 0.15):
                    self.send(do=do, target=None, phase=made_in)
                    return True
                if targets:
                    target = rng.choice(targets)
                    if do == "illusion":
                        self.send(do=do, target=target, shown=rng.choice(entry["shown"]),
                                  phase=made_in)
                    else:
                        self.send(do=do, target=target, phase=made_in)
                    return True
        if "pass" in legal:
            self.send(do="pass", phase=made_in)
            return True
        return False


# -- the truth -------------------------------------------------------------------


def sqlite_path(server: ServerProcess) -> str:
    assert server.database.startswith("sqlite:///"), server.database
    return server.database[len("sqlite:///"):]


def database_rows(server: ServerProcess, sql: str, *args: Any) -> list[dict[str, Any]]:
    """Rows straight from the server's database: its SQLite file, or its PostgreSQL."""
    if server.database.startswith("postgresql"):
        return asyncio.run(_pg_rows(server.database, sql, args))
    with contextlib.closing(sqlite3.connect(sqlite_path(server), timeout=10)) as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(sql, args).fetchall()]


async def _pg_rows(url: str, sql: str, args: tuple[Any, ...]) -> list[dict[str, Any]]:
    import asyncpg

    parts = sql.split("?")
    numbered = parts[0] + "".join(f"${i}{part}" for i, part in enumerate(parts[1:], 1))
    conn = await asyncpg.connect(url)
    try:
        return [dict(r) for r in await conn.fetch(numbered, *args)]
    finally:
        await conn.close()


def table_row(server: ServerProcess, table_id: str) -> dict[str, Any]:
    rows = database_rows(server, "SELECT * FROM tables WHERE id = ?", table_id)
    assert rows, table_id
    return rows[0]


def action_rows(server: ServerProcess, table_id: str) -> list[dict[str, Any]]:
    return database_rows(server, "SELECT * FROM actions WHERE table_id = ? ORDER BY idx", table_id)


def stored_record(server: ServerProcess, table_id: str) -> Record:
    """The game's whole record as the server stored it (private messages included), with
    the seats bots held from the start as the server reads them back (D73)."""
    seats = {r["seat"]: Seat(r["kind"], r["name"], r["player_id"], r["bot_kind"])
             for r in database_rows(server, "SELECT * FROM seats WHERE table_id = ?", table_id)}
    return with_bot_seats(record_of(table_row(server, table_id), action_rows(server, table_id)),
                          seats)


def action_of(data: dict[str, Any]) -> dict[str, Any]:
    """A stored action's fields as a client sends them (no seat; None fields dropped)."""
    return {k: v for k, v in data.items() if k != "seat" and v is not None}


def sent_fields(action: dict[str, Any]) -> dict[str, Any]:
    """What a record keeps of a sent action: its fields but `phase` (a protocol field)."""
    return {k: v for k, v in action.items() if v is not None and k != "phase"}


def loads(frame: str) -> Any:
    return json.loads(frame)
