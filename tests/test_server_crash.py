"""The crash test: `trusis serve` killed with SIGKILL at random moments, games running.

One server process on one SQLite file is killed (SIGKILL, no shutdown) at
random moments — some of them right after commands were sent, while they are
being stored — and started again on the same file, TRUSIS_CRASH_LOOPS times (20
by default). Meanwhile a few games run: people as protocol clients
(tests/liveplay.py) that send one command at a time, keep which were
acknowledged, reconnect with the last stream number they saw and send an
unanswered command again with the same id; bots at pace 0; the shortest timers,
and people who now and then do not pass so that the timers fire (also while the
server is down). Afterwards, from the database and its replay:

- every acknowledged command is in the record, by its client id, with the fields
  it was sent with, in the order of its acknowledgements; no refused one is;
- every game went on to its end;
- every timer fired once per phase: no phase has two timeouts or a refused one,
  none fired before its deadline, and no phase outlived its deadline (or the
  restart after it, when the server was down then) by more than a few seconds;
- every frame every client received, across every restart, is the engine's view
  and stream for its seat at that stream number (tests/leakcheck.py): nothing a
  crash undid was ever shown to anyone.
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from leakcheck import Checker, GameRun
from liveplay import Seated, action_of, action_rows, sent_fields, stored_record, table_row
from serverproc import Guest, ServerProcess, new_database
from trusis.rules.actions import TIMEOUT
from trusis.rules.roles import DAY
from trusis.table.table import Table

LOOPS = int(os.environ.get("TRUSIS_CRASH_LOOPS", "20"))
GAMES_AT_ONCE = 3
DAY_SECONDS, NIGHT_SECONDS = 30, 15  # the shortest timers the lobby allows
SLACK = 5.0  # seconds a timer may fire late (the room's clock, a loaded machine, the replay)
TAIL_SECONDS = 150.0  # after the last crash, every game must end within this


@dataclass
class Game:
    table_id: str
    seats: int
    guests: list[Guest]
    clients: list[Seated] = field(default_factory=list)
    night_seconds: int = NIGHT_SECONDS  # the table's (check_timers judges by it)


@dataclass
class Uptime:
    """When the server answered after each start, and when it was killed."""

    up: list[float] = field(default_factory=list)
    down: list[float] = field(default_factory=list)

    def answered_after(self, moment: float) -> float:
        """The first moment at or after `moment` when the server was up."""
        for i, up in enumerate(self.up):
            down = self.down[i] if i < len(self.down) else float("inf")
            if up <= moment < down:
                return moment
            if moment < up:
                return up
        return moment


def new_game(server: ServerProcess, index: int, rng: random.Random) -> Game:
    seats = rng.randint(5, 8)
    people = rng.randint(2, 3)
    host = Guest(server.url, f"Host {index}")
    guests = [host] + [Guest(server.url, f"C{index}.{i}") for i in range(1, people)]
    table = host.create(seats=seats, day_seconds=DAY_SECONDS, night_seconds=NIGHT_SECONDS,
                        name=f"crash {index}")
    game = Game(table["id"], seats, guests)
    numbers = [g.sit(game.table_id) for g in guests]
    host.bots(game.table_id, seats - people)
    host.start(game.table_id)
    for i, (guest, number) in enumerate(zip(guests, numbers, strict=True)):
        game.clients.append(Seated(server, game.table_id, guest.token, guest.id, number,
                                   random.Random(rng.random()), f"k{index}x{i}",
                                   whisper=0.2, idle=0.12))
    for client in game.clients:
        client.connect()
    return game


def crash(server: ServerProcess, uptime: Uptime, rng: random.Random) -> None:
    server.kill()
    uptime.down.append(time.time())
    time.sleep(rng.uniform(0.0, 1.5))  # deadlines may pass while it is down
    server.start()
    uptime.up.append(time.time())


def test_sigkill_loses_no_acknowledged_action_and_every_timer_fires_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(int(os.environ.get("TRUSIS_CRASH_SEED", "8")))
    server = ServerProcess(new_database("sqlite", tmp_path), bot_pace=0.0,
                           log=tmp_path / "server.log")
    uptime = Uptime()
    server.start()
    uptime.up.append(time.time())
    games: list[Game] = []
    crashes = 0
    next_crash = time.monotonic() + rng.uniform(0.5, 4.0)
    tail_from: float | None = None
    try:
        while True:
            running = [g for g in games if not all(c.finished for c in g.clients)]
            if crashes >= LOOPS:
                if not running:
                    break
                if tail_from is None:
                    tail_from = time.monotonic()
                    for client in (c for g in games for c in g.clients):
                        client.idle_rate = 0.0  # from now on people pass, so games end
                        client._idle = False
                assert time.monotonic() - tail_from < TAIL_SECONDS, \
                    f"games did not end after the crashes: {[g.table_id for g in running]}"
            elif len(running) < GAMES_AT_ONCE:
                games.append(new_game(server, len(games), rng))
                continue
            sent = 0
            for game in running:
                for client in game.clients:
                    if client.player is None:
                        client.connect()
                    client.pump()
                    sent += client.step()
            if crashes < LOOPS and (time.monotonic() >= next_crash
                                    or (sent and rng.random() < 0.02)):
                crash(server, uptime, rng)  # sometimes while commands are being stored
                crashes += 1
                next_crash = time.monotonic() + rng.uniform(0.3, 4.0)
                continue
            if not sent and running:
                running[0].clients[0].pump(0.01)
        for game in games:  # the last frames
            for client in game.clients:
                client.settle()
    finally:
        server.stop()
    problems: list[str] = []
    timeouts = 0
    late_fired = 0
    for game in games:
        problems += check_acknowledged(server, game)
        found, count, late = check_timers(server, game, uptime)
        problems += found
        timeouts += count
        late_fired += late
        run = GameRun(game.table_id, game.seats, game.clients)
        checker = Checker(run, server)
        checker.replay()
        for client in game.clients:
            checker.check_client(client, client.seat)
        problems += checker.problems
    acked = sum(len(c.acked) for g in games for c in g.clients)
    reconnects = sum(len(c.connections) - 1 for g in games for c in g.clients)
    with capsys.disabled():
        print(f"\ncrash: {crashes} SIGKILLs, {len(games)} games, {acked} acknowledged commands, "
              f"{reconnects} reconnects, {timeouts} timeouts ({late_fired} after a restart), "
              f"{len(problems)} problems")
    assert crashes >= LOOPS
    assert problems == [], "\n".join(problems[:30])
    assert timeouts > 0, "no timer fired: the test did not test timers"


def check_acknowledged(server: ServerProcess, game: Game) -> list[str]:
    """Every ack is stored with its client id and fields, in order; no refusal is."""
    problems = []
    row = table_row(server, game.table_id)
    if row["status"] != "finished" or not row["winner"]:
        problems.append(f"table {game.table_id} did not end ({row['status']})")
    rows = action_rows(server, game.table_id)
    stored = {(r["player_id"], r["client_id"]): r for r in rows if r["client_id"]}
    for client in game.clients:
        if client.pending is not None:
            problems.append(f"seat {client.seat}: {client.pending} never answered")
        if client.errors:
            problems.append(f"seat {client.seat}: commands answered as malformed "
                            f"{client.errors}")
        last = -1
        for cid in client.acked:
            found = stored.get((client.player_id, cid))
            if found is None:
                problems.append(f"table {game.table_id} seat {client.seat}: acknowledged "
                                f"{cid} {client.sent[cid]} is not in the record")
                continue
            data = json.loads(found["data"])
            if data.get("seat") != client.seat or action_of(data) != sent_fields(
                    client.sent[cid]):
                problems.append(f"{cid}: stored as {data}, sent as {client.sent[cid]}")
            if found["idx"] <= last:
                problems.append(f"{cid}: stored out of the order of its acknowledgement")
            last = found["idx"]
        for cid, answer in client.answers.items():
            if answer["type"] == "refused" and (client.player_id, cid) in stored:
                problems.append(f"{cid}: refused ({answer['code']}) but stored as accepted")
    return problems


def check_timers(server: ServerProcess, game: Game,
                 uptime: Uptime) -> tuple[list[str], int, int]:
    """Replay the record: each phase's end against its deadline (R12, once)."""
    problems: list[str] = []
    record = stored_record(server, game.table_id)
    table = Table(record.players, record.seed, record.custom, record.roles(),
                  bot_seats=record.extra.get("bot_seats", ()))
    started = record.extra["started_at"]
    state = table.state
    phase, phase_start = (state.kind, state.number), float(started)
    fired: dict[tuple[str, int], int] = {}
    timeouts = late = 0
    where = f"table {game.table_id}"
    for action, t in zip(record.actions, record.times, strict=True):
        assert t is not None
        seconds = DAY_SECONDS if phase[0] == DAY else game.night_seconds
        deadline = phase_start + seconds
        outcome = table.submit(action, t)
        if action.do == TIMEOUT:
            if outcome.refusal is not None:
                problems.append(f"{where}: a refused timeout in {phase} ({outcome.refusal.code})")
                continue
            timeouts += 1
            fired[phase] = fired.get(phase, 0) + 1
            if fired[phase] > 1:
                problems.append(f"{where}: {phase} timed out twice")
            if t < deadline - 0.05:
                problems.append(f"{where}: {phase} timed out {deadline - t:.2f}s early")
            if uptime.answered_after(deadline) > deadline + 0.05:
                late += 1
            if os.environ.get("TRUSIS_CRASH_DEBUG"):
                print(f"timeout {phase}: deadline {deadline:.2f} fired {t - deadline:+.2f}s, "
                      f"up again {uptime.answered_after(deadline) - deadline:+.2f}s")
        if t > uptime.answered_after(deadline) + SLACK:
            problems.append(f"{where}: {phase} still going {t - deadline:.1f}s after its "
                            f"deadline ({action.do})")
        if outcome.phase_changed:
            phase, phase_start = (state.kind, state.number), t
    if state.running:
        problems.append(f"{where}: the record ends with the game running")
    return problems, timeouts, late
