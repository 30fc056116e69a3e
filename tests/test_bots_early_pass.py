"""A person who passes at once on Day 1 without voting is not voted out for it (issue 21, D23).

Five seats, one person and four default bots scheduled as a server schedules them
(bench/early_pass.py, which prints the figures over 100 games). Before D23 the first vote
of the day decided the day: when it landed on the passer — who can no longer vote back or
change anything — every bot followed and the passer died every time. Since issue 40 a
hunch does not even start on such a seat: the first vote of the day lands on it only with
evidence, which Day 1 does not give.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent.parent / "bench" / "early_pass.py"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("early_pass", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["early_pass"] = module
    spec.loader.exec_module(module)
    return module


def test_a_seat_that_passed_at_once_is_not_piled_on_by_the_bots() -> None:
    early = bench()
    results = early.games(30, 1000, early_pass=True)
    control = early.games(30, 1000, early_pass=False)
    died = sum(r.killed == r.person for r in results)
    random_seat = sum(r.killed != 0 for r in control) / early.SEATS  # a seat's share of deaths
    assert died <= 2 * random_seat, (died, random_seat)
    # A hunch never starts on a seat that cannot answer (D23): no first vote on the passer.
    assert not [r for r in results if r.first == r.person]
