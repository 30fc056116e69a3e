"""What this process cannot reach right now: its database, or (several processes) Redis.

Each is watched by a heartbeat bounded in time (data/heartbeat.py, cluster/bus.py), not
only by the errors a refused link raises: a black-holed one raises none (issue 41).
While one is down the process serves nothing that needs it: every request but
`/api/health` answers 503 with a sentence, a new WebSocket is refused with 503 before
its upgrade, so that a proxy tries another process (api/outage.py), and with several
processes its games go to the others and its connections close with `RECONNECT_CODE`
(cluster/node.py). `/api/health` and the metrics say which is down.
"""

from __future__ import annotations

from typing import Literal, Protocol

Link = Literal["database", "redis"]

RECONNECT_CODE = 1012
"""The WebSocket close code ("service restart") of a connection this process can no longer
serve: reconnect at once, with `last_seq`; through the proxy, another process serves it
(docs/protocol.md)."""

SAID: dict[Link, str] = {
    "database": "this server cannot reach its database right now; try again in a moment",
    "redis": "this server cannot reach the other servers right now; try again in a moment",
}


class Probe(Protocol):
    """A heartbeat's verdict."""

    @property
    def up(self) -> bool: ...


class Outage:
    """The links of this process and whether each answers (SQLite and one process: fewer)."""

    def __init__(self) -> None:
        self.probes: dict[Link, Probe] = {}

    def watch(self, link: Link, probe: Probe) -> None:
        self.probes[link] = probe

    def down(self) -> Link | None:
        """The first link that does not answer, or None while all do."""
        return next((link for link, probe in self.probes.items() if not probe.up), None)

    def state(self, link: Link) -> Literal["ok", "down", "off"]:
        """As `/api/health` says it: `off` when this process has no such link."""
        probe = self.probes.get(link)
        if probe is None:
            return "off"
        return "ok" if probe.up else "down"
