"""The send path alone, in-process: what one frame out costs from `Client.send_events` to bytes.

Usage: python bench/sendpath.py --against DIR [--pushes N] [--repeats K] [--rounds R]
                                [--no-deflate] [--one-process] [--pure]

bench/delivery.py measures the whole server on a shared machine, where a few percent
drown in noise. This isolates the delivery path's own code and times it with the
process's CPU clock: 10 clients (clients.py) on one event loop, every one of them sent
an `events` message per push — a real view of a 10-player game (`view_json`) and two
events — as `Room.push_to` does, then the loop runs until every frame is written. Each
client's websocket is starlette's `WebSocket` over an ASGI `send` that does what the
transport does with a text frame (websockets' permessage-deflate with the server's
settings, transport.py, and the frame's serialisation) and drops the bytes: the socket's
write is all that is left out. A tree whose `Client` takes `direct` (since 2026-12-06)
gets, as under uvicorn, a `transport.DirectFrames` over a stand-in of the protocol that
frames and deflates alike: its frames are written at once, not by a writer task through
ASGI. `--no-deflate`: either path drops the message at once (the server's own code only).

Each tree runs in its own process (PYTHONPATH: its src, or delivery.py's overlay over
the compiled engine), rounds alternating; printed: microseconds of CPU per frame for
each, the best of each round's repeats, and this/against per round and their median.
Separate processes on a shared machine differ by ±15 % on their own; when the trees
differ in clients.py only, `--one-process` loads the other tree's clients.py beside
this one's in one process and alternates blocks of the two (best of rounds x repeats).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parent.parent
CLIENTS = 10


def child(pushes: int, repeats: int, deflate: bool, other: str | None) -> list[float]:
    """Best microseconds of CPU per frame out, in this process's tree (and with `other`,
    the clients.py of another tree, loaded beside it: the repeats alternate), and the mean
    bytes of a frame on the wire."""
    import orjson
    from starlette.websockets import WebSocket, WebSocketState
    from websockets.extensions.permessage_deflate import PerMessageDeflate
    from websockets.frames import Frame, Opcode

    from engine import play_engine
    from trusis.rules import engine as rules_engine
    from trusis.rules.views import view_json
    from trusis.server.connections.clients import Client
    from trusis.server.connections.transport import DirectFrames, extensions

    # The views of a real game (random legal play, bench/engine.py): after every event
    # of it, each seat's view, as the server sends them (deflate depends on the content).
    steps: list[list[bytes]] = []
    real_apply = rules_engine.apply

    def recording_apply(state: Any, action: Any) -> Any:
        events = real_apply(state, action)
        steps.append([view_json(state, seat, chat=False) for seat in range(1, CLIENTS + 1)])
        return events

    import engine as bench_engine
    bench_engine.apply = recording_apply  # type: ignore[attr-defined]
    play_engine(CLIENTS, 7)
    factory = extensions("deflate")[0]
    written = [0, 0]  # frames, bytes

    def asgi_send(extension: Any) -> Any:
        async def send(message: Any) -> None:
            if extension is None:
                written[0] += 1
                return
            frame = Frame(Opcode.TEXT, message["text"].encode())
            written[0] += 1
            written[1] += len(frame.serialize(mask=False, extensions=[extension]))
        return send

    async def receive() -> Any:
        return {"type": "websocket.connect"}

    class StandIn:
        """What `transport.DirectFrames` writes through: uvicorn's protocol, open and
        writable, whose websockets connection frames (and deflates) a text frame as the
        ASGI send above does, and whose transport drops the bytes."""

        close_sent = disconnected = False

        def __init__(self, extension: Any) -> None:
            self.writable = asyncio.Event()
            self.writable.set()
            self.conn = self
            self.transport = self
            self.extension = extension
            self.out: list[bytes] = []

        def send_text(self, data: bytes) -> None:
            if self.extension is not None:
                self.out.append(Frame(Opcode.TEXT, data).serialize(
                    mask=False, extensions=[self.extension]))

        def data_to_send(self) -> list[bytes]:
            out, self.out = self.out, []
            return out

        def write(self, data: bytes) -> None:
            written[0] += 1
            written[1] += len(data)

    def make_clients(client_class: Any) -> list[Any]:
        clients = []
        for seat in range(1, CLIENTS + 1):
            extension = PerMessageDeflate(
                factory.client_no_context_takeover, factory.server_no_context_takeover,
                factory.client_max_window_bits, factory.server_max_window_bits,
                factory.compress_settings) if deflate else None
            socket = WebSocket({"type": "websocket", "path": "/ws", "headers": []},
                               receive, asgi_send(extension))
            socket.application_state = socket.client_state = WebSocketState.CONNECTED
            client = client_class(socket, f"p{seat}", f"P{seat}", seat)
            if hasattr(client, "direct"):  # a tree that writes frames at once when it can
                client.direct = DirectFrames(StandIn(extension))  # type: ignore[arg-type]
            if hasattr(client, "start"):  # a tree whose writer starts with the client
                client.start()
            clients.append(client)
        return clients

    def serialised(client: Any) -> bool:
        """Whether this client's clients.py takes an `events` message's parts as JSON
        (since 2026-12-05) rather than as lists and dicts (before)."""
        module = sys.modules[type(client).__module__]
        return module.Events.__annotations__.get("clock") == "bytes"

    async def block(clients: list[Any]) -> float:
        cpu = time.process_time()
        for number in range(pushes):
            for client in clients:
                events: Any = [{"seq": number * 2 + 1, "type": "said", "seat": 3,
                                "text": "I am the doctor, trust me"},
                               {"seq": number * 2 + 2, "type": "voted", "seat": 4,
                                "target": number % CLIENTS + 1}]
                clock: Any = {"now": time.time(), "deadline": 1e9}
                if serialised(client):  # a clients.py whose `events` messages are bytes
                    events = b",".join(orjson.dumps(event) for event in events)
                    clock = orjson.dumps(clock)
                view = steps[number % len(steps)][client.seat - 1]
                client.send_events(number * 2 + 2, events, view, clock)
            while any(client.queue for client in clients):
                await asyncio.sleep(0)
        return (time.process_time() - cpu) / (pushes * CLIENTS) * 1e6

    async def run() -> list[float]:
        variants = [make_clients(Client)]
        if other is not None:  # the other tree's clients.py, loaded beside this one
            spec = importlib.util.spec_from_file_location("other_clients", other)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules["other_clients"] = module
            spec.loader.exec_module(module)
            variants.append(make_clients(module.Client))
        best = [float("inf")] * len(variants)
        for _ in range(repeats):
            for index, clients in enumerate(variants):
                best[index] = min(best[index], await block(clients))
        for clients in variants:
            if any(client.closed for client in clients):
                raise SystemExit("a client was closed: frames were lost")
            for client in clients:
                await client.stop()
        if written[0] < pushes * CLIENTS * repeats * len(variants):
            raise SystemExit(f"frames were lost: {written[0]} written")
        return [*best, written[1] / max(1, written[0])]

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, metavar="DIR")
    parser.add_argument("--pushes", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-deflate", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--other", help=argparse.SUPPRESS)
    parser.add_argument("--one-process", action="store_true",
                        help="when the trees differ in clients.py only: both in one process, "
                             "the other's clients.py loaded beside this one's, alternating")
    parser.add_argument("--pure", action="store_true", help="both trees as plain Python")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.pushes, args.repeats, not args.no_deflate, args.other)))
        return
    if args.against is None:
        parser.error("--against DIR")
    from delivery import overlay

    trees = {"this": ROOT / "src", "against": args.against.resolve()}
    found: dict[str, list[float]] = {name: [] for name in trees}
    wire: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="trusis-sendpath-") as tmp:
        paths = {}
        for name, tree in trees.items():
            (Path(tmp) / name).mkdir()
            paths[name] = overlay(tree, Path(tmp) / name, args.pure)
        if args.one_process:
            command = [sys.executable, __file__, "--child", "--pushes", str(args.pushes),
                       "--repeats", str(args.repeats * args.rounds),
                       "--other", str(trees["against"] / "trusis" / "server" / "clients.py")]
            command += ["--no-deflate"] * args.no_deflate
            out = subprocess.run(command, env=dict(os.environ, PYTHONPATH=paths["this"]),
                                 capture_output=True, text=True, check=True).stdout
            this, against, _ = json.loads(out.strip().splitlines()[-1])
            print(f"one process, best of {args.repeats * args.rounds} alternating blocks: "
                  f"this {this:.2f} us per frame, against {against:.2f} us: "
                  f"{this / against:.3f}")
            return
        for round_ in range(args.rounds):
            for name in (trees if round_ % 2 == 0 else list(reversed(trees))):
                command = [sys.executable, __file__, "--child", "--pushes", str(args.pushes),
                           "--repeats", str(args.repeats)] + ["--no-deflate"] * args.no_deflate
                out = subprocess.run(command, env=dict(os.environ, PYTHONPATH=paths[name]),
                                     capture_output=True, text=True, check=True).stdout
                cpu, wire[name] = json.loads(out.strip().splitlines()[-1])  # type: ignore[misc]
                found[name].append(cpu)
            print(f"round {round_ + 1}: this {found['this'][-1]:.2f} us per frame, against "
                  f"{found['against'][-1]:.2f} us", flush=True)
    if not args.no_deflate:
        print(f"bytes per frame on the wire: this {wire['this']:.0f}, against "
              f"{wire['against']:.0f}")
    ratios = [a / b for a, b in zip(found["this"], found["against"], strict=True)]
    print("this / against: " + "  ".join(f"{x:.3f}" for x in ratios)
          + f"   median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()
