"""The bot interface, the driver and the registry (trusis.bots base/driver/registry)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from importlib.metadata import EntryPoint
from typing import Any, ClassVar

import pytest

from trusis import Action, GameState, Table, replay, view
from trusis.bots import (
    Bot,
    BotDriver,
    UnknownBot,
    available_kinds,
    create_bot,
    play_game,
    registry,
    run_phase,
)
from trusis.bots import driver as driver_module
from trusis.bots.random_bot import RandomBot

NAMES = [f"P{i}" for i in range(1, 11)]


class SpyBot(RandomBot):
    """A random bot that keeps every argument the driver gave it."""

    kind: ClassVar[str] = "spy"

    def __init__(self, seat: int, seed: int = 0, lang: str = "en") -> None:
        super().__init__(seat, seed, lang)
        self.calls: list[tuple[Any, Any]] = []

    def observe(self, view: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
        self.calls.append((view, list(events)))
        super().observe(view, events)


def test_bots_only_ever_receive_their_own_view_and_visible_events(
        monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[int | None, dict[str, Any]]] = []

    def spy_view(state: GameState, seat: int | None) -> dict[str, Any]:
        result = view(state, seat)
        made.append((seat, result))
        return result

    monkeypatch.setattr(driver_module, "view", spy_view)
    game = Table(NAMES, seed=4)
    bots = {s: SpyBot(s, 4) for s in range(1, 11)}
    play_game(game, bots)
    by_id = {id(v): seat for seat, v in made}
    for seat, bot in bots.items():
        assert bot.calls
        for seen, events in bot.calls:
            assert not isinstance(seen, GameState)
            assert by_id[id(seen)] == seat  # exactly what view(state, own seat) built
            assert seen["seat"] == seat
            for event in events:
                assert set(event) == {"seq", "code", "params"}
                if event["code"] in ("sweep_result", "foresee_result", "choice_made",
                                     "trusis_vote", "gravekeeper_result"):
                    assert seen["role"] != "HUMAN"


def test_events_reach_only_their_audience() -> None:
    """A whisper between two bots is seen by them and by nobody else."""

    class Whisperer(RandomBot):
        def act(self) -> Action | None:
            if self.seat == 1 and self.view["phase"]["number"] == 1 and not self.said:
                self.said = True
                return self.say("psst", to=2)
            return super().act()

        said = False

    game = Table(NAMES, seed=1)
    bots: dict[int, Bot] = {s: Whisperer(s, 1) for s in range(1, 11)}
    spies = {s: SpyBot(s, 1) for s in (3,)}
    bots.update(spies)
    driver = BotDriver(game, bots)
    driver.run_phase()
    driver.finish()
    texts = [e["params"].get("text") for _v, events in spies[3].calls for e in events]
    assert "psst" not in texts


def test_refused_action_is_logged_and_the_seat_passes(caplog: pytest.LogCaptureFixture) -> None:
    class Cheater(Bot):
        def act(self) -> Action | None:
            return Action("sweep", self.seat, target=self.seat)  # never legal for a Human

    game = Table(NAMES, seed=0)
    bots: dict[int, Bot] = {s: RandomBot(s) for s in range(1, 11)}
    bots[1] = Cheater(1)
    with caplog.at_level(logging.DEBUG, logger="trusis.bots"):
        driver = run_phase(game, bots)
    assert driver.refused and driver.refused[0].seat == 1
    assert "refused" in caplog.text
    assert game.state.kind == "night"  # the phase still ended
    # The record keeps the refused action too (statistics count refusals); replaying
    # it refuses it again, and changes nothing.
    again = replay(game.record)
    assert [r.index for r in again.refused] == [0]
    assert again.state.to_dict() == game.state.to_dict()


def test_acting_for_another_seat_or_timing_out_is_refused() -> None:
    class Impostor(Bot):
        def act(self) -> Action | None:
            return Action("timeout") if self.seat == 1 else Action("vote", 1, 3)

    game = Table(NAMES, seed=0)
    driver = run_phase(game, {s: Impostor(s) for s in range(1, 11)})
    assert len(driver.refused) == 10
    assert all(a.do != "timeout" for a in game.record.actions)


def test_cap_passes_a_bot_that_never_stops() -> None:
    class Chatterbox(Bot):
        def act(self) -> Action | None:
            return self.say("hello")

    game = Table(NAMES, seed=0)
    driver = run_phase(game, {s: Chatterbox(s) for s in range(1, 11)}, max_actions=5)
    assert len(driver.capped) == 10
    assert game.state.kind == "night"


def test_waiting_bots_are_passed_once_the_table_settles() -> None:
    class Waiter(Bot):
        def act(self) -> Action | None:
            return None

    game = Table(NAMES, seed=0)
    driver = run_phase(game, {s: Waiter(s) for s in range(1, 11)})
    assert game.state.kind == "night"
    assert driver.actions == 10  # one pass each, nothing else


def test_driver_stops_when_only_people_are_left_to_act() -> None:
    game = Table(NAMES, seed=0)
    driver = run_phase(game, {s: RandomBot(s) for s in range(2, 11)})
    assert game.state.kind == "day" and not game.state.passed[1]
    assert all(game.state.passed[s] for s in range(2, 11))
    game.play(Action("pass", 1))
    assert game.state.kind == "night"
    assert driver.refused == []


def test_react_never_passes_a_bot_and_settle_waits_for_the_people() -> None:
    game = Table(NAMES, seed=0)
    driver = BotDriver(game, {s: create_bot("heuristic", s, 0) for s in range(2, 11)})
    for _ in range(4):
        assert driver.react(rounds=1) is False
    state = game.state
    assert not any(state.passed[s] for s in range(1, 11))  # waiting bots were not passed
    assert driver.people_done() is False
    assert driver.settle() is False and state.kind == "day"  # seat 1 is still deciding
    game.play(Action("pass", 1))  # the driver reads it from the table
    assert driver.people_done() is True
    assert driver.settle() is True and state.kind == "night"
    assert driver.refused == []


def test_react_stops_early_once_a_round_changes_nothing() -> None:
    class Waiter(Bot):
        def act(self) -> Action | None:
            return None

    game = Table(NAMES, seed=0)
    driver = BotDriver(game, {s: Waiter(s) for s in range(2, 11)})
    driver.react(rounds=50)
    assert driver.actions == 0 and game.state.kind == "day"


@pytest.mark.parametrize("kind", ["random", "heuristic"])
def test_same_seed_same_game(kind: str) -> None:
    def play(seed: int) -> dict[str, Any]:
        game = Table([f"P{i}" for i in range(1, 15)], seed=seed)
        play_game(game, {s: create_bot(kind, s, seed) for s in range(1, 15)})
        return game.record.to_dict()

    assert play(11) == play(11)
    assert play(11) != play(12)


def test_registry_knows_the_builtins_and_explains_unknown_kinds() -> None:
    assert {"random", "heuristic"} <= set(available_kinds())
    with pytest.raises(UnknownBot) as err:
        create_bot("nope", 1)
    assert "nope" in str(err.value) and "heuristic" in str(err.value) and "random" in str(err.value)


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="language"):
        create_bot("random", 1, 0, "de")


class PluginBot(RandomBot):
    kind: ClassVar[str] = "plugged"


def test_plugins_load_from_entry_points(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = EntryPoint(name="plugged", value=f"{__name__}:PluginBot", group=registry.GROUP)

    def entry_points(group: str) -> list[EntryPoint]:
        return [fake] if group == registry.GROUP else []

    monkeypatch.setattr(registry, "entry_points", entry_points)
    assert "plugged" in available_kinds()
    bot = create_bot("plugged", 3, 9, "it")
    assert isinstance(bot, PluginBot) and bot.seat == 3 and bot.lang == "it"
    game = Table(NAMES, seed=2)
    play_game(game, {s: create_bot("plugged", s, 2) for s in range(1, 11)})
    assert not game.state.running


def test_plugin_that_is_not_a_bot_is_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = EntryPoint(name="broken", value=f"{__name__}:not_a_bot", group=registry.GROUP)
    monkeypatch.setattr(registry, "entry_points",
                        lambda group: [fake] if group == registry.GROUP else [])
    with pytest.raises(TypeError, match="not a trusis Bot"):
        create_bot("broken", 1)


def not_a_bot(seat: int, seed: int, lang: str) -> object:
    return object()


def test_events_are_numbered_in_the_seats_own_stream() -> None:
    game = Table(NAMES, seed=5)
    bots = {s: SpyBot(s, 5) for s in range(1, 11)}
    driver = play_game(game, bots)
    driver.finish()
    for bot in bots.values():
        numbers = [e["seq"] for _v, events in bot.calls for e in events]
        assert numbers == list(range(1, len(numbers) + 1))
        assert bot.calls[-1][0]["seq"] == numbers[-1]
