"""The `expert` bot (issue 40): a belief over deals, choices played ahead, its seat only."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

import orjson

from trusis.bots import Bot, BotDriver, available_kinds, create_bot, play_game
from trusis.bots.base import View
from trusis.bots.deliberate import NormalBot
from trusis.bots.expert import ExpertBot
from trusis.bots.worlds import position, sample
from trusis.rules.actions import Action
from trusis.rules.roles import TEAM_OF, TRUSIS
from trusis.rules.views import view
from trusis.table.table import Table

NAMES = ["Ann", "Basil", "Clara", "Dario", "Elsa", "Felix", "Greta", "Hugo", "Ines", "Jon"]
# Seat 1 is the expert, a plain Human. B swaps the hidden roles of seats 3 and 7.
DEAL_A = ["HUMAN", "HUMAN", "TRUSIS", "SWEEPER", "BUTCHER", "PRIEST", "HUMAN", "TRUSIS",
          "GRAVEKEEPER", "ILLUSIONIST"]
DEAL_B = ["HUMAN", "HUMAN", "HUMAN", "SWEEPER", "BUTCHER", "PRIEST", "TRUSIS", "TRUSIS",
          "GRAVEKEEPER", "ILLUSIONIST"]


def test_expert_is_a_registered_kind() -> None:
    assert "expert" in available_kinds()
    assert type(create_bot("expert", 1)) is ExpertBot
    text = (Path(__file__).parents[1] / "pyproject.toml").read_text("utf-8")
    assert 'expert = "trusis.bots.expert:ExpertBot"' in text


def test_worlds_agree_with_every_fact_the_seat_holds() -> None:
    """A TRUSIS knows its fellows (R7): every world deals them TRUSIS, no other seat."""
    game = Table(NAMES, 0, deal=DEAL_A)
    bot = ExpertBot(3, 0)
    seen = view(game.state, 3)
    bot.observe(seen, [])
    worlds = sample(seen, bot.beliefs, random.Random(1), 12, set(range(1, 11)))
    assert worlds and abs(sum(w.weight for w in worlds) - 1.0) < 1e-9
    for world in worlds:
        assert [s for s, r in enumerate(world.roles) if r == TRUSIS] == [3, 8]
        assert sorted(world.roles[1:]) == sorted(DEAL_A)


def test_a_world_is_a_position_the_engine_plays_on() -> None:
    game = Table(NAMES, 0, deal=DEAL_A)
    game.play(Action("vote", 2, 5))
    seen = view(game.state, 1)
    state = position(seen, ["", *DEAL_B])
    assert state.votes == {2: 5} and state.roles[7] == TRUSIS and state.known[7][8] == TRUSIS
    assert view(state, 1)["votes"] == seen["votes"]


class Scripted(Bot):
    """The same public play whatever its role: by day a fixed vote and a line, by night a
    pass — so two deals play alike for a seat that cannot tell them apart."""

    kind: ClassVar[str] = "scripted"

    def act(self) -> Action | None:
        phase = self.view["phase"]
        if phase["kind"] == "night" or not self.can("vote"):
            return self.pass_()
        if self.view.get("choices", {}).get("vote"):
            return self.pass_()
        targets = list(self.legal("vote")["targets"])  # type: ignore[index]
        return Action("vote", self.seat, targets[(self.seat + phase["number"]) % len(targets)])


class Recording(ExpertBot):
    """The expert, with every (view, events) it got and every action it chose."""

    def __init__(self, seat: int, seed: int = 0, lang: str = "en") -> None:
        super().__init__(seat, seed, lang)
        self.log: list[tuple[bytes, Any, int]] = []
        self._input = b""

    def observe(self, view: View, events: Any) -> None:
        def plain(data: Any) -> Any:
            if isinstance(data, dict):
                return {k: plain(v) for k, v in data.items() if k not in ("seq", "t")}
            if isinstance(data, list | tuple):
                return [plain(v) for v in data]
            return data

        self._input = orjson.dumps(plain([dict(view), [dict(e) for e in events]]),
                                   option=orjson.OPT_SORT_KEYS)
        super().observe(view, events)

    def act(self) -> Action | None:
        action = super().act()
        self.log.append((self._input, action, self.searches))
        return action


def _play(deal: list[str]) -> Recording:
    game = Table(NAMES, 5, deal=deal)
    expert = Recording(1, 5)
    bots: dict[int, Bot] = {1: expert, **{s: Scripted(s, 5) for s in range(2, 11)}}
    play_game(game, bots)
    return expert


def test_the_expert_sees_only_its_seat_two_hidden_deals_give_the_same_decisions() -> None:
    """Two games that differ only in roles the expert's seat cannot know (seats 3 and 7
    swap HUMAN and TRUSIS) give it the same inputs, so the same decisions — its worlds
    and lookahead included — until its inputs differ (when it learns something)."""
    a, b = _play(DEAL_A), _play(DEAL_B)
    same, searched = 0, 0
    for (seen_a, act_a, n_a), (seen_b, act_b, n_b) in zip(a.log, b.log, strict=False):
        if seen_a != seen_b:
            break
        assert act_a == act_b and n_a == n_b
        same, searched = same + 1, n_a
    assert same >= 5 and searched > 0  # it looked ahead while it could not tell them apart


def test_same_seed_same_game_with_experts_on_both_sides() -> None:
    def play(seed: int) -> dict[str, Any]:
        game = Table(NAMES, seed)
        play_game(game, {s: create_bot("expert", s, seed) for s in range(1, 11)})
        return game.record.to_dict()

    assert play(3) == play(3)


def test_a_degraded_expert_plays_exactly_as_normal() -> None:
    """`think = False` (a busy server): no search, and the very moves of `normal`."""
    def play(expert: bool) -> dict[str, Any]:
        game = Table(NAMES, 8)
        bots: dict[int, Bot] = {}
        for s in range(1, 11):
            bot = ExpertBot(s, 8) if expert else NormalBot(s, 8)
            if isinstance(bot, ExpertBot):
                bot.think = False  # its moves draw from `normal`'s stream: nothing to set
            bots[s] = bot
        driver = BotDriver(game, bots)
        driver.run_game()
        assert not driver.refused
        if expert:
            assert all(isinstance(b, ExpertBot) and b.searches == 0 for b in bots.values())
        return game.record.to_dict()

    assert play(True) == play(False)


def test_experts_play_whole_games_without_refusals_and_do_search() -> None:
    searched = 0
    for seed in range(3):
        game = Table(NAMES, seed)
        roles = game.state.roles
        bots: dict[int, Bot] = {
            s: create_bot("expert" if TEAM_OF[roles[s]] == ("HUMAN", "TRUSIS")[seed % 2]
                          else "normal", s, seed) for s in range(1, 11)}
        driver = play_game(game, bots)
        assert not driver.refused and not game.state.running
        searched += sum(b.searches for b in bots.values() if isinstance(b, ExpertBot))
    assert searched > 0


class NightLog(ExpertBot):
    """The expert, with its searched night choices and every night choice it made."""

    def __init__(self, seat: int, seed: int = 0, lang: str = "en") -> None:
        super().__init__(seat, seed, lang)
        self.searched: dict[tuple[str, int], int] = {}
        self.made: dict[tuple[str, int], int] = {}

    def _search(self, candidates: list[Action], phases: int) -> Action | None:
        choice = super()._search(candidates, phases)
        if self._phase[0] == "night" and choice is not None and choice.target:
            self.searched[self._phase] = choice.target
        return choice

    def act(self) -> Action | None:
        action = super().act()
        if self._phase[0] == "night" and action is not None and action.do in ("vote",
                                                                               "protect"):
            self.made[self._phase] = action.target or 0
        return action


def test_a_searched_night_choice_stands_for_the_night() -> None:
    """The TRUSIS kill and the Priest's protection the expert searched are its last word
    that night: the `normal` rule it falls back to on later turns must not undo them."""
    nights = 0
    for seed in range(4):
        game = Table(NAMES, seed)
        bots: dict[int, Bot] = {s: NightLog(s, seed) for s in range(1, 11)}
        play_game(game, bots)
        for bot in bots.values():
            assert isinstance(bot, NightLog)
            for phase, target in bot.searched.items():
                assert bot.made.get(phase) == target, (seed, bot.seat, phase)
                nights += 1
    assert nights > 0


def test_a_trusis_expert_reads_the_table_as_a_plain_human_would() -> None:
    """The `public` belief of a Trusis-team expert holds no private fact: not its role,
    not its partners (R7), not a whisper — only what every seat saw."""
    game = Table(NAMES, 0, deal=DEAL_A)
    bots: dict[int, Bot] = {s: create_bot("expert", s, 0) for s in range(1, 11)}
    driver = BotDriver(game, bots)
    driver.run_phase()
    driver.run_phase()
    trusis = bots[3]
    assert isinstance(trusis, ExpertBot) and trusis.beliefs.role == TRUSIS
    assert trusis.beliefs.known.get(8) == TRUSIS  # it knows its partner ...
    public = trusis.public
    assert public.role == "HUMAN" and public.known == {}  # ... its public reading does not
    assert all(not private for _d, _s, _c, private in public.claims)
    assert public.p_trusis(8) < 1.0


def test_a_trusis_expert_kills_a_trusted_priest_first() -> None:
    """A trusted Priest protects another claimer, never itself: the kill on the claimer it
    guards may fail, the kill on it cannot. So a Trusis expert's first night takes the
    Priest who said what it is (the `normal` Trusis takes any claimer: docs/bots.md)."""
    nights = 0
    for seed in range(6):
        game = Table(NAMES, seed, deal=DEAL_A)
        bots: dict[int, Bot] = {s: create_bot("expert" if TEAM_OF[DEAL_A[s - 1]] == "TRUSIS"
                                              else "normal", s, seed) for s in range(1, 11)}
        driver = BotDriver(game, bots)
        driver.run_phase()  # Day 1: the Sweeper (4), the Priest (6), the Gravekeeper (9) claim
        state = game.state
        if not state.running or not state.alive[6] or state.kind != "night":
            continue
        seen = state.stream_position(3)
        driver.run_phase()
        kills = [e["params"]["target"] for e in game.events_after(3, seen)
                 if e["code"] == "trusis_vote"]
        assert kills and kills[0] == 6, (seed, kills)
        nights += 1
    assert nights >= 3


def test_an_expert_knows_a_claimer_the_trusis_killed_told_the_truth() -> None:
    """The Sweeper says so on Day 1 and the Trusis kill it that night; on Day 2 a TRUSIS
    "is the Sweeper" (the `normal` Trusis bluff, which counts living claimants only). A
    seat killed at night was no TRUSIS, so a Human expert holds the new claimant a liar,
    where a `normal` bot only sees two claims of one role (both contested)."""
    game = Table(NAMES, 0, deal=DEAL_A)
    plays = [Action("say", 4, text="I am the Sweeper."),
             *[Action("pass", s) for s in range(1, 11)],  # Day 1: no vote, nobody dies
             Action("vote", 3, 4), Action("vote", 8, 4),  # Night 1: the TRUSIS kill it
             *[Action("pass", s) for s in range(1, 11)],
             Action("say", 3, text="I am the Sweeper.")]
    for action in plays:
        game.play(action)
    assert not game.state.alive[4] and game.state.number == 2
    expert, plain = ExpertBot(1, 0), NormalBot(2, 0)
    for bot in (expert, plain):
        bot.observe(view(game.state, bot.seat), game.events_after(bot.seat, 0))
        bot.beliefs.refresh()
    assert 3 in expert.beliefs.liars and 3 not in plain.beliefs.liars
    assert 3 in plain.beliefs.contested
    assert expert.beliefs.p_trusis(3) > plain.beliefs.p_trusis(3)
