"""Write the balance lab's estimates of the standard set at every size (R1: 5 to 30 seats).

The server answers `/api/balance` for the standard set from this file at once
(server/balance.py), so that a host choosing a table size never waits for the
lab. The estimates are deterministic (seed 0, heuristic bots), so this file is
what the server would compute itself; run again after a change to the bots or
the rules:

    .venv/bin/python tools/balance_standard.py [--games 200] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from trusis.server.tables.balance import STANDARD_FILE, estimate

SIZES = range(5, 31)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    with ProcessPoolExecutor(args.jobs) as pool:
        found = dict(zip(SIZES, pool.map(estimate, SIZES, [None] * len(SIZES),
                                         [args.games] * len(SIZES)), strict=True))
    data = {"games": args.games, "standard": {str(n): found[n] for n in SIZES}}
    Path(STANDARD_FILE).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", "utf-8")
    print(f"wrote {STANDARD_FILE}: {len(found)} sizes, {args.games} games each")


if __name__ == "__main__":
    main()
