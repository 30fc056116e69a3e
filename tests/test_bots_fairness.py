"""At a real server, bots keep a human pace with a person among them (issue 40).

A real `trusis serve` at the default bot pace, ten seats: one program seat plays a
scripted person over the WebSocket protocol (bench/people.py) while nine `normal` bots
play as the server schedules them. The CI-sized version of bench/fairness.py, which plays
hundreds of such tables and prints how often the person is voted out against the fair
share; here a few tables at once pin what can be seen in each: an early lone vote is not
answered at once, no bot votes in the first seconds of a day without evidence, and a day
the only person passed at once goes on, readable, before it ends.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from serverproc import running_server

BENCH = Path(__file__).resolve().parent.parent / "bench"
DAY = 30.0  # the shortest day a table may have
NO_POWERS = {"TRUSIS": 2}  # ten seats, two Trusis, eight Humans: nobody knows anything


def bench() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    for name in ("fairness", "fairness_server"):
        if name not in sys.modules:
            spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
    return sys.modules["fairness_server"]


def test_bots_at_a_real_server_keep_a_human_pace_with_a_person(tmp_path: Path) -> None:
    server = bench()

    async def tables(url: str) -> list[Any]:
        plays = [("early", 0, None), ("early", 1, None), ("early", 2, NO_POWERS),
                 ("pass", 3, NO_POWERS), ("pass", 4, None)]
        return list(await asyncio.gather(*(server.table_day(url, style, seed, 10, "normal",
                                                            DAY, custom)
                                           for style, seed, custom in plays)))

    with running_server("sqlite", tmp_path, bot_pace=1.0) as proc:
        early, early2, quiet_table, passed, passed2 = asyncio.run(tables(proc.url))
    for day in (early, early2, quiet_table):
        assert day.target, "the person's early vote was not played"
        # A vote is a question before it is evidence: never answered with a vote at once
        # (1.0–1.2 s before issue 40; the bots wait 5 s and more, and a loaded CI machine
        # measured 4.45 s from the person's side, whose own vote is timed when it reads it).
        assert day.back is None or day.back >= 4.0, day
    # Nobody holds evidence on Day 1 of a table without powers: no vote in its first
    # tenth (5 s of a 30-second day), but the bots talk first.
    for day in (quiet_table, passed):
        assert day.first_vote is not None and day.first_vote >= 5.0, day
        assert day.first_line is not None and day.first_line < day.first_vote, day
    # The person passed in the first second: the day still lasts a readable while (a
    # quarter of it, at least 10 s), with bots' lines and votes in it.
    for day in (passed, passed2):
        assert day.pass_to_end is not None and day.pass_to_end >= 9.0, day
        assert day.lines_before_end >= 1, day
