"""The browser page's WebSocket handshakes and frames per seat change and per start.

Usage: python bench/page_sockets.py [--against DIR] [--rounds R]

Starts `trusis serve` (a fresh SQLite file) and two pages in Debian's Chromium
(/usr/bin/chromium): Ann hosts a table of 5 and sits; Bob opens it and watches. Then, one
step at a time: Bob sits, stands and sits again; Ann adds a bot, removes it, fills the
table with bots and starts. Chrome's DevTools protocol (`Network.webSocket*` events, a CDP
session of each page) counts, for each step and each page, the WebSocket handshakes and
the frames received and sent, by message type (`ping`/`pong` left out: they come with
silence, not with a step), and the bytes received. With `--against DIR` (a tree holding the
`trusis` package, e.g. `git archive main src | tar -x -C /tmp/main` then DIR=/tmp/main/src)
each round runs the same steps on both trees, one after the other, and prints both: the
page and the server are the tree's own. It prints figures and never asserts them (the
tests pin one socket a page: tests/test_web_one_socket.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from playwright.sync_api import Page, sync_playwright  # noqa: E402

from serverproc import ServerProcess, new_database  # noqa: E402
from test_web_support import create_table, launch, sign_in, sit  # noqa: E402

QUIET = ("ping", "pong")
SETTLE_MS = 600  # a step's frames have all come once nothing came for this long


@dataclass
class Sockets:
    """What one page's CDP session saw of its WebSockets."""

    handshakes: int = 0
    received: Counter[str] = field(default_factory=Counter)
    sent: Counter[str] = field(default_factory=Counter)
    bytes_in: int = 0
    last: float = field(default_factory=time.monotonic)

    def watch(self, page: Page) -> None:
        cdp = page.context.new_cdp_session(page)
        cdp.on("Network.webSocketHandshakeResponseReceived", lambda _e: self._handshake())
        cdp.on("Network.webSocketFrameReceived", lambda e: self._frame(e, self.received))
        cdp.on("Network.webSocketFrameSent", lambda e: self._frame(e, self.sent))
        cdp.send("Network.enable")

    def _handshake(self) -> None:
        self.handshakes += 1
        self.last = time.monotonic()

    def _frame(self, event: dict[str, Any], into: Counter[str]) -> None:
        payload = str(event.get("response", {}).get("payloadData", ""))
        kind = "?"
        with contextlib.suppress(ValueError, AttributeError):
            kind = str(json.loads(payload).get("type", "?"))
        if kind in QUIET:
            return
        into[kind] += 1
        if into is self.received:
            self.bytes_in += len(payload.encode())
        self.last = time.monotonic()

    def copy(self) -> Sockets:
        return Sockets(self.handshakes, Counter(self.received), Counter(self.sent),
                       self.bytes_in)


@dataclass
class Step:
    name: str
    page: str
    handshakes: int
    received: Counter[str]
    sent: Counter[str]
    bytes_in: int

    def line(self) -> str:
        got = ", ".join(f"{k} {n}" for k, n in sorted(self.received.items())) or "-"
        out = ", ".join(f"{k} {n}" for k, n in sorted(self.sent.items())) or "-"
        return (f"  {self.name:<20} {self.page:<4} handshakes {self.handshakes}  "
                f"in {sum(self.received.values()):>2} ({got}; {self.bytes_in} B)  "
                f"out {sum(self.sent.values())} ({out})")


def settle(page: Page, *watched: Sockets) -> None:
    """Wait until neither page has heard or sent a frame for SETTLE_MS."""
    while True:
        page.wait_for_timeout(SETTLE_MS // 3)
        if all(time.monotonic() - w.last >= SETTLE_MS / 1000 for w in watched):
            return


@contextlib.contextmanager
def server_of(tree: Path | None, folder: Path) -> Iterator[ServerProcess]:
    """`trusis serve` of this tree, or of `tree` (its package first on the path)."""
    server = ServerProcess(new_database("sqlite", folder), bot_pace=1.0,  # no bot acts in a step
                           log=folder / "serve.log")
    before = os.environ.get("PYTHONPATH")
    if tree is not None:
        os.environ["PYTHONPATH"] = str(tree)
    try:
        server.start()
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before
    try:
        yield server
    finally:
        server.stop()


def play_steps(base: str, browser: Any) -> list[Step]:
    ann_ctx, bob_ctx = browser.new_context(), browser.new_context()
    ann, bob = ann_ctx.new_page(), bob_ctx.new_page()
    seen = {"Ann": Sockets(), "Bob": Sockets()}
    seen["Ann"].watch(ann)
    seen["Bob"].watch(bob)
    sign_in(ann, base, "Ann")
    table = create_table(ann, 5)
    sit(ann)
    sign_in(bob, base, "Bob")
    steps: list[Step] = []

    def step(name: str, do: Callable[[], None]) -> None:
        before = {who: w.copy() for who, w in seen.items()}
        do()
        settle(ann, *seen.values())
        for who, now in seen.items():
            was = before[who]
            steps.append(Step(name, who, now.handshakes - was.handshakes,
                              now.received - was.received, now.sent - was.sent,
                              now.bytes_in - was.bytes_in))

    def bob_opens() -> None:
        bob.goto(f"{base}/t/{table}")
        bob.locator(".waiting h1").wait_for()

    def bob_stands() -> None:
        bob.locator("[data-focus=stand]").click()
        bob.locator(".wait-seat.is-me").wait_for(state="detached")

    def ann_adds_bot() -> None:
        ann.locator(".wait-seat.is-free").first.locator("[data-focus^=bot-]").click()
        ann.locator(".wait-seat .badge", has_text="bot ·").wait_for()

    def ann_removes_bot() -> None:
        row = ann.locator(".wait-seat", has=ann.locator(".badge", has_text="bot ·"))
        row.locator("[data-focus^=free-]").click()
        row.wait_for(state="detached")

    def ann_fills() -> None:
        ann.locator("[data-focus=fill]").click()
        ann.locator(".btn-start:not([disabled])").wait_for()

    def ann_starts() -> None:
        ann.locator(".btn-start").click()
        for page in (ann, bob):
            page.locator(".role-chip:not([hidden])").wait_for()

    step("Bob opens the table", bob_opens)
    step("Bob sits", lambda: sit(bob))
    step("Bob stands", bob_stands)
    step("Bob sits again", lambda: sit(bob))
    step("Ann adds a bot", ann_adds_bot)
    step("Ann removes the bot", ann_removes_bot)
    step("Ann fills the table", ann_fills)
    step("Ann starts", ann_starts)
    ann_ctx.close()
    bob_ctx.close()
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, metavar="DIR")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    trees: dict[str, Path | None] = {"this": None}
    if args.against:
        trees["against"] = args.against.resolve()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        browser = launch(pw)
        for round_ in range(args.rounds):
            for label, tree in trees.items():
                folder = Path(tmp) / f"{label}-{round_}"
                folder.mkdir()
                with server_of(tree, folder) as server:
                    steps = play_steps(server.url, browser)
                print(f"round {round_ + 1}, {label} ({tree or ROOT / 'src'}):")
                for one in steps:
                    print(one.line())
        browser.close()


if __name__ == "__main__":
    main()
