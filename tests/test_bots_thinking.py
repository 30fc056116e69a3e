"""Issue 40: an expert's thinking never stalls a table — off the loop, bounded, or skipped."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import ClassVar

from serverplay import Conn
from serverproc import Guest, running_server
from trusis.bots.expert import ExpertBot
from trusis.rules.actions import Action
from trusis.server.tables.botplay import BotPlay
from trusis.server.tables.thinking import Thinking
from trusis.table.table import Table

NAMES = ["Ann", "Basil", "Clara", "Dario", "Elsa", "Felix", "Greta", "Hugo", "Ines", "Jon"]
DEAL = ["HUMAN", "HUMAN", "TRUSIS", "SWEEPER", "BUTCHER", "PRIEST", "HUMAN", "TRUSIS",
        "GRAVEKEEPER", "ILLUSIONIST"]


class Traced(ExpertBot):
    """An expert that notes where it thought, and can be held in its thinking."""

    kind: ClassVar[str] = "expert"
    hold: threading.Event | None = None

    def __init__(self, seat: int, seed: int = 0, lang: str = "en") -> None:
        super().__init__(seat, seed, lang)
        self.where: list[str] = []
        self.thinkers: list[str] = []

    def act(self) -> Action | None:
        """Notes the thread of every decision that looked ahead (`thinkers`) and of every
        decision at all (`where`)."""
        name = threading.current_thread().name
        self.where.append(name)
        if self.hold is not None:
            self.hold.wait(10)
        before = self.searches
        action = super().act()
        if self.searches > before:
            self.thinkers.append(name)
        return action


def table_of_bots(seed: int) -> tuple[BotPlay, dict[int, Traced]]:
    table = Table(NAMES, seed, deal=DEAL)
    play = BotPlay(table, pace=0.0)
    bots = {s: Traced(s, seed) for s in range(1, 11)}
    for seat, bot in bots.items():
        play.seat(seat, bot, 0.0)
    play.new_phase(0.0, 30.0)
    return play, bots


def test_an_expert_thinks_in_the_pool_while_the_loop_serves_others() -> None:
    play, bots = table_of_bots(1)
    thinking = Thinking(rollouts=12, threads=1)

    async def scenario() -> int:
        ticks = 0
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not done.is_set():
                await asyncio.sleep(0.002)
                ticks += 1

        task = asyncio.create_task(ticker())
        for _ in range(6):  # Day 1 turns: the Humans' first votes are searched
            await thinking.ahead(play, time.time())
            for action in play.step(time.time()):
                play.table.play(action)
        done.set()
        await task
        return ticks

    try:
        ticks = asyncio.run(scenario())
    finally:
        thinking.close()
    thinkers = {name for bot in bots.values() for name in bot.thinkers}
    searched = sum(b.searches for b in bots.values())
    assert searched > 0 and thinking.thought > 0 and thinking.degraded == 0
    assert thinkers == {"trusis-bots_0"}  # it looked ahead in the pool, never on the loop
    assert ticks > 10  # the loop kept its turns while the bots thought


def test_a_busy_server_degrades_an_expert_to_normal_instead_of_waiting() -> None:
    """With its one thread held by table A, table B's experts decide at once, on the
    loop, without looking ahead; A's thought comes when its thread is free."""
    a, a_bots = table_of_bots(2)
    b, b_bots = table_of_bots(3)
    gate = threading.Event()
    for bot in a_bots.values():
        bot.hold = gate
    thinking = Thinking(rollouts=12, threads=1)

    async def scenario() -> tuple[float, list[Action]]:
        busy = asyncio.create_task(thinking.ahead(a, time.time()))
        while not thinking.busy():
            await asyncio.sleep(0.001)
        started = time.perf_counter()
        await thinking.ahead(b, time.time())
        played = list(b.step(time.time()))
        for action in played:
            b.table.play(action)
        took = time.perf_counter() - started
        gate.set()
        await busy
        return took, played

    try:
        took, played = asyncio.run(scenario())
    finally:
        gate.set()
        thinking.close()
    assert thinking.degraded == 10  # every bot of B, due at once at pace 0
    assert played and all(bot.searches == 0 for bot in b_bots.values())
    assert all(name == "MainThread" for bot in b_bots.values() for name in bot.where)
    assert took < 5  # B never waited for A's thread (held ten seconds at most)
    assert a_bots[1].where and a_bots[1].where[0].startswith("trusis-bots")


def test_a_server_table_of_experts_plays_to_the_end_thinking_off_its_loop(
        tmp_path: Path) -> None:
    """A real server with one thinking thread and ten experts at bot pace 0: the game
    ends, every seat's actions come through the server's one writer, nothing refused."""
    with running_server("sqlite", tmp_path, extra=["--bot-threads", "1",
                                                   "--bot-rollouts", "6"]) as server:
        host = Guest(server.url, "Host")
        table = host.create(seats=10, day_seconds=30, night_seconds=15)
        host.bots(table["id"], 10, kind="expert")
        host.start(table["id"])
        watcher = Conn(server, table["id"], host.token)
        try:
            watcher.until(lambda p: p.view is not None and p.view["status"] == "finished", 240)
        finally:
            watcher.close()
        record = host.http.get(f"/api/tables/{table['id']}/record").json()
        assert any(a["do"] == "vote" for a in record["actions"])
