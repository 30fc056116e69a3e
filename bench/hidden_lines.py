"""What hiding chat lines (D71) costs the send path: `Table.events_json` for the ten seats
of a push, as `Room.push_to` calls it, three ways side by side in one process (CPU clock,
best of the repeats, the ways alternating):

- `before`: no reader, as before D71;
- `none`: the room's reader check that answers None (nothing hidden, no staff client):
  what every table pays now;
- `hidden`: an active reader (one line hidden at the table): what a table with a hidden
  line pays, each chat event looked up and the hidden one serialised for its reader.

No assertions: a measuring tape for docs/architecture.md ("Views are allow-lists").
Usage: python bench/hidden_lines.py [--pushes 2000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import time

from trusis.rules.actions import Action
from trusis.table.hiding import Hide, Hides, Reader
from trusis.table.table import Table

SEATS = 10


def table() -> Table:
    game = Table([f"P{i}" for i in range(1, SEATS + 1)], seed=7)
    for i in range(200):
        game.submit(Action("say", 1 + i % SEATS, text=f"line {i}"), float(i))
    return game


def measure(game: Table, way: str, pushes: int) -> float:
    """Microseconds of CPU per client per push."""
    quiet, hidden = Hides(), Hides({5: Hide("rude", "w")})

    def reader(hides: Hides, staff: bool = False) -> Reader | None:  # Room.reader's test
        if not hides.lines and not staff:
            return None
        return Reader(hides, "p", staff, False)

    start = time.process_time()
    for _ in range(pushes):
        memo: dict[int, bytes] = {}
        first = max(0, game.stream_length(1) - 2)
        for seat in range(1, SEATS + 1):
            if way == "before":
                game.events_json(seat, first, memo)
            else:
                game.events_json(seat, first, memo, reader(quiet if way == "none" else hidden))
    return (time.process_time() - start) / pushes / SEATS * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pushes", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    game = table()
    best = {"before": 1e9, "none": 1e9, "hidden": 1e9}
    for _ in range(args.repeats):
        for way in best:
            best[way] = min(best[way], measure(game, way, args.pushes))
    for way, us in best.items():
        print(f"{way:7} {us:6.3f} µs per client per push  ({us / best['before']:.2f}x before)")


if __name__ == "__main__":
    main()
