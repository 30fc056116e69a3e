"""Framing a game frame: websockets' `Frame` against framing.py's `TextFrames` (issue 39).

Usage: python bench/frame_header.py [--games N] [--rounds K]

The frames are what the server sends: each seat's `events` frames of random 10-player games
(bench/deflate_level.py makes them), each seat through its own compressor with the server's
settings, context kept. Both ways frame and deflate the same frames, in rounds that
alternate (A, B, A, B…: this machine is shared, and a lone run tells little); printed: the
best and median CPU microseconds per frame of each, and their ratio. The bytes of both are
checked equal first. Writing to the socket is left out: it is the same write either way.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from websockets.extensions.permessage_deflate import PerMessageDeflate
from websockets.frames import Frame, Opcode

from trusis.server.connections.framing import TextFrames
from trusis.server.connections.transport import extensions


def deflater() -> PerMessageDeflate:
    made = extensions("deflate")[0]
    return PerMessageDeflate(made.client_no_context_takeover,  # type: ignore[attr-defined]
                             made.server_no_context_takeover,  # type: ignore[attr-defined]
                             made.client_max_window_bits,  # type: ignore[attr-defined]
                             made.server_max_window_bits,  # type: ignore[attr-defined]
                             made.compress_settings)  # type: ignore[attr-defined]


def by_websockets(seats: list[list[bytes]]) -> list[bytes]:
    out = []
    for seat in seats:
        used = [deflater()]
        out.extend(Frame(Opcode.TEXT, data).serialize(mask=False, extensions=used)
                   for data in seat)
    return out


def by_framing(seats: list[list[bytes]]) -> list[bytes]:
    out = []
    for seat in seats:
        frames = TextFrames(deflater())
        out.extend(frames.frame(data) for data in seat)
    return out


def timed(way: Callable[[list[list[bytes]]], list[bytes]], seats: list[list[bytes]]) -> float:
    began = time.process_time()
    way(seats)
    return time.process_time() - began


def main() -> None:
    import deflate_level

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    seats = deflate_level.game_frames(args.games)
    count = sum(len(seat) for seat in seats)
    if by_websockets(seats) != by_framing(seats):
        raise SystemExit("the two ways framed different bytes")
    times: dict[str, list[float]] = {"websockets": [], "framing": []}
    for _ in range(args.rounds):
        times["websockets"].append(timed(by_websockets, seats))
        times["framing"].append(timed(by_framing, seats))
    print(f"{count} frames of {args.games} games, {args.rounds} rounds each, alternating; "
          "the same bytes both ways")
    for name, runs in times.items():
        print(f"  {name:10}  best {min(runs) / count * 1e6:6.2f} µs a frame, "
              f"median {statistics.median(runs) / count * 1e6:6.2f}")
    ratio = min(times["framing"]) / min(times["websockets"])
    median = statistics.median(times["framing"]) / statistics.median(times["websockets"])
    print(f"  framing.py / websockets: {ratio:.2f}x (best), {median:.2f}x (median)")


if __name__ == "__main__":
    main()
