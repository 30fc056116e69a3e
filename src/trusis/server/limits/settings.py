"""What one visitor may use: the limits per player and per address, and their settings.

Each limit is generous enough that a real group never meets it (10 friends behind
one address, 30 seats, a long chat after the end) and small enough that one script
cannot fill the server. Every limit is a setting (`trusis serve --limit NAME=VALUE`,
or the environment variable `TRUSIS_LIMIT_NAME`), documented in docs/deploy.md
("Running in public"), and every refusal is a `LobbyError` in the API's shape with
a sentence a person understands (429 with `Retry-After`, 413, 503). A limit set
to 0 is off.
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, fields

from trusis.rules.errors import quoted
from trusis.server.errors import LobbyError
from trusis.server.limits.buckets import Bucket

ENV_PREFIX = "TRUSIS_LIMIT_"
HANDOVER_TO_PERSON = 180.0
"""D52's default wait, in seconds: a player who lost their connection (not one who left on
purpose) keeps their seat from a person for this long — a phone locked in a pocket, a
tunnel, a router restarting, a browser tab put to sleep are back within it — while a bot
may play it at once; a host waits at most one default day phase (180 s) for a person."""
KEYS_KEPT = 100_000
"""Addresses remembered at once by a per-address budget (the oldest forgotten first)."""


@dataclass
class Limits:
    """Every limit, with its default (docs/deploy.md says why each is what it is)."""

    mails_per_player_hour: int = 12
    """Notification mails one player gets in an hour (issue 37): a slow game's phase, its
    reminder and a few private messages are a handful a day; a dozen an hour is a busy
    evening of several games. Past it, mails wait for the hour to pass (none is lost)."""
    mails_per_address_hour: int = 20
    """The same for one address, whoever it belongs to: what keeps the server from ever
    being a way to flood one mailbox (its provider would block the server's mail)."""
    body_bytes: int = 64 * 1024
    """The largest request body read; the lobby's largest real one is under 2 KiB."""
    guests_per_address_hour: int = 60
    """Guest identities one address may create in an hour (a burst of that many, then
    one a minute)."""
    renames_per_player_hour: int = 10
    """Times one player may change their name in an hour (a burst of that many, then one
    every 6 minutes): each rename is told to every table where they sit (D46)."""
    tables_per_player_hour: int = 30
    """Tables one player may create in an hour (a burst of that many, then one every two
    minutes): a host closing a table before its start (D51) frees its open place at once,
    and each table is a stored row for good."""
    tables_per_address_hour: int = 120
    """The same for all the players of one address (a class behind a school's address)."""
    open_tables_per_player: int = 5
    """Tables not yet started that one player hosts at once."""
    open_tables_per_address: int = 30
    """Tables not yet started that players of one address host at once."""
    running_tables_per_player: int = 5
    """Games one player hosts that are running at once."""
    running_tables_per_address: int = 30
    """Games running at once that were started from one address."""
    abandoned_seconds: float = 1800.0
    """An open table that nobody has been connected to for this long is closed."""
    slow_abandoned_seconds: float = 3 * 86400.0
    """The same for a slow table (D62): its players sit down over days, each dropping in
    when they can, so its waiting room is empty most of the time."""
    slow_games_per_player: int = 10
    """Slow tables (D62), open or running, at which one player holds a seat at once: each
    asks a visit a phase, and ten games at a phase a day are twenty visits a day. Past
    that, a player's seats would be played by bots (D63) in the others' games."""
    sockets_per_table: int = 8
    """WebSockets one identity holds to one table (tabs, devices, reconnects)."""
    sockets_per_address: int = 300
    """WebSockets one address holds to the whole server."""
    connections_per_address: int = 500
    """Connections one address holds open at once, HTTP and WebSocket alike (not a trusted
    proxy's own: limits/connections.py)."""
    requests_per_address_10s: int = 2000
    """HTTP requests one address may make at once, then as many per 10 s (limits/http_budget.py)."""
    request_seconds: float = 20.0
    """How long a request may take to come whole, from the connection's opening or the last
    answer on it."""
    password_jobs_per_address: int = 2
    """Password checks and hashes of one address in the hashing pool at once; the rest of
    its burst waits its turn (passwords.py)."""
    balance_jobs: int = 4
    """Balance estimates waiting or running in this process at once."""
    balance_jobs_per_address: int = 1
    """Balance estimates one address may have waiting or running at once."""
    balance_estimates_per_address_hour: int = 20
    """Custom estimates one address may start in an hour (a burst of that many, then one
    every 3 minutes): at ~20 s of CPU each, at most about a ninth of the worker."""
    balance_cache: int = 256
    """Balance estimates of custom sets kept in memory (the standard set's are shipped)."""
    chat_after_end_per_seat: int = 300
    """Messages one seat may send after the game has ended."""
    chat_after_end_per_game: int = 3000
    """Messages all seats together may send after the game has ended."""
    reports_per_player_hour: int = 10
    """Reports one player may file in an hour (a burst of that many, then one every
    6 minutes); one per reported seat of a table at most (people.py)."""
    reports_per_address_hour: int = 60
    """Reports the players of one address may file in an hour."""
    program_seats_per_table: int = 60
    """Program seats one table hands out (each a new player and a new token, kept)."""
    summaries_cached: int = 100
    """Finished games whose replay and end screen are kept built in memory."""
    handover_to_person_seconds: float = HANDOVER_TO_PERSON
    """D52: how long a seat's player must have been away (no connection anywhere) before
    the host may hand the seat to a person, when it departed without its player leaving
    on purpose (R52's grace ran out, D18). A bot may take it at once; 0: no wait."""
    send_queue_bytes: int = 64 * 1024
    """Bytes of messages waiting for one client (past its connection's write buffer) before
    it is cut as too slow (clients.py); one message always may wait, whatever its size."""
    send_stall_seconds: float = 30.0
    """How long a client's socket may take no more of what waits for it before it is cut."""
    silent_socket_seconds: float = 20.0
    """A WebSocket that has sent nothing for this long is pinged, and closed (1011) when the
    pong does not come within as long again: how long a connection lost without a close
    (a phone out of signal) holds on. One that was heard from meanwhile is not pinged."""
    frames_per_socket_10s: int = 1000
    """WebSocket frames of every kind one connection may send at once, then as many per
    10 s (inflow.py): past it the connection is closed with 4429."""
    frames_per_address_10s: int = 5000
    """WebSocket frames the connections of one address send together at once, then as many
    per 10 s (inflow.py; not a trusted proxy's, which bounds its own): past it, the
    connection whose frame found it spent is closed with 4429."""
    fragments_per_message: int = 16
    """Frames one WebSocket message may come in (browsers send one): past it, 4429."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, with every `TRUSIS_LIMIT_NAME` of the environment; a LimitError
        for a name that is no limit (a misspelt one is not silently ignored) or a bad value,
        naming the variable."""
        limits = cls()
        found = os.environ if environ is None else environ
        for key in sorted(k for k in found if k.upper().startswith(ENV_PREFIX)):
            raw = found[key]
            name = key[len(ENV_PREFIX):].lower()
            if name not in NAMES:
                raise LimitError(f"{key}: there is no limit {name!r}; {THE_LIMITS}")
            if raw.strip():
                limits.set(name, raw, setting=key)
        return limits

    def set(self, name: str, raw: str, setting: str | None = None) -> None:
        """One limit from text (`--limit name=value`, or the environment variable
        `setting`); a LimitError is one sentence naming the setting and what it takes."""
        said = setting or f"--limit {name}"
        if name not in NAMES:
            raise LimitError(f"{said}: there is no limit {name!r}; {THE_LIMITS}")
        seconds = NAMES[name] in ("float", float)
        wanted = ("a number of seconds, 0 or more" if seconds
                  else "a whole number, 0 or more") + " (0 turns this limit off)"
        value: int | float
        try:
            text = raw.strip()
            value = float(text) if seconds else int(text) if text.isascii() else -1
        except ValueError:
            value = -1
        if value < 0 or not math.isfinite(value):
            raise LimitError(f"{said} is {quoted(raw)}: give {wanted}")
        setattr(self, name, value)


class LimitError(ValueError):
    """A limit's setting is wrong: one sentence that names the setting (`--limit NAME` or
    the environment variable) and says what values it takes."""


NAMES = {f.name: f.type for f in fields(Limits)}
THE_LIMITS = ("the limits are " + ", ".join(NAMES)
              + " (docs/deploy.md, \"Limits per player and per address\")")


def counted(count: int, one: str, other: str) -> str:
    """"1 table", "2 tables": a limit may be set to 1, and the API's English sentence said
    "1 tables" (the page's own strings choose their plural forms, i18n.js)."""
    return f"{count} {one if count == 1 else other}"


def too_many(code: str, message: str, retry_after: float, **params: object) -> LobbyError:
    """A 429 that says when to try again (`Retry-After`, whole seconds)."""
    error = LobbyError(429, code, message, **params)
    error.headers = {"Retry-After": str(max(1, round(retry_after)))}
    return error


class PerAddress:
    """A token bucket per address: `capacity` at once, refilled over `period` seconds."""

    def __init__(self, capacity: int, period: float) -> None:
        self.capacity = capacity
        self.period = period
        self.buckets: OrderedDict[str, Bucket] = OrderedDict()

    def take(self, address: str) -> float:
        """0 when allowed (and counted); else the seconds until one more is."""
        if self.capacity <= 0:
            return 0.0
        bucket = self.buckets.get(address)
        if bucket is None:
            bucket = self.buckets[address] = Bucket(self.capacity,
                                                    self.capacity / self.period)
            while len(self.buckets) > KEYS_KEPT:
                self.buckets.popitem(last=False)
        self.buckets.move_to_end(address)
        if bucket.take():
            return 0.0
        return (1 - max(0.0, bucket.tokens)) / bucket.per_second
