"""A page at a process that is cut off plays on at the other (issue 41), in real Chromium.

Two processes on PostgreSQL and Redis, each with its links through a proxy that can cut
them (clusterproc.cut_processes), and in front of both a proxy of the test's own that
sends every new connection to a process whose `/api/health` says it is well, as a
deployment's proxy does (deploy/nginx.conf: `proxy_next_upstream … http_503`). A person
plays through it in a browser; the game is owned by the process the page reached first.

That process's PostgreSQL is black-holed while a chat line the person sent waits for its
acknowledgement. The cut process notices, lets the game go and closes the page's socket
with 1012; the page reconnects through the front proxy to the other process, which has
taken the game over, and sends the unanswered line again under the same id (net.js). The
line shows once on the page and is stored once (the cut process's store of it, held by
the black hole, is fenced off at the heal); the game then plays to its end.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any

import httpx

from clusterproc import Cluster, needs_cluster
from faultproxy import FaultProxy
from liveplay import action_rows
from test_web_support import (
    DESKTOP,
    Watched,
    chromium,
    create_table,
    fill_with_bots,
    finished,
    needs_chromium,
    pass_now,
    phase_of,
    shot,
    sign_in,
    sit,
    start,
)

pytestmark = [
    needs_chromium,
    *needs_cluster,
]

WAIT = 30000  # ms: generous, for a loaded machine
DAY = 120  # seconds: the person's passes end the day; the timer only outlasts the cut
SERVED_WITHIN = 20.0
"""Seconds from the cut until the page shows its line acknowledged by the other process:
the cut noticed (3/4 of the 2-s lease), the lease taken over, the page's backoff, on a busy
machine. Before issue 41 the page waited for the heal."""


class Front:
    """The deployment's proxy: a new connection goes to the first process whose health
    check passed at the last look (every 0.2 s), the one it went to last while it stays
    well."""

    def __init__(self, cluster: Cluster) -> None:
        self.ports = [int(s.url.rsplit(":", 1)[1]) for s in cluster.servers]
        self.urls = [s.url for s in cluster.servers]
        self.well = [True] * len(self.urls)
        self.chosen = 0
        self.routed: list[int] = []  # the process each connection went to
        self._stop = threading.Event()
        self._watch = threading.Thread(target=self._look, daemon=True, name="front health")
        self.proxy = FaultProxy(self.ports[0], route=self._route)

    def start(self) -> Front:
        self._watch.start()
        self.proxy.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.proxy.port}"

    def _look(self) -> None:
        while not self._stop.is_set():
            for index, url in enumerate(self.urls):
                try:
                    ok = httpx.get(url + "/api/health", timeout=1).status_code == 200
                except httpx.HTTPError:
                    ok = False
                self.well[index] = ok
            self._stop.wait(0.2)

    def _route(self) -> tuple[str, int]:
        if not self.well[self.chosen]:
            self.chosen = next((i for i, ok in enumerate(self.well) if ok), self.chosen)
        self.routed.append(self.chosen)
        return ("127.0.0.1", self.ports[self.chosen])

    def stop(self) -> None:
        self._stop.set()
        self.proxy.stop()
        self._watch.join(5)


def said_once(cluster: Cluster, table_id: str, text: str) -> int:
    return sum(1 for row in action_rows(cluster.truth, table_id) if text in str(row["data"]))


def test_issue_41_a_page_at_a_cut_off_process_is_served_by_the_other_within_seconds(
        cut_processes: Cluster) -> None:
    cluster = cut_processes
    front = Front(cluster).start()
    with chromium() as browser:
        context = browser.new_context(viewport=DESKTOP, locale="en-GB")
        watched = Watched(context)
        page = watched.page
        page.set_default_timeout(WAIT)
        try:
            sign_in(page, front.url, "Ann")
            table_id = create_table(page, 5, day_seconds=DAY)
            sit(page)
            fill_with_bots(page)
            start(page)
            page.locator(".conn.is-bad").wait_for(state="detached")
            assert cluster.health(0)["owned"] == 1, "the game is a's, where the page went"
            sockets = len(watched.sockets)

            # a's PostgreSQL is black-holed; the line the person sends now cannot be stored
            # there, so no acknowledgement comes from a.
            cluster.links[0].database.set("stall")
            cut_at = time.monotonic()
            text = f"said through the cut {secrets.token_hex(3)}"
            page.locator(".chat-row input").fill(text)
            page.keyboard.press("Enter")
            mine = page.locator(".chat-line.is-mine .chat-text", has_text=text)
            mine.wait_for()
            served = time.monotonic() - cut_at
            page.locator(".conn.is-bad").wait_for(state="detached")
            shot(page, "partition-served-again-desktop")
            assert served < SERVED_WITHIN, f"served again after {served:.1f} s"
            assert len(watched.sockets) > sockets, "the page did not reconnect"
            assert 1 in front.routed[-3:], front.routed  # it went to b
            assert cluster.health(1)["owned"] == 1, cluster.health(1)
            print(f"\npage served again by b {served:.1f} s after a's database was cut")

            cluster.links[0].heal()
            deadline = time.monotonic() + 150
            while not finished(page):
                assert time.monotonic() < deadline, f"the game did not end; at {phase_of(page)}"
                pass_now(page)
                page.wait_for_timeout(300)
            page.locator(".endscreen .end-roles tbody tr").first.wait_for()
            assert page.locator(".chat-line .chat-text", has_text=text).count() == 1
            problems = [p for p in watched.problems() if not _expected(p)]
            assert problems == []
        finally:
            context.close()
            front.stop()
    time.sleep(1)  # what the black hole held back has reached the database, or not
    assert said_once(cluster, table_id, text) == 1  # (outside Playwright's event loop)


def _expected(problem: Any) -> bool:
    """What Chromium logs for a socket the cut process refused (HTTP 503 before the
    upgrade) or closed: the page's own handling, not an error of the page."""
    text = str(problem)
    return "WebSocket" in text or "503" in text
