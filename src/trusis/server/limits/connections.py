"""What one address may hold open: its connections, and how long a request may take to come.

uvicorn closes an idle HTTP connection only once it has answered on it (its keep-alive
timer), and a WebSocket counts against `sockets_per_address` only once the app has it. A
connection that sends nothing, or half a request, stayed open for good. Found on loopback:
one script opened 1,100 idle connections in a moment, the server's file descriptors (1,024
under systemd's default) ran out, and the next visitor was turned away; 1,005 of them were
still open 30 s later. Now, in this process's HTTP protocol (uvicorn's httptools one):

- a request must come whole — its head and its body — within `request_seconds` of the
  connection's opening or of the last answer on it; a connection that has sent part of one
  then is answered 408 and closed, an idle one is closed (as the keep-alive timer does).
  That holds for a request answered before its body came (the body then starts the wait
  again), for one pipelined behind another (its body counts from the first's answer), and
  for a WebSocket upgrade whose head websockets refuses (answered 400 and closed: uvicorn
  answered nothing);
- one address holds at most `connections_per_address` connections at once, HTTP and
  WebSocket alike; one more is answered 429 `too_many_connections`, with a sentence, and
  closed at once, before anything is read (a client that had already sent its request may
  then meet a reset before it reads the answer, on some systems: holding refused
  connections open to read them would give a script back the descriptors the cap keeps);
- at start-up the process raises its own limit of open files to the most the system allows
  (`raise_open_files`), so that the descriptors run out after memory does, not at 1,024.

A trusted proxy's own address (`--forwarded-allow-ips`, uvicorn's 127.0.0.1 by default) is
not capped: every visitor comes through it, and the app's per-address limits count each
one behind it; the proxy caps its own (docs/deploy.md, "Limits per player and per address").
With `--forwarded-allow-ips '*'` every peer is a trusted proxy, and none is capped here.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from typing import Any

import orjson
from uvicorn.config import Config
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from trusis.server.errors import LobbyError
from trusis.server.limits.address import address_key
from trusis.server.monitoring import metrics

log = logging.getLogger("trusis.server")
RETRY_SECONDS = 20
"""A refused connection's `Retry-After`: about when an idle one of the address closes."""


class Counts:
    """Open connections by address, in this process (each process counts its own)."""

    def __init__(self) -> None:
        self.open: dict[str, int] = {}

    def take(self, key: str, cap: int) -> bool:
        """Count one more connection of `key`; False (and not counted) at `cap`."""
        held = self.open.get(key, 0)
        if cap and held >= cap:
            return False
        self.open[key] = held + 1
        return True

    def give_back(self, key: str) -> None:
        held = self.open.get(key, 0) - 1
        if held > 0:
            self.open[key] = held
        else:
            self.open.pop(key, None)


def refusal(cap: int) -> bytes:
    """The whole HTTP answer to a connection one too many (the API's shape: `{code, params,
    message}`), written before the request is read: it is all the connection gets."""
    body = orjson.dumps(LobbyError(
        429, "too_many_connections", f"too many connections from your address (at most "
        f"{cap}): close some tabs or programs and try again", limit=cap).body())
    return (b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n"
            b"retry-after: %d\r\nconnection: close\r\ncontent-length: %d\r\n\r\n%b"
            % (RETRY_SECONDS, len(body), body))


def too_slow() -> bytes:
    """The answer to a connection whose request did not come whole in time."""
    body = orjson.dumps(LobbyError(
        408, "request_timeout", "the request took too long to arrive: try again").body())
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            b"connection: close\r\ncontent-length: %d\r\n\r\n%b" % (len(body), body))


REFUSED_UPGRADE = (b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\n"
                   b"content-length: 0\r\n\r\n")
"""The answer to a WebSocket upgrade whose head websockets refuses to read."""


def http_protocol(cap: int, request_seconds: float, trusted: str | list[str],
                  counts: Counts | None = None) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol with these bounds (uvicorn's `http` option); `trusted`:
    the proxies uvicorn trusts (its config's `forwarded_allow_ips`)."""
    proxies = _TrustedHosts(trusted)
    held = counts if counts is not None else Counts()

    class GuardedHttpProtocol(HttpToolsProtocol):
        def __init__(self, config: Config, server_state: ServerState,
                     app_state: dict[str, Any],
                     _loop: asyncio.AbstractEventLoop | None = None) -> None:
            super().__init__(config, server_state, app_state, _loop)
            self.counted: str | None = None
            """The address this connection counts under (None: a trusted proxy's)."""
            self.due: asyncio.TimerHandle | None = None
            self.partial = False
            """Part of the awaited request has come."""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            host = self.client[0] if self.client else ""
            if host not in proxies:
                key = address_key(host)
                if not held.take(key, cap):
                    if (figures := metrics.FIGURES) is not None:
                        figures.rate_limited("connections")
                    transport.write(refusal(cap))
                    transport.close()
                    return
                self.counted = key
            self._await_request()

        def _await_request(self) -> None:
            """The next request must come whole within `request_seconds`."""
            self._stop_waiting()
            if request_seconds > 0:
                self.partial = False
                self.due = self.loop.call_later(request_seconds, self._late)

        def _stop_waiting(self) -> None:
            if self.due is not None:
                self.due.cancel()
                self.due = None

        def _late(self) -> None:
            self.due = None
            if self.transport.is_closing():
                return
            cycle = self.cycle
            answering = cycle is not None and cycle.response_started \
                and not cycle.response_complete
            if self.partial and not answering:  # never a 408 inside an answer under way
                self.transport.write(too_slow())
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.due is not None:
                self.partial = True
            super().data_received(data)

        def on_message_complete(self) -> None:
            if self.cycle is not None and self.cycle.response_complete:
                self._await_request()  # answered before its body ended: wait for the next
            else:
                self._stop_waiting()  # the request has come: the app answers in its own time
            super().on_message_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.transport.is_closing():
                return
            if self.timeout_keep_alive_task is not None:  # idle again: wait for the next
                self._await_request()
            elif self.cycle is not None and self.cycle.more_body and self.due is None:
                self._await_request()  # a pipelined request starts, its body still to come
                self.partial = True

        def handle_websocket_upgrade(self) -> None:
            self._stop_waiting()
            super().handle_websocket_upgrade()
            upgraded = self.transport.get_protocol()
            if upgraded is self:
                return
            if getattr(getattr(upgraded, "conn", None), "handshake_exc", None) is not None \
                    and not getattr(upgraded, "handshake_initiated", True):
                # websockets refused the head (a body, a header over 8 KiB or the 129th) and
                # uvicorn would answer nothing, and never close
                self.transport.write(REFUSED_UPGRADE)
                self.transport.close()
            if self.counted is None:
                return
            key, self.counted = self.counted, None
            count_address = getattr(upgraded, "count_address", None)
            if callable(count_address):  # its frames spend its address's budget (inflow.py)
                count_address(key)
            count_until_lost = getattr(upgraded, "count_until_lost", None)
            if callable(count_until_lost):  # this server's WebSocket protocol (transport.py)
                count_until_lost(lambda: held.give_back(key))
            else:  # another's: the app's `sockets_per_address` still counts it
                held.give_back(key)

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            if self.counted is not None:
                held.give_back(self.counted)
                self.counted = None
            super().connection_lost(exc)

    return GuardedHttpProtocol


def raise_open_files() -> int:
    """Raise this process's soft limit of open files to its hard limit (1,024 and 524,288
    under systemd's defaults), since each connection holds one; the limit it now has."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return soft if soft != resource.RLIM_INFINITY else wanted
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    except (ValueError, OSError) as err:
        log.warning("could not raise the limit of open files from %d: %s", soft, err)
        return soft
    return wanted
