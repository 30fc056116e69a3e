"""The leak checks of a game played through a real server (the canary and the crash test).

`Checker` takes a played game (`GameRun`: its clients with every frame they
received, and the HTTP answers they read) and the game's whole record from the
database, and lists every problem:

- the replay: each `snapshot` and `events` frame equals the engine's view and
  stream for that seat at that stream number (`trusis.table.table.Table` playing
  the record), and a seat's view never changes without an event it may see;
- the rules, independently of the engine: role facts only where R7, R27, R28 and
  R35 give them, private events only to their audience, TRUSIS night votes only
  to TRUSIS (R24), no internal event, no seed, whisper markers only to their two
  seats (R50), no record or end screen before the end, and a player's copy of
  the record holding no one else's private messages.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from liveplay import Seated, stored_record
from serverproc import ServerProcess
from trusis.rules.roles import (
    CASTAWAY,
    GRAVEDIGGER,
    GRAVEKEEPER,
    ILLUSIONIST,
    ORACLE,
    ROLE_IDS,
    ROLES,
    SWEEPER,
    TRUSIS,
)
from trusis.table.table import Table

PUBLIC_CODES = frozenset({
    "vote_cast", "vote_withdrawn", "passed", "timed_out", "left", "replaced", "returned", "said",
    "vote_killed", "nobody_killed", "died", "quiet_night", "revived", "stalemate",
    "phase_limit", "operator_draw", "game_over", "phase_started",
})
# Private codes, and the roles that may receive them (None: see the check).
PRIVATE_CODES: dict[str, frozenset[str] | None] = {
    "trusis_vote": frozenset({TRUSIS}),
    "trusis_vote_withdrawn": frozenset({TRUSIS}),
    "illusion_made": frozenset({ILLUSIONIST}),
    "sweep_result": frozenset({SWEEPER}),
    "foresee_result": frozenset({ORACLE}),
    "gravekeeper_result": frozenset({GRAVEKEEPER}),
    "gravedigger_result": frozenset({GRAVEDIGGER}),
    "choice_made": None,
    "choice_withdrawn": None,
    "whispered": None,
}
CHOICE_KEYS = {"illusion": "illusion", "protect": "protect", "kamikaze": "kamikaze",
               "revive": "revive", "extra_vote": "extra_vote",
               "extra_vote_today": "extra_vote", "swept": "sweep", "foreseen": "foresee"}
RESULT_CODES = ("sweep_result", "foresee_result", "gravekeeper_result", "gravedigger_result")


def powers_of(role: str) -> set[str]:
    return set(ROLES[role].day_powers) | set(ROLES[role].night_powers)


@dataclass
class Fetch:
    """One HTTP answer a client read: who asked (a seat, or None), what, and when."""

    seat: int | None
    path: str
    status: int
    text: str
    running: bool


@dataclass
class GameRun:
    table_id: str
    seats: int
    clients: list[Seated]
    spectators: list[Seated] = field(default_factory=list)
    fetches: list[Fetch] = field(default_factory=list)
    seconds: float = 0.0


def canon(data: Any) -> Any:
    return json.loads(json.dumps(data, sort_keys=True))


def walk(data: Any, path: tuple[str, ...] = ()) -> Any:
    """Every (path, value) of a JSON document; list indices become '*'."""
    if isinstance(data, dict):
        for key, value in data.items():
            yield from walk(value, (*path, str(key)))
    elif isinstance(data, list):
        for value in data:
            yield from walk(value, (*path, "*"))
    else:
        yield path, data


def role_id_allowed(path: tuple[str, ...]) -> bool:
    """Where a role id (or a team id, which shares some spellings) may stand in a frame."""
    tail = path[-2:]
    if "text" in path[-1:] or path[-1:] == ("name",):  # chat lines and names are free text
        return True
    if path[-1:] in (("role",), ("team",), ("winner",), ("result",)):
        return True
    if len(path) >= 2 and path[-2] in ("known", "roles"):
        return True
    return tail == ("params", "winner")


class Checker:
    """Every check of one game, collecting problems (the test allows none)."""

    def __init__(self, run: GameRun, server: ServerProcess) -> None:
        self.run = run
        self.problems: list[str] = []
        self.record = stored_record(server, run.table_id)
        self.roles = ["", *self.record.roles()]
        self.n = len(self.record.players)
        self.seed = str(self.record.seed)
        self.markers: dict[str, tuple[int, int]] = {}
        for client in run.clients:
            self.markers.update(client.whispers)
        self.frames = 0
        self.events = 0
        self.views = 0

    def fail(self, where: str, what: str) -> None:
        self.problems.append(f"table {self.run.table_id} {where}: {what}")

    # -- the replay: every view and stream the engine gives each watched seat ----------

    def replay(self) -> None:
        needed: dict[tuple[int | None, int, bool], None] = {}
        watched: set[int | None] = {None}
        for client in self.run.clients:
            watched.add(client.seat)
        for seat, message in self._all_messages():
            if message["type"] in ("snapshot", "events"):
                needed[(seat, message["seq"], message["type"] == "snapshot")] = None
        table = Table(self.record.players, self.record.seed, self.record.custom,
                      self.record.roles(),
                      bot_seats=self.record.extra.get("bot_seats", ()))
        self.expected: dict[tuple[int | None, int, bool], list[Any]] = {}
        actions = self.record.actions
        times = self.record.times
        for k in range(len(actions) + 1):
            if k:
                table.submit(actions[k - 1], times[k - 1])
            for seat in watched:
                position = table.stream_length(seat)
                for chat in (False, True):
                    key = (seat, position, chat)
                    if key in needed:
                        view = canon(table.snapshot(seat, chat))
                        seen = self.expected.setdefault(key, [])
                        if view not in seen:
                            seen.append(view)
        for key, seen in self.expected.items():
            if len(seen) > 1:  # a view that changed with no event this seat may see
                self.fail(f"seat {key[0]}", f"view changed at stream number {key[1]} "
                          "without an event")
        self.streams = {seat: table.events_after(seat, 0) for seat in watched}
        self.final = table
        assert not table.state.running, "the stored game has not ended"

    def _all_messages(self) -> Any:
        for client in self._everyone():
            for connection in client.connections:
                seat = client.seat
                for message in connection.messages:
                    yield seat, message

    def _everyone(self) -> list[Seated]:
        return self.run.clients + self.run.spectators

    # -- frames ------------------------------------------------------------------------

    def check_client(self, client: Seated, seat: int | None) -> None:
        role = self.roles[seat] if seat is not None else None
        allowed = self._start_knowledge(seat)
        ended = False
        last_seq = 0
        for number, connection in enumerate(client.connections):
            expect_from: int | None = None
            for raw, message in zip(connection.frames, connection.messages, strict=True):
                self.frames += 1
                where = f"seat {seat} connection {number} {message['type']}"
                self._scan_raw(raw, seat, where, ended)
                kind = message["type"]
                if kind == "welcome" and message["seat"] != seat:
                    self.fail(where, f"welcome names seat {message['seat']}")
                if kind not in ("snapshot", "events"):
                    if kind == "table":
                        self._scan_roles(message, where, allowed_paths=("winner",))
                    continue
                seq = message["seq"]
                view = message["view"]
                self.views += 1
                events = message.get("events", [])
                stream = self.streams[seat]
                if kind == "snapshot":
                    want = stream[max(0, seq - 2000):seq]
                    if events != want:
                        self.fail(where, f"snapshot events differ from the seat's stream at {seq}")
                else:
                    numbers = [e["seq"] for e in events]
                    first = expect_from if expect_from is not None else None
                    if numbers and numbers != list(range(numbers[0], seq + 1)):
                        self.fail(where, f"events {numbers} do not end at {seq}")
                    if numbers and first is not None and numbers[0] != first:
                        self.fail(where, f"events start at {numbers[0]}, not {first}")
                    for event in events:
                        self.events += 1
                        if not 1 <= event["seq"] <= len(stream) or \
                                stream[event["seq"] - 1] != event:
                            self.fail(where, f"event {event} is not the seat's stream entry")
                expect_from = seq + 1
                if view.get("seq") != seq:
                    self.fail(where, f"view seq {view.get('seq')} != frame seq {seq}")
                if canon(view) not in self.expected.get((seat, seq, kind == "snapshot"), []):
                    self.fail(where, f"view at {seq} is not the engine's view for this seat")
                # Independent of the engine: what the rules give this seat.
                for event in events:
                    ended = self._check_event(event, seat, role, allowed, where) or ended
                self._check_view(view, seat, role, allowed, ended, where)
                last_seq = max(last_seq, seq)
        final = len(self.streams[seat])
        if last_seq != final:
            missed = self.streams[seat][last_seq:]
            self.fail(f"seat {seat}", f"the client ended at {last_seq}, the stream at {final}"
                      f" ({missed[:3]})")

    def _start_knowledge(self, seat: int | None) -> dict[int, set[str]]:
        """R7: what `seat` knows when the game starts (fact sets by seat)."""
        allowed: dict[int, set[str]] = {}
        if seat is None:
            return allowed
        role = self.roles[seat]
        allowed[seat] = {role}
        for other in range(1, self.n + 1):
            if role in (TRUSIS, GRAVEDIGGER) and self.roles[other] == TRUSIS:
                allowed.setdefault(other, set()).add(TRUSIS)
            if role == GRAVEDIGGER and self.roles[other] == GRAVEDIGGER:
                allowed.setdefault(other, set()).add(GRAVEDIGGER)
        return allowed

    def _check_event(self, event: dict[str, Any], seat: int | None, role: str | None,
                     allowed: dict[int, set[str]], where: str) -> bool:
        code = event["code"]
        params = event["params"]
        if code in PUBLIC_CODES:
            return code == "game_over"
        if code not in PRIVATE_CODES:
            self.fail(where, f"unknown or internal event {code!r} delivered")
            return False
        if seat is None:
            self.fail(where, f"private event {code!r} to a spectator")
            return False
        roles = PRIVATE_CODES[code]
        if roles is not None and role not in roles:
            self.fail(where, f"{code} to a {role}")
        if code in ("choice_made", "choice_withdrawn") and params["power"] not in powers_of(
                role or ""):
            self.fail(where, f"{code} of {params['power']} to a {role}")
        if code == "whispered" and seat not in (params["seat"], params["to"]):
            self.fail(where, "a whisper to a third seat")
        if code in RESULT_CODES:
            target = params["target"]
            fact = params.get("role", params.get("result"))
            truth = self.roles[target]
            right = {"sweep_result": truth if truth in (TRUSIS, CASTAWAY) else "NEITHER",
                     "gravekeeper_result": TRUSIS if truth == TRUSIS else "NOT_TRUSIS"
                     }.get(code, truth)
            if fact != right:
                self.fail(where, f"{code} says {fact}, the truth is {right}")
            allowed.setdefault(target, set()).add(fact)
        return False

    def _check_view(self, view: dict[str, Any], seat: int | None, role: str | None,
                    allowed: dict[int, set[str]], ended: bool, where: str) -> None:
        self._scan_roles(view, where)
        if ended or view["status"] == "finished":
            return
        if seat is None:
            if view.get("known"):
                self.fail(where, f"a spectator knows {view['known']}")
            if "role" in view or view.get("legal"):
                self.fail(where, "a spectator view with a role or legal actions")
        else:
            if view.get("role") != role or view.get("team") != ROLES[role or ""].team:
                self.fail(where, f"own role shown as {view.get('role')}")
            for key, fact in view.get("known", {}).items():
                if fact not in allowed.get(int(key), set()):
                    self.fail(where, f"knows seat {key} is {fact}, which the rules do not give")
            for result in view.get("results", []):
                fact = result.get("role", result.get("result"))
                if fact not in allowed.get(result["target"], set()):
                    self.fail(where, f"a result {result} it was never told")
            for key in view.get("choices", {}):
                power = CHOICE_KEYS.get(key, key)
                if power != "vote" and power not in powers_of(role or ""):
                    self.fail(where, f"choice {key} shown to a {role}")
        night = view["phase"]["kind"] == "night"
        if night and role != TRUSIS and (view.get("votes") or view.get("vote_counts")):
            self.fail(where, f"night votes {view.get('votes')} shown to a {role}")

    def _scan_roles(self, data: Any, where: str,
                    allowed_paths: tuple[str, ...] | None = None) -> None:
        for path, value in walk(data):
            if isinstance(value, str) and value in ROLE_IDS:
                ok = (path[-1:] == allowed_paths[-1:] if allowed_paths is not None
                      else role_id_allowed(path))
                if not ok:
                    self.fail(where, f"a role id {value} at {'.'.join(path)}")

    def _scan_raw(self, raw: str, seat: int | None, where: str, ended: bool) -> None:
        if self.seed in raw:
            self.fail(where, "the seed")
        if "Zq" not in raw:
            return
        for marker, pair in self.markers.items():
            if marker in raw and seat not in pair:
                self.fail(where, f"the private message {pair} reached seat {seat}")

    # -- HTTP --------------------------------------------------------------------------

    def check_fetches(self) -> None:
        for fetch in self.run.fetches:
            where = f"GET {fetch.path} by seat {fetch.seat} ({fetch.status})"
            for marker, pair in self.markers.items():
                if marker in fetch.text and fetch.seat not in pair:
                    self.fail(where, f"the private message {pair}")
            is_record = fetch.path.endswith("/record")
            is_summary = fetch.path.endswith("/summary")
            # A client may ask just as the game ends, before its last frame arrives: what
            # must never be served is a game that has not ended. A record must then be the
            # whole game (below), and an end screen must name the real winner.
            if is_summary and fetch.status == 200 and \
                    json.loads(fetch.text).get("winner") != self.record_winner():
                self.fail(where, "an end screen that is not the finished game's")
            if (self.seed in fetch.text) and not (is_record and fetch.status == 200):
                self.fail(where, "the seed")
            if not (is_record or is_summary) and fetch.status == 200:
                self._scan_roles(json.loads(fetch.text), where, allowed_paths=("winner",))
            if is_record and fetch.status == 200:
                self._check_download(json.loads(fetch.text), fetch.seat, where)

    def record_winner(self) -> str | None:
        table = Table(self.record.players, self.record.seed, self.record.custom,
                      self.record.roles())
        for action in self.record.actions:
            table.submit(action)
        return table.state.winner

    def _check_download(self, data: dict[str, Any], seat: int | None, where: str) -> None:
        """A player's copy of the record: the whole game but others' private messages."""
        want = [a.to_dict() for a in self.record.actions]
        for entry, t in zip(want, self.record.times, strict=True):
            if t is not None:
                entry["t"] = t
        want = [a for a in want if a["do"] != "say" or a.get("to") is None
                or seat in (a["seat"], a["to"])]
        if data["actions"] != want:
            self.fail(where, "the downloaded record is not the game less others' whispers")
        if data["deal"] != self.record.roles() or data["seed"] != self.record.seed:
            self.fail(where, "the downloaded record has another deal")

    # -- positive checks: the markers went where they were sent ---------------------------

    def check_delivery(self) -> None:
        frames_of: dict[int | None, str] = {}
        for client in self.run.clients:
            text = "".join(f for c in client.connections for f in c.frames)
            frames_of[client.seat] = frames_of.get(client.seat, "") + text
        for client in self.run.clients:
            for cid in client.acked:
                action = client.sent[cid]
                if action.get("do") != "say":
                    continue
                marker = action["text"].split()[-1]
                to = action["to"]
                if to in frames_of and marker not in frames_of[to]:
                    self.fail(f"seat {to}", f"never received the whisper {marker}")

    def check(self) -> list[str]:
        self.replay()
        for client in self.run.clients:
            self.check_client(client, client.seat)
        for client in self.run.spectators:
            self.check_client(client, None)
        self.check_fetches()
        self.check_delivery()
        return self.problems
