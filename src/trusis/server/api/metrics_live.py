"""The figures read when Prometheus scrapes: tables, connections, queues, lag, leases.

Apart from metrics.py because it reads the hub, the store and the loop-lag probe, which
themselves count through metrics.py: app.py starts it (`start`), nothing else imports it.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from trusis.server.data.store import Store
from trusis.server.monitoring import metrics
from trusis.server.monitoring.lag import LoopLag
from trusis.server.tables.hub import Hub


class Live(Collector):
    """The figures read at scrape time from the hub, the store and the loop-lag probe.
    Prometheus scrapes through the app itself, on the event loop: nothing here races
    with the rooms it reads."""

    def __init__(self, hub: Hub, store: Store, lag: LoopLag) -> None:
        self.hub = hub
        self.store = store
        self.lag = lag

    def collect(self) -> Iterator[Metric]:
        rooms = list(self.hub.rooms.values())
        tables = GaugeMetricFamily("trusis_tables", "Tables held by this process (owned, "
                                   "with several processes), by status.", labels=["status"])
        for status in ("open", "running"):
            tables.add_metric([status], sum(1 for r in rooms if r.owned and r.status == status))
        yield tables
        clients = [c for r in rooms for c in r.clients]
        connections = GaugeMetricFamily("trusis_connections", "WebSocket connections, by "
                                        "seated player or spectator.", labels=["kind"])
        connections.add_metric(["seat"], sum(1 for c in clients if c.seat is not None))
        connections.add_metric(["spectator"], sum(1 for c in clients if c.seat is None))
        yield connections
        yield GaugeMetricFamily("trusis_players_connected", "Distinct players with at least "
                                "one connection here.", len({c.player_id for c in clients}))
        yield GaugeMetricFamily("trusis_loop_lag_worst_seconds", "The event loop's worst "
                                "delay of the last 10 seconds.", self.lag.worst_ms() / 1000)
        yield GaugeMetricFamily("trusis_commit_queue", "Actions waiting for the next group "
                                "commit.", self.store.queued())
        if (heartbeat := self.store.heartbeat) is not None:
            yield GaugeMetricFamily("trusis_database_up", "1 while PostgreSQL answers this "
                                    "process's heartbeat in time.", 1 if heartbeat.up else 0)
        yield GaugeMetricFamily("trusis_send_queue", "Messages waiting in every client's send "
                                "queue.", sum(len(c.queue) for c in clients))
        yield GaugeMetricFamily("trusis_send_queue_longest", "The longest client send queue "
                                "(a client is cut at 500).",
                                max((len(c.queue) for c in clients), default=0))
        yield GaugeMetricFamily("trusis_send_queue_bytes", "Bytes of the messages waiting in "
                                "every client's send queue.",
                                sum(c.queued_bytes for c in clients))
        yield from self.hub.owner.metric_families()

def start(hub: Hub, store: Store, lag: LoopLag) -> metrics.Figures:
    """Count from now on (at start-up, when metrics are on)."""
    figures = metrics.Figures()
    figures.registry.register(Live(hub, store, lag))
    metrics.FIGURES = figures
    return figures
