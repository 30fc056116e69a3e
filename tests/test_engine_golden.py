"""The engine's output, pinned: seeded games must give byte-identical results.

The engine is hot code and gets optimised; an optimisation must change nothing a
player, a record or a statistic can see. This plays seeded games — random ones
that also make withdrawals, illusions, chat, leaves, replaces, timeouts and
illegal actions, and games of the heuristic bots through the balance lab's
table — and compares a hash of everything the engine produced with the hashes in
`engine_golden.json`, made from the engine before it was optimised:

- every event as `apply` returned it (seq, code, params, audience, seats), and the
  whole log again at the end of the game (an event's params must not change later);
- every refusal (code and params), and the state untouched by it;
- every seat's view and the spectator's at each phase change and at the end, and
  one seat's view after every action;
- the record, and the state's JSON form at the end.

Regenerate the file (only for a deliberate change of the rules or of the bots):
`python tests/test_engine_golden.py --write`.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from trusis import Action, IllegalAction, Table, legal_actions
from trusis.bots.driver import BotDriver
from trusis.bots.registry import create_bot
from trusis.lab.simulate import NAMES, VoteLog, game_seed
from trusis.rules.events import Event
from trusis.rules.roles import TEAM_OF
from trusis.rules.views import all_views, view

GOLDEN = Path(__file__).with_name("engine_golden.json")
RANDOM_GAMES = [(players, seed) for players in (5, 7, 10, 13, 20, 30) for seed in range(8)]
HEURISTIC_GAMES = [(players, index) for players in (5, 10, 20) for index in range(4)]


def _dump(data: Any) -> bytes:
    # Not sorted: the order of keys is part of what a client receives.
    return json.dumps(data, ensure_ascii=False, default=repr).encode()


def _event(e: Event) -> Any:
    return [e.seq, e.code, e.params, e.audience, list(e.seats)]


class Digest:
    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def add(self, tag: str, data: Any) -> None:
        self.h.update(tag.encode())
        self.h.update(_dump(data))

    def hexdigest(self) -> str:
        return self.h.hexdigest()


def _random_action(state: Any, seat: int, rng: random.Random) -> Action:
    """A random action: mostly legal, sometimes chat, presence, timeout or nonsense."""
    r = rng.random()
    n = state.n
    if r < 0.04:
        return Action("say", seat, text=rng.choice(["hi", "  vote\n3 ", "x" * 3]),
                      to=rng.choice([None, rng.randint(0, n + 1)]))
    if r < 0.05:
        return Action("leave", seat)
    if r < 0.06:
        return Action("replace", seat, by=rng.choice([None, "Zed", " "]))
    if r < 0.065:
        return Action("timeout", rng.choice([None, seat]))
    if r < 0.12:  # deliberately anything: wrong roles, phases, targets, seats
        do = rng.choice(["vote", "illusion", "protect", "extra_vote", "kamikaze", "revive",
                         "sweep", "foresee", "pass", "nope"])
        return Action(do, rng.randint(0, n + 1), rng.choice([None, rng.randint(0, n + 1)]),
                      rng.choice([None, rng.randint(1, n)]))
    options: list[Action] = []
    for la in legal_actions(state, seat):
        if la.do in ("say", "leave"):
            continue
        if la.do == "pass":
            options.append(Action("pass", seat))
            continue
        if la.withdraw:
            options.append(Action(la.do, seat, None))
        for t in la.targets:
            if la.do == "illusion":
                options.append(Action("illusion", seat, t, rng.choice(la.shown)))
            else:
                options.append(Action(la.do, seat, t))
    if not options:
        return Action("pass", seat)
    return rng.choice(options)


def random_game_digest(players: int, seed: int) -> str:
    rng = random.Random(seed * 1009 + players)
    table = Table(NAMES[:players], seed)
    state = table.state
    d = Digest()
    d.add("views", all_views(state))
    steps = 0
    while state.running and steps < 3000:
        steps += 1
        phase = (state.kind, state.number)
        if steps > 1500:
            action = Action("timeout")
        else:
            candidates = [s for s in range(1, players + 1)
                          if state.alive[s] and not state.passed[s]] or [1]
            seat = rng.choice(candidates)
            if rng.random() < 0.05:
                seat = rng.randint(1, players)
            action = _random_action(state, seat, rng)
        before = _dump(state.to_dict())
        outcome = table.submit(action, float(steps))
        if outcome.refusal is not None:
            err: IllegalAction = outcome.refusal
            d.add("refused", [action.to_dict(), err.code, err.params, outcome.index])
            assert _dump(state.to_dict()) == before, "a refusal changed the state"
            continue
        d.add("events", [_event(e) for e in outcome.events])
        d.add("view", view(state, rng.randint(1, players)))
        if (state.kind, state.number) != phase or not state.running:
            d.add("views", all_views(state))
            d.add("spectator", view(state, None))
    d.add("log", [_event(e) for e in table.log])
    d.add("record", table.record.to_dict())
    d.add("state", state.to_dict())
    return d.hexdigest()


def heuristic_game_digest(players: int, index: int) -> str:
    seed = game_seed(0, players, index)
    game = VoteLog(NAMES[:players], seed)
    state = game.state
    seated = {s: create_bot("heuristic", s, seed, "en") for s in range(1, players + 1)}
    driver = BotDriver(game, seated)
    driver.run_game()
    d = Digest()
    d.add("log", [_event(e) for e in game.log])
    d.add("record", game.record.to_dict())
    d.add("state", state.to_dict())
    d.add("views", all_views(state))
    d.add("votes", game.measure().as_dict())
    d.add("teams", [TEAM_OF[r] for r in state.roles[1:]])
    return d.hexdigest()


def digests() -> dict[str, str]:
    out = {f"random-{p}-{s}": random_game_digest(p, s) for p, s in RANDOM_GAMES}
    out.update({f"heuristic-{p}-{i}": heuristic_game_digest(p, i) for p, i in HEURISTIC_GAMES})
    return out


def test_random_games_are_unchanged() -> None:
    golden = json.loads(GOLDEN.read_text())
    for players, seed in RANDOM_GAMES:
        key = f"random-{players}-{seed}"
        assert random_game_digest(players, seed) == golden[key], key


def test_heuristic_games_are_unchanged() -> None:
    golden = json.loads(GOLDEN.read_text())
    for players, index in HEURISTIC_GAMES:
        key = f"heuristic-{players}-{index}"
        assert heuristic_game_digest(players, index) == golden[key], key


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        GOLDEN.write_text(json.dumps(digests(), indent=1, sort_keys=True) + "\n")
    else:
        print(json.dumps(digests(), indent=1, sort_keys=True))
