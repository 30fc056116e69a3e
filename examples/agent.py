#!/usr/bin/env python3
"""A Trusis agent that plays one seat to the end, over the documented protocol only.

It uses nothing of the `trusis` package: the HTTP lobby through the standard
library, and play through one WebSocket (the `websockets` library), exactly as
docs/protocol.md describes them. A starting point for your own bot.

    python examples/agent.py http://127.0.0.1:8000 --demo    # a table of its own, with bots
    python examples/agent.py http://127.0.0.1:8000 --table ID    # sit there as a guest
    python examples/agent.py http://127.0.0.1:8000 --table ID --token=T    # a program's seat
    python examples/agent.py http://127.0.0.1:8000 --demo --games 3    # and play again twice

Its policy is simple and legal by construction: it only ever chooses from the
`legal` list of its view. By day it votes for a seat it knows is a Trusis (when
it is not on their team), else follows the leading vote, else picks someone;
at night it uses its powers once (a sweep or a vision on someone it knows
nothing about, a protection, a Trusis kill vote on someone not of its team, an
extra vote); then it passes. It prints a short log and exits 0 at the end.

A seat token may begin with `-`: give it as `--token=T` (or in `TRUSIS_TOKEN`), which
argparse never mistakes for another option.

A connection that ends is made again, as docs/protocol.md asks: after a short wait
that grows, with `last_seq` (the last stream number it saw), and the command that had
no answer yet sent again with the same id, which the server applies once. That covers
a server restarted, a process of several that lost its database or Redis (close code
1012, or 503 before the upgrade: through the proxy, another process serves the table)
and a network that dropped; only the codes that say not to come back end it.

With `--games N` it plays again (docs/protocol.md, "Play again"): at its own demo
table it proposes the rematch itself; at someone else's it waits for the host's
`rematch` frame and accepts, taking the new seat token the answer gives a program.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

PROTOCOL = 1
NIGHT_POWERS = ("sweep", "foresee", "protect", "vote", "extra_vote")
FINAL_CODES = {4400, 4401, 4403, 4404, 4408, 4410, 4423}
"""Close codes after which connecting again is pointless (docs/protocol.md, "Closing
codes"): every other one, and a connection refused, is tried again."""


class Lobby:
    """The HTTP lobby (docs/protocol.md): JSON in and out, a bearer token."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return json.loads(reply.read() or b"null")
        except urllib.error.HTTPError as err:
            detail = err.read().decode(errors="replace")
            raise SystemExit(f"{method} {path}: {err.code} {detail}") from None

    def guest(self, name: str) -> None:
        self.token = self.call("POST", "/api/guest", {"name": name})["token"]


class Agent:
    """One seat's player: reads its view, chooses from `legal`, one command at a time."""

    def __init__(self, ws_url: str, token: str, rng: random.Random, quiet: bool) -> None:
        self.ws_url = ws_url
        self.token = token
        self.rng = rng
        self.quiet = quiet
        self.view: dict[str, Any] | None = None
        self.seat: int | None = None
        self.names: dict[int, str] = {}
        self.count = 0
        self.seq: int | None = None  # the last stream number seen: `last_seq` when back
        self.pending: str | None = None
        self.sent: dict[str, Any] = {}  # the command waiting for its answer, as sent
        self.used: set[str] = set()  # powers used this phase
        self.phase: tuple[str, int] | None = None
        self.rematch: dict[str, Any] | None = None  # the `rematch` frame, once proposed
        self.wait_rematch = False  # after the end, stay until the rematch is proposed
        self.stale: dict[str, Any] | None = None  # the phase of a stale_phase refusal

    def log(self, text: str) -> None:
        if not self.quiet:
            print(text, flush=True)

    def name(self, seat: int) -> str:
        return self.names.get(seat, f"seat {seat}")

    # -- the connection ---------------------------------------------------

    def play(self, deadline: float) -> dict[str, Any]:
        """Play to the end, connecting again whenever the connection ends (but for a code
        that says not to), with a wait that grows from half a second to ten."""
        tries = 0
        while time.monotonic() < deadline:
            try:
                view = self.connected(deadline)
                if view is not None:
                    return view
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd is not None else 1006
                reason = closed.rcvd.reason if closed.rcvd is not None else ""
                if code in FINAL_CODES:
                    raise SystemExit(f"the server closed the connection: {code} {reason}") \
                        from None
                self.log(f"  connection closed ({code} {reason}); connecting again")
            except (OSError, InvalidHandshake) as err:  # refused, or 503 before the upgrade
                self.log(f"  cannot connect ({err}); trying again")
            tries += 1
            time.sleep(min(10.0, 0.5 * 2 ** min(tries - 1, 5)) * self.rng.uniform(0.5, 1.0))
        raise SystemExit("the game did not end in time")

    def connected(self, deadline: float) -> dict[str, Any] | None:
        """One connection: the finished game's view, or None when the time is up."""
        with connect(self.ws_url, additional_headers={"Authorization": f"Bearer {self.token}"},
                     open_timeout=15) as ws:
            ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL, "last_seq": self.seq}))
            if self.pending is not None:  # unanswered: the same id again, applied once
                ws.send(json.dumps({"type": "act", "id": self.pending,
                                    "action": self.sent[self.pending]}))
            while time.monotonic() < deadline:
                try:
                    message = json.loads(ws.recv(timeout=1.0))
                except TimeoutError:
                    continue
                self.take(message)
                view = self.view
                if view is not None and view["status"] == "finished" and self.pending is None \
                        and (self.rematch is not None or not self.wait_rematch):
                    return view
                command = self.decide()
                if command is not None:
                    self.count += 1
                    self.pending = f"agent-{self.count}"
                    # The phase it was chosen in: the server refuses it as stale_phase
                    # if that phase is over when it arrives (docs/protocol.md).
                    command["phase"] = dict(self.view["phase"]) if self.view else None
                    self.sent = {self.pending: command}
                    ws.send(json.dumps({"type": "act", "id": self.pending, "action": command}))
        return None

    def take(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "welcome":
            self.seat = message["seat"]
            self.log(f"connected as {message['you']['name']}, seat {self.seat}")
            if self.seat is None:
                raise SystemExit("this identity has no seat at the table: it can only watch")
        elif kind in ("snapshot", "events"):
            self.view = message["view"]
            self.seq = message["seq"]
            self.names = {p["seat"]: p["name"] for p in self.view["players"]}
            if kind == "snapshot":
                self.log(f"my role: {self.view.get('role')} (team {self.view.get('team')})")
            for event in message.get("events", []) if kind == "events" else []:
                self.narrate(event)
        elif kind in ("ack", "refused") and message["id"] == self.pending:
            self.pending = None
            if kind == "refused" and message["code"] == "stale_phase":
                self.stale = message["params"]  # wait for the new phase's view
            elif kind == "refused" and message["code"] == "unavailable":
                self.log("  not applied (the server was being replaced): choosing again")
                self.used.clear()  # what was applied shows in the view's `choices`
            elif kind == "refused":
                self.log(f"  refused: {message['message']}")
                self.used.add("*")  # something is off: just pass from now on this phase
        elif kind == "rematch":  # the host proposes to play again, at a new table
            self.rematch = message
        if kind in ("welcome", "table") and message["table"].get("rematch") and not self.rematch:
            self.rematch = {"type": "rematch", "table": message["table"]["rematch"]}  # proposed
            # before this connection: the table's facts name it too
        elif kind == "error":
            self.log(f"  error from the server: {message}")

    def narrate(self, event: dict[str, Any]) -> None:
        code, params = event["code"], event["params"]
        if code == "phase_started":
            self.log(f"-- {params['kind']} {params['number']}")
        elif code == "vote_killed":
            self.log(f"  the vote kills {self.name(params['seat'])}")
        elif code == "died":
            self.log(f"  {self.name(params['seat'])} died")
        elif code == "revived":
            self.log(f"  {self.name(params['seat'])} is back")
        elif code in ("sweep_result", "foresee_result", "gravekeeper_result",
                      "gravedigger_result"):
            fact = params.get("role") or params.get("result")
            self.log(f"  I learn: {self.name(params['target'])} is {fact}")
        elif code == "game_over":
            self.log(f"game over: {params['winner']} wins")

    # -- the policy -------------------------------------------------------

    def decide(self) -> dict[str, Any] | None:
        view = self.view
        if view is None or self.pending is not None or self.seat is None:
            return None
        if view["status"] != "running" or view["phase"] == self.stale:
            return None
        me = view["players"][self.seat - 1]
        if not me["alive"] or me["passed"] or me["left"]:
            return None
        phase = (view["phase"]["kind"], view["phase"]["number"])
        if phase != self.phase:
            self.phase, self.used = phase, set()
        legal = {entry["do"]: entry for entry in view["legal"]}
        if "*" not in self.used:
            choice = self.day(view, legal) if phase[0] == "day" else self.night(view, legal)
            if choice is not None:
                self.used.add(choice["do"])
                target = choice.get("target")
                self.log(f"  {choice['do']} {self.name(target) if target else ''}".rstrip())
                return choice
        return {"do": "pass"} if "pass" in legal else None

    def suspects(self, view: dict[str, Any]) -> list[int]:
        """Seats this seat knows are Trusis, when it is not on their team."""
        if view.get("team") == "TRUSIS":
            return []
        return [int(s) for s, fact in view.get("known", {}).items()
                if fact == "TRUSIS" and int(s) != self.seat]

    def allies(self, view: dict[str, Any]) -> set[int]:
        """Seats this seat knows are of the Trusis team, when it is on it."""
        if view.get("team") != "TRUSIS":
            return set()
        return {int(s) for s, fact in view.get("known", {}).items() if fact == "TRUSIS"}

    def day(self, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any] | None:
        entry = legal.get("vote")
        if entry is None or "vote" in self.used or "vote" in view.get("choices", {}):
            return None
        targets = [t for t in entry.get("targets", []) if t not in self.allies(view)]
        if not targets:
            return None
        known = [t for t in self.suspects(view) if t in targets]
        counts = {int(s): n for s, n in view.get("vote_counts", {}).items() if int(s) in targets}
        if known:
            target = known[0]
        elif counts:
            target = max(counts, key=lambda s: (counts[s], -s))  # follow the leading vote
        else:
            target = self.rng.choice(targets)
        return {"do": "vote", "target": target}

    def night(self, view: dict[str, Any], legal: dict[str, Any]) -> dict[str, Any] | None:
        known = {int(s) for s in view.get("known", {})}
        for power in NIGHT_POWERS:
            entry = legal.get(power)
            if entry is None or power in self.used or power in view.get("choices", {}):
                continue
            targets = list(entry.get("targets", []))
            if power in ("sweep", "foresee"):
                targets = [t for t in targets if t not in known] or targets
            elif power == "vote":  # a Trusis's kill vote: never a known ally
                targets = [t for t in targets if t not in self.allies(view)]
            elif power == "protect" and self.seat in targets and self.rng.random() < 0.5:
                targets = [self.seat]
            if targets:
                return {"do": power, "target": self.rng.choice(targets)}
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description="Play one seat of Trusis over the protocol.")
    parser.add_argument("url", help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--demo", action="store_true",
                        help="create a table of its own with bots, start it, and play")
    parser.add_argument("--table", help="the table to play at (its id)")
    parser.add_argument("--token", default=os.environ.get("TRUSIS_TOKEN"),
                        help="a seat token from the table's host (a program seat); write "
                             "--token=T, since a token may begin with '-' (or set "
                             "TRUSIS_TOKEN)")
    parser.add_argument("--name", default="Agent", help="the guest name to sign in with")
    parser.add_argument("--seats", type=int, default=5, help="--demo: the table's size")
    parser.add_argument("--seed", type=int, help="the agent's own random choices")
    parser.add_argument("--max-seconds", type=float, default=900.0)
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--games", type=int, default=1,
                        help="play again this many times in all (accepting each rematch)")
    args = parser.parse_args()
    if not args.demo and not args.table:
        parser.error("give --table ID (and --token for a program seat), or --demo")
    lobby = Lobby(args.url, args.token)
    if lobby.token is None:
        lobby.guest(args.name)
    table_id = args.table
    if args.demo:
        table = lobby.call("POST", "/api/tables", {"name": f"{args.name}'s demo",
                                                   "seats": args.seats, "day_seconds": 60,
                                                   "night_seconds": 30})
        table_id = table["id"]
        lobby.call("POST", f"/api/tables/{table_id}/seats", {})
        for _ in range(args.seats - 1):
            lobby.call("POST", f"/api/tables/{table_id}/bots", {})
        lobby.call("POST", f"/api/tables/{table_id}/start")
        print(f"demo table {table_id}: {args.seats} seats, the agent and bots", flush=True)
    elif not args.token:  # a guest takes a free seat and waits for the host to start
        lobby.call("POST", f"/api/tables/{table_id}/seats", {})
    parts = urlsplit(args.url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    rng = random.Random(args.seed)
    for game in range(1, args.games + 1):
        agent = Agent(f"{scheme}://{parts.netloc}/ws/tables/{table_id}", lobby.token or "",
                      rng, args.quiet)
        agent.wait_rematch = game < args.games and not args.demo
        view = agent.play(time.monotonic() + args.max_seconds)
        mine = agent.seat in view.get("winners", [])
        print(f"the end: {view.get('winner')} wins; seat {agent.seat} "
              f"({view.get('role')}) {'won' if mine else 'did not win'}", flush=True)
        if game == args.games:
            break
        if args.demo:  # its own table: propose, and start (the bots kept their seats)
            table_id = lobby.call("POST", f"/api/tables/{table_id}/rematch")["table"]["id"]
            lobby.call("POST", f"/api/tables/{table_id}/start")
        else:  # one request takes the seat kept for it; a program gets its new seat token
            assert agent.rematch is not None
            table_id = agent.rematch["table"]
            query = f"?invite={agent.rematch['invite']}" if agent.rematch.get("invite") else ""
            answer = lobby.call("POST", f"/api/tables/{table_id}/rematch/accept{query}")
            lobby.token = answer.get("token", lobby.token)
        print(f"rematch at table {table_id}", flush=True)


if __name__ == "__main__":
    main()
