"""A TCP proxy that cuts a link the ways a network does, for the partition tests (issue 41).

A `FaultProxy` listens on a spare port of 127.0.0.1 and passes every connection on to
its target (a server process's PostgreSQL or Redis), in a thread of its own running an
asyncio loop, so a synchronous test drives it with `set`:

- `pass`: bytes go through as they come;
- `stall` (a black hole): nothing passes either way and nothing closes. What was sent
  waits, as TCP keeps retransmitting it, and is delivered at the heal; a new connection
  is accepted but hears nothing, as behind a middlebox that dropped its packets;
- `refuse`: every open connection is reset and the port is closed, so a new one is
  refused at once (the process behind it died, or a firewall rejects);
- `slow`: each chunk waits `delay` seconds before it is passed on, either way (a
  congested or far link: a request and its answer cost twice the delay).

`set` takes effect at once for every connection, open or new. With `route`, each new
connection asks it where to go (a deployment's proxy that sends a client to a process
whose health check passes: test_web_partitions.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
from collections.abc import Callable
from typing import Literal

Mode = Literal["pass", "stall", "refuse", "slow"]

CHUNK = 65536


class FaultProxy:
    """One link: 127.0.0.1:`port` to `target_host`:`target_port`."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1",
                 route: Callable[[], tuple[str, int]] | None = None) -> None:
        self.target = (target_host, target_port)
        self.route = route
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port: int = sock.getsockname()[1]
        self.mode: Mode = "pass"
        self.delay = 0.0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name=f"fault proxy {self.port}")
        self._server: asyncio.Server | None = None
        self._changed = asyncio.Event()
        self._links: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    # -- driven from the test's thread -----------------------------------------

    def start(self) -> FaultProxy:
        self._thread.start()
        self._call(self._listen())
        return self

    def set(self, mode: Mode, delay: float = 0.5) -> None:
        """Cut, slow or heal the link, for every connection at once."""
        self._call(self._set(mode, delay))

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._call(self._shutdown())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)

    def _call(self, work: object) -> None:
        future = asyncio.run_coroutine_threadsafe(work, self._loop)  # type: ignore[arg-type]
        future.result(10)

    # -- on the proxy's loop -------------------------------------------------------

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._accepted, "127.0.0.1", self.port,
                                                  reuse_address=True)

    async def _set(self, mode: Mode, delay: float) -> None:
        before = self.mode
        self.mode, self.delay = mode, delay
        if mode == "refuse":
            if self._server is not None:
                self._server.close()
                self._server = None
            for writer in list(self._links):
                _reset(writer)
            self._links.clear()
        elif before == "refuse":
            await self._listen()
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()  # every pump waiting on a stall looks again

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in list(self._links):
            _reset(writer)
        for task in list(self._tasks):
            task.cancel()

    async def _accepted(self, reader: asyncio.StreamReader,
                        writer: asyncio.StreamWriter) -> None:
        if self.mode == "refuse":
            _reset(writer)
            return
        self._links.add(writer)
        upstream: asyncio.StreamWriter | None = None
        try:
            await self._gate()  # a black hole: the connection is made only at the heal
            target = self.route() if self.route is not None else self.target
            up_reader, upstream = await asyncio.open_connection(*target)
            self._links.add(upstream)
            both = [asyncio.create_task(self._pump(reader, upstream)),
                    asyncio.create_task(self._pump(up_reader, writer))]
            self._tasks.update(both)
            try:
                await asyncio.wait(both, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in both:
                    task.cancel()
                    self._tasks.discard(task)
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            for end in (writer, upstream):
                if end is not None:
                    self._links.discard(end)
                    with contextlib.suppress(Exception):
                        end.close()

    async def _gate(self) -> None:
        """Wait while the link is stalled; `slow` delays each chunk."""
        while self.mode == "stall":
            await self._changed.wait()
        if self.mode == "slow":
            await asyncio.sleep(self.delay)
        if self.mode == "refuse":
            raise ConnectionResetError("refused")

    async def _pump(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        while True:
            data = await source.read(CHUNK)
            if not data:
                with contextlib.suppress(Exception):
                    sink.write_eof()
                return
            await self._gate()
            sink.write(data)
            await sink.drain()


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with a reset (no goodbye), as a refused or broken link does."""
    sock = writer.get_extra_info("socket")
    with contextlib.suppress(OSError):
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()
