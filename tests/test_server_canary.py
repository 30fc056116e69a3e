"""The canary: whole games through a real `trusis serve`, every frame and response scanned.

Several guests play seats over the protocol (tests/liveplay.py) beside server
bots, and one more guest watches each game as a spectator. Every hidden fact
carries a marker or is checked against the truth:

- private messages: each whisper carries a marker unique to (sender, recipient),
  which may reach only those two seats, anywhere (frames and HTTP answers);
- roles: a role id may appear in a frame only where the rules put facts (the
  seat's own role, `known`, private results and their events, the end), and
  every such fact must be one this seat may know at that moment: its own role,
  R7 team knowledge, the results its stream delivered (R27, R28), or the end
  (R35) — computed here from the deal and the frames, not from the server;
- night TRUSIS votes (R24) only to TRUSIS; private choices and results (an
  illusion's real target R21, an extra vote R22, protections, sweeps, ...) only
  to the seat that made or learnt them; internal events to nobody;
- the seed, and the record, never before the end;
- the moderation page (issue 18): one person per game (a seat, or the spectator) reports
  during the game, and a moderator's answers — every report, the reported player's record,
  the audit log — are scanned as that reporter's: a report holds only what its reporter
  could read (R50, R51, D35), so no whisper between two other seats and no role of the
  running game may appear in them.

Then the strongest check: the game's whole record, read from the database once
it has ended, is replayed with `trusis.table.table.Table`, and every `snapshot`
and `events` frame to every client must equal, byte for byte as JSON, the
engine's view and stream for that seat at that frame's stream number. 0 leaks
are allowed. TRUSIS_CANARY_GAMES=N plays more games.
"""

from __future__ import annotations

import json
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from leakcheck import PRIVATE_CODES, Checker, Fetch, GameRun
from liveplay import Seated
from modhelp import account, grant
from serverproc import Guest, ServerProcess, running_server
from trusis.rules.roles import TRUSIS

SPECIALS = ["ILLUSIONIST", "WISE_WOMAN", "ORACLE", "SWEEPER", "PRIEST", "GRAVEKEEPER",
            "GRAVEDIGGER", "KAMIKAZE", "WHITE_KNIGHT", "BLACK_KNIGHT", "CASTAWAY", "BUTCHER"]
GAMES = int(os.environ.get("TRUSIS_CANARY_GAMES", "8"))
GAME_SECONDS = float(os.environ.get("TRUSIS_CANARY_GAME_SECONDS", "150"))


def _fetch(run: GameRun, guest: Guest, seat: int | None, path: str, running: bool) -> None:
    reply = guest.http.get(path)
    run.fetches.append(Fetch(seat, path, reply.status_code, reply.text, running))


def _moderate(run: GameRun, moderator: httpx.Client, reporter: Guest, seat: int | None,
              about: int, running: bool) -> None:
    """The reporter reports `about`; the moderator reads every moderation answer, each
    scanned as if the reporter's seat had received it (D35)."""
    filed = reporter.http.post(f"/api/tables/{run.table_id}/reports",
                               json={"seat": about, "reason": "canary report"})
    assert filed.status_code == 201, filed.text
    decided = moderator.post(f"/api/moderation/reports/{filed.json()['id']}",
                             json={"state": "dismissed", "reason": "canary"})
    assert decided.status_code == 200, decided.text
    listing = moderator.get("/api/moderation/reports", params={"state": "all"})
    mine = [r for r in listing.json()["reports"] if r["table"]["id"] == run.table_id]
    assert mine and all(r["reporter"]["seat"] == seat for r in mine)
    paths = ["/api/moderation/reports?state=all", "/api/moderation/audit"]
    if mine[0]["about"]["id"]:
        paths.append(f"/api/moderation/players/{mine[0]['about']['id']}")
    for path in paths:
        reply = moderator.get(path)
        assert reply.status_code == 200, reply.text
        run.fetches.append(Fetch(seat, path, reply.status_code, reply.text, running))


def play_game(server: ServerProcess, index: int, rng: random.Random,
              moderator: httpx.Client | None = None) -> GameRun:
    """One game: guests seated, bots in the rest, a spectator; played to its end. With a
    moderator, one reporter (a seat, or the spectator in every other game) reports."""
    seats = rng.randint(5, 12)
    people = rng.randint(2, min(4, seats - 1))
    host = Guest(server.url, f"Host {index}")
    guests = [host] + [Guest(server.url, f"G{index}.{i}") for i in range(1, people)]
    watcher = Guest(server.url, f"Watcher {index}")
    options: dict[str, Any] = {}
    if index % 2:  # a custom set, so that every power comes up at small tables too (R3)
        specials = rng.sample(SPECIALS, min(len(SPECIALS), seats - 2))
        options["set"] = {"custom": dict.fromkeys([TRUSIS, *specials], 1)}
    table = host.create(seats=seats, day_seconds=60, night_seconds=30, name=f"canary {index}",
                        **options)
    table_id = table["id"]
    numbers = [g.sit(table_id) for g in guests]
    host.bots(table_id, seats - people)
    run = GameRun(table_id, seats, [])
    _fetch(run, watcher, None, f"/api/tables/{table_id}", True)
    host.start(table_id)
    for i, (guest, number) in enumerate(zip(guests, numbers, strict=True)):
        run.clients.append(Seated(server, table_id, guest.token, guest.id, number,
                                  random.Random(rng.random()), f"g{index}x{i}"))
    spectator = Seated(server, table_id, watcher.token, watcher.id, None, random.Random(0),
                       f"w{index}")
    run.spectators.append(spectator)
    everyone = [*run.clients, spectator]
    by_client = dict(zip(run.clients, guests, strict=True))
    by_client[spectator] = watcher
    for client in everyone:
        assert client.connect(), "could not connect"
    reporter = spectator if index % 2 == 0 else run.clients[0]
    others = [n for n in range(1, seats + 1) if n != reporter.seat]
    start = time.monotonic()
    reconnects = {rng.randrange(len(run.clients)): "keep", rng.randrange(len(run.clients)): None}
    steps = 0
    while not all(c.finished for c in everyone):
        assert time.monotonic() - start < GAME_SECONDS, (
            f"game {table_id} did not end in time: " + "; ".join(
                f"seat {c.seat} pending {c.pending} seq {c.seq} connected "
                f"{c.player is not None} {c.lost} view {json.dumps(c.view)[:300]}"
                for c in everyone))
        lost = [(c.seat, c.lost) for c in everyone if c.lost]
        assert not lost, f"the server dropped connections: {lost}"
        malformed = [(c.seat, c.errors) for c in everyone if c.errors]
        assert not malformed, f"commands answered as malformed: {malformed}"
        busy = 0
        for client in everyone:
            busy += client.pump()
            busy += client.step()
        steps += 1
        if steps % 40 == 0:  # HTTP answers during the game are scanned too
            client = rng.choice(everyone)
            guest = by_client[client]
            for path in (f"/api/tables/{table_id}", "/api/tables",
                         f"/api/tables/{table_id}/record", f"/api/tables/{table_id}/summary"):
                _fetch(run, guest, client.seat, path, not client.finished)
        if steps in (20, 200) and moderator is not None:  # one reporter per game (D35)
            _moderate(run, moderator, by_client[reporter], reporter.seat,
                      rng.choice(others), not reporter.finished)
        if steps % 25 == 0 and reconnects:  # a reload: the missed events, or a snapshot
            which, last = reconnects.popitem()
            client = run.clients[which]
            if not client.finished:
                client.drop()
                assert client.connect(last), "could not reconnect"
        if not busy:
            everyone[steps % len(everyone)].pump(0.01)
    if moderator is not None and steps < 20:  # a short game: read after its end
        _moderate(run, moderator, by_client[reporter], reporter.seat, rng.choice(others),
                  False)
    for client in everyone:  # the last frames
        client.settle()
        guest = by_client[client]
        for path in (f"/api/tables/{table_id}/record", f"/api/tables/{table_id}/summary",
                     f"/api/tables/{table_id}", "/api/tables"):
            _fetch(run, guest, client.seat, path, False)
        client.drop()
    run.seconds = time.monotonic() - start
    for guest in [*guests, watcher]:
        guest.close()
    return run


def test_canary_no_hidden_fact_reaches_a_seat_the_rules_do_not_give_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(int(os.environ.get("TRUSIS_CANARY_SEED", "20261201")))
    with running_server("sqlite", tmp_path, log=tmp_path / "server.log") as server:
        seeds = [rng.random() for _ in range(GAMES)]
        moderator, _ = account(server.url, "Canary Moderator")
        grant(server, "Canary Moderator", "moderator")
        with ThreadPoolExecutor(3) as pool:
            runs = list(pool.map(lambda i: play_game(server, i, random.Random(seeds[i]),
                                                     moderator), range(GAMES)))
        problems: list[str] = []
        totals = {"frames": 0, "events": 0, "views": 0, "markers": 0, "actions": 0}
        roles: dict[str, int] = {}
        codes: dict[str, int] = {}
        for run in runs:
            checker = Checker(run, server)
            problems += checker.check()
            totals["frames"] += checker.frames
            totals["events"] += checker.events
            totals["views"] += checker.views
            totals["markers"] += len(checker.markers)
            totals["actions"] += len(checker.record.actions)
            for client in run.clients:
                role = checker.roles[client.seat or 0]
                roles[role] = roles.get(role, 0) + 1
                for connection in client.connections:
                    for message in connection.messages:
                        for event in message.get("events", []) if message["type"] == \
                                "events" else []:
                            if event["code"] in PRIVATE_CODES:
                                codes[event["code"]] = codes.get(event["code"], 0) + 1
        with capsys.disabled():
            kinds: dict[str, int] = {}
            for problem in problems:
                what = problem.split(": ", 1)[-1][:60]
                kinds[what] = kinds.get(what, 0) + 1
            for what, count in sorted(kinds.items(), key=lambda kv: -kv[1])[:40]:
                print(f"  {count:5d} x {what}")
            print(f"\ncanary: {len(runs)} games, {totals}; "
                  f"{sum(len(r.fetches) for r in runs)} HTTP answers; "
                  f"{len(problems)} problems\n  guests' roles: {roles}\n"
                  f"  private events received: {codes}")
        assert problems == [], "\n".join(problems[:30])
        moderated = {r.table_id for r in runs for f in r.fetches
                     if f.path.startswith("/api/moderation")}
        assert len(moderated) == len(runs), "a game ended before its report was read"
        assert totals["markers"] > 0 and totals["events"] > 0
