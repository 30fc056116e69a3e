"""Per-message deflate at other compression levels: CPU and bytes per game frame.

Usage: python bench/deflate_level.py [--games N] [--repeats K] [--levels 6,1,3,9]

The server deflates every frame with zlib's default level (6), a 4 KiB window kept from
frame to frame and memLevel 2 (server/transport.py). A faster level looks like an easy
saving; this measures it on what the server really sends: the `events` frames of each
seat of random 10-player games (bench/engine.py), in order, each seat through its own
compressor with the server's settings but the level. Printed for each level, side by
side in the same process (best of K repeats, CPU clock): microseconds per frame, bytes
per frame on the wire, and both as a ratio to level 6.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

SEATS = 10


def game_frames(games: int) -> list[list[bytes]]:
    """Each seat's `events` frames over `games` random games, in the order sent."""
    import engine as bench_engine
    from trusis.rules import engine as rules_engine
    from trusis.rules.views import view_json

    frames: list[list[bytes]] = [[] for _ in range(SEATS)]
    real_apply = rules_engine.apply

    def recording_apply(state: Any, action: Any) -> Any:
        events = real_apply(state, action)
        for seat in range(1, SEATS + 1):
            number = len(frames[seat - 1]) + 1
            frames[seat - 1].append(
                b'{"type":"events","seq":%d,"events":[{"seq":%d,"code":"vote_cast",'
                b'"params":{"voter":2,"target":5},"t":1764580000.25}],"view":%b,'
                b'"clock":{"now":1764580000.25,"deadline":1764580090.0}}'
                % (number, number, view_json(state, seat, chat=False)))
        return events

    bench_engine.apply = recording_apply  # type: ignore[attr-defined]
    for seed in range(games):
        bench_engine.play_engine(SEATS, seed)
    return frames


def measure(frames: list[list[bytes]], level: int, repeats: int) -> tuple[float, float]:
    """Best microseconds of CPU per frame, and mean bytes per frame on the wire."""
    from websockets.extensions.permessage_deflate import PerMessageDeflate
    from websockets.frames import Frame, Opcode

    from trusis.server.connections.transport import extensions

    factory = extensions("deflate")[0]
    settings = {**factory.compress_settings, "level": level}  # type: ignore[attr-defined]
    best, size, count = float("inf"), 0, 0
    for _ in range(repeats):
        size = count = 0
        start = time.process_time()
        for seat in frames:
            deflate = PerMessageDeflate(True, False, 12, 12, settings)
            for data in seat:
                size += len(Frame(Opcode.TEXT, data).serialize(mask=False,
                                                               extensions=[deflate]))
                count += 1
        best = min(best, time.process_time() - start)
    return best / count * 1e6, size / count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--levels", default="6,1,3,9")
    args = parser.parse_args()
    frames = game_frames(args.games)
    count = sum(len(seat) for seat in frames)
    mean = sum(len(data) for seat in frames for data in seat) / count
    print(f"{count} frames of {args.games} games ({mean:.0f} bytes of JSON each)")
    levels = [int(level) for level in args.levels.split(",")]
    results = {level: measure(frames, level, args.repeats) for level in levels}
    base_us, base_bytes = results.get(6) or measure(frames, 6, args.repeats)
    for level, (us, size) in results.items():
        print(f"  level {level}: {us:6.1f} us per frame ({us / base_us:.2f}x level 6), "
              f"{size:5.0f} bytes on the wire ({size / base_bytes:.2f}x)")


if __name__ == "__main__":
    main()
