"""Helpers over `serverproc` for the protocol, authorisation and fuzz tests.

A `People` table is a table of guests only (no bots, long timers unless told),
so nothing moves unless a test moves it: every seat's view can be compared
before and after a command. `Conn` is a `Player` with a ping barrier: once its
`pong` is back, everything the server queued for it before the ping has
arrived too (one writer per client, in order).
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from serverproc import Guest, Player, ServerProcess, hello

NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon", "Kim", "Lou"]

ALL_POWERS_SET = {"TRUSIS": 1, "ILLUSIONIST": 1, "PRIEST": 1, "WISE_WOMAN": 1, "KAMIKAZE": 1,
                  "WHITE_KNIGHT": 1, "SWEEPER": 1, "ORACLE": 1}
"""Eight seats, one holder of every power (R20–R29), for the authorisation matrix."""


class Conn(Player):
    """A WebSocket client that can wait until the server has caught up with it."""

    def mark(self) -> int:
        return len(self.messages)

    def since(self, mark: int) -> list[dict[str, Any]]:
        return self.messages[mark:]

    def barrier(self, timeout: float = 10.0) -> None:
        """Ping and read until the pong: whatever was queued before has arrived."""
        self.ws.send(json.dumps({"type": "ping"}))
        start = self.mark()
        self.until(lambda p: any(m["type"] == "pong" for m in p.messages[start:]), timeout)

    def drain(self, quiet: float = 0.05) -> None:
        """Read until nothing more comes for `quiet` seconds."""
        while self.pump(quiet):
            pass

    def close(self) -> None:
        """Close, reading what is left first: a client whose queue of unread messages is
        full cannot read the server's closing frame, and would wait out its timeout."""
        with contextlib.suppress(Exception):
            self.ws.close_timeout = 2
            self.drain(0.01)
        super().close()

    def vanish(self) -> None:
        """Drop the TCP connection with no closing handshake, as a phone losing its signal."""
        sock = self.ws.socket
        with contextlib.suppress(OSError):
            linger_zero = struct.pack("ii", 1, 0)  # close with a reset, no goodbye
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger_zero)
            sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            sock.close()

    def wait_closed(self, timeout: float = 10.0) -> int | None:
        """Read until the server closes the connection: its close code."""
        return self.ending(timeout)[0]

    def ending(self, timeout: float = 10.0) -> tuple[int | None, str]:
        """Read until the server closes the connection: its close code and reason (1006
        and "" when it ended with no close frame; None and "" when it is still open)."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.pump(0.2)
        except ConnectionClosed as closed:
            if closed.rcvd is None:
                return 1006, ""
            return closed.rcvd.code, closed.rcvd.reason
        return None, ""

    def open(self, timeout: float = 15.0) -> Conn:
        """Wait for the first view (snapshot or events) after `hello`."""
        self.until(lambda p: p.view is not None, timeout)
        return self

    @property
    def me(self) -> dict[str, Any]:
        assert self.view is not None and self.seat is not None
        player: dict[str, Any] = self.view["players"][self.seat - 1]
        return player

    @property
    def role(self) -> str:
        assert self.view is not None
        return str(self.view["role"])


@dataclass
class People:
    """A table of guests, started, with one open connection per seat (`conns[seat]`)."""

    server: ServerProcess
    id: str
    guests: dict[int, Guest]
    conns: dict[int, Conn]
    invite: str | None = None
    watchers: list[Conn] = field(default_factory=list)

    @property
    def host(self) -> Guest:
        return self.guests[1]

    def connect(self, guest: Guest | str) -> Conn:
        token = guest if isinstance(guest, str) else guest.token
        return Conn(self.server, self.id, token, invite=self.invite).open()

    def watch(self, name: str = "Watcher") -> Conn:
        """A signed-in guest with no seat here: a spectator's connection."""
        guest = Guest(self.server.url, name)
        conn = self.connect(guest)
        self.watchers.append(conn)
        return conn

    def everyone(self) -> list[Conn]:
        return [*self.conns.values(), *self.watchers]

    def seat_of(self, role: str) -> int:
        return next(s for s, c in self.conns.items() if c.role == role)

    def alive(self) -> list[int]:
        view = self.conns[1].view
        assert view is not None
        return [int(s) for s in view["alive"]]

    def barrier(self) -> None:
        for conn in self.everyone():
            conn.barrier()

    def marks(self) -> dict[Conn, int]:
        """Where every client's messages stand, once all the server sent has arrived."""
        self.barrier()
        return {conn: conn.mark() for conn in self.everyone()}

    def views(self) -> dict[int | None, dict[str, Any]]:
        """Every seat's view, and the public one, from fresh connections (snapshots)."""
        out: dict[int | None, dict[str, Any]] = {}
        for seat, guest in self.guests.items():
            out[seat] = fresh_view(self.server, self.id, guest.token, self.invite)
        out[None] = fresh_view(self.server, self.id, self.spectator_token(), self.invite)
        return out

    _spectator: Guest | None = None

    def spectator_token(self) -> str:
        if self._spectator is None:
            self._spectator = Guest(self.server.url, "Onlooker")
        return self._spectator.token

    def play(self, seat: int, **action: Any) -> dict[str, Any]:
        """One command from `seat`, waiting out rate limits; its one answer."""
        return command(self.conns[seat], **action)

    def all_pass(self, seats: Iterable[int] | None = None) -> None:
        phase = self.conns[1].view["phase"] if self.conns[1].view else None
        for seat in seats if seats is not None else self.alive():
            answer = self.play(seat, do="pass")
            assert answer["type"] == "ack", answer
        for conn in self.conns.values():
            conn.until(lambda c: c.view is not None and (c.view["phase"] != phase
                                                         or c.view["status"] == "finished"))

    def close(self) -> None:
        for conn in self.everyone():
            conn.close()
        for guest in self.guests.values():
            guest.close()


def people(server: ServerProcess, seats: int = 5, start: bool = True,
           **options: Any) -> People:
    """A table of `seats` guests (seat n is NAMES[n-1]), started unless told."""
    options.setdefault("day_seconds", 3600)
    options.setdefault("night_seconds", 1800)
    guests = {n: Guest(server.url, NAMES[n - 1]) for n in range(1, seats + 1)}
    table = guests[1].create(seats=seats, **options)
    invite = table.get("invite") if options.get("private") else None
    for n, guest in guests.items():
        assert guest.sit(table["id"], n, invite=invite) == n
    if start:
        guests[1].start(table["id"])
    conns = {n: Conn(server, table["id"], g.token, invite=invite) for n, g in guests.items()}
    if start:
        for conn in conns.values():
            conn.open()
    return People(server, table["id"], guests, conns, invite)


def command(conn: Conn, timeout: float = 15.0, **action: Any) -> dict[str, Any]:
    """`conn.command`, sent again (a new id) while the answer is `rate_limited`."""
    deadline = time.monotonic() + timeout
    while True:
        answer = conn.command(timeout=timeout, **action)
        if answer.get("code") != "rate_limited" or time.monotonic() > deadline:
            return answer
        time.sleep(0.3)


def fresh_view(server: ServerProcess, table_id: str, token: str,
               invite: str | None = None) -> dict[str, Any]:
    """The view a new connection of `token` receives in its snapshot."""
    query = f"?invite={invite}" if invite else ""
    with connect(f"{server.ws_url}/ws/tables/{table_id}{query}",
                 additional_headers={"Authorization": f"Bearer {token}"},
                 open_timeout=10) as ws:
        ws.send(hello())
        while True:
            message = json.loads(ws.recv(timeout=10))
            if message["type"] == "snapshot":
                view: dict[str, Any] = message["view"]
                return view


def close_code(server: ServerProcess, path: str, frames: Iterable[str | bytes] = (),
               headers: dict[str, str] | None = None, wait: float = 15.0) -> int | None:
    """Open `path`, send `frames`, read until the server closes: its close code.

    An upgrade the server refuses over HTTP gives the negative status (-403);
    no close within `wait` seconds gives None.
    """
    try:
        ws = connect(f"{server.ws_url}{path}", additional_headers=headers or {},
                     open_timeout=10, max_size=None)
    except InvalidStatus as err:
        return -err.response.status_code
    with ws:
        try:
            for frame in frames:
                ws.send(frame)
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                ws.recv(timeout=max(0.01, deadline - time.monotonic()))
        except TimeoutError:
            return None
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd is not None else 1006
    return None


def quiet_since(conn: Conn, mark: int, allowed: tuple[str, ...] = ()) -> list[str]:
    """The types of what `conn` received since `mark`, apart from pongs, lobby news
    (`table`: who connects) and the `allowed` types."""
    return [m["type"] for m in conn.since(mark)
            if m["type"] not in ("pong", "table", *allowed)]


def bearer(guest: Guest) -> dict[str, str]:
    return {"Authorization": f"Bearer {guest.token}"}


def frames_text(conns: Iterable[Conn]) -> str:
    return "\n".join(frame for conn in conns for frame in conn.frames)
