"""The `heuristic` bot: plays every role with intent, from its own view only.

Each turn it folds its view and new events into `Beliefs`, then does the one
thing it most wants to change: say something it has to say (a Sweeper's
finding, a Gravekeeper's news, a whisper to allies), then set its vote or
power on the seat `tactics` ranks best. When its choices already are what it
wants it waits (returns None), so it can still react to later votes; the
driver passes it once the table settles. Chance (tie-breaks, how chatty it
is) comes from the bot's own seeded generator, so games replay identically.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from trusis.bots import chat, tactics
from trusis.bots.base import Bot, EventData, View
from trusis.bots.beliefs import Beliefs
from trusis.rules.actions import Action
from trusis.rules.roles import (
    BLACK_KNIGHT,
    CASTAWAY,
    GRAVEDIGGER,
    ILLUSIONIST,
    KAMIKAZE,
    ORACLE,
    PRIEST,
    SWEEPER,
    TEAM_HUMAN,
    TRUSIS,
    WHITE_KNIGHT,
    WISE_WOMAN,
)

CHATTINESS = 0.12  # chance of a casual remark (suspicion, greeting) at the start of a day
MAX_DAY_TURNS = 6  # turns after which a bot that has voted stops changing its vote
MAX_WHISPERS = 3  # whispers per phase, so that talk never crowds out play
FIRST_VOTE = 0.35  # chance that a bot without evidence votes on its first day turn; twice
# that on the second, and always from the third: a hunch waits, but not forever


class HeuristicBot(Bot):
    """A bot that keeps beliefs about every seat and plays its role's strengths."""

    kind: ClassVar[str] = "heuristic"
    KEEP_CLEAR: ClassVar[float] = 0.5  # chance that a clear sweep or grave result stays unsaid

    def __init__(self, seat: int, seed: int = 0, lang: str = "en") -> None:
        super().__init__(seat, seed, lang)
        self.beliefs = Beliefs(seat)
        self._phase: tuple[str, int] = ("", 0)
        self._jitter: dict[int, float] = {}
        self._turn = 0
        self._quiet = False  # no vote moved since this bot's last turn
        self._news = True  # events arrived with this turn's view
        self._waited = False  # the last turn returned None
        self._whispers = 0
        self._announced: set[tuple[str, int]] = set()
        self._told: set[tuple[int, int, str]] = set()  # (to, about, kind) whispers sent

    def observe(self, view: View, events: Sequence[EventData]) -> None:
        super().observe(view, events)
        self.beliefs.update(view, events)
        phase = (view["phase"]["kind"], view["phase"]["number"])
        if phase != self._phase:
            self._phase = phase
            self._turn = 0
            self._whispers = 0
            # Small per-phase noise: breaks ties differently from phase to phase and bot
            # to bot, without ever outweighing real evidence.
            self._jitter = {p["seat"]: self.rng.random() * 0.05 for p in view["players"]}
            self.beliefs.memo.clear()  # scores carry the jitter
        self._turn += 1
        self._news = bool(events)
        self._quiet = self._turn > 1 and not any(
            e["code"] in _VOTE_EVENTS and e["params"].get("voter") != self.seat for e in events)

    # -- the turn -----------------------------------------------------------

    def act(self) -> Action | None:
        """Talk if there is news to share, else set the role's vote or power (or wait)."""
        if self._waited and not self._news and self._turn > 3:
            # Nothing happened since it last chose to wait, and from the third turn on no
            # chance is drawn (nor was last turn): the same inputs give the same answer.
            return None
        action = self._decide()
        self._waited = action is None
        return action

    def _decide(self) -> Action | None:
        if not self.view.get("legal"):
            return None
        if self._phase[0] == "day":
            return self._talk_by_day() or self._day()
        return self._talk_by_night() or self._night()

    def _seats(self, do: str) -> list[int]:
        entry = self.legal(do)
        return list(entry["targets"]) if entry else []

    def _choice(self, do: str) -> Any:
        return self.view.get("choices", {}).get(do)

    def _set(self, do: str, target: int) -> Action | None:
        """Make choice `do` on `target` unless it is already made (then wait)."""
        if not target or target == self._choice(do):
            return None
        return Action(do, self.seat, target)

    # -- day ----------------------------------------------------------------

    def _day(self) -> Action | None:
        b = self.beliefs
        role = b.role
        seats = self._seats("vote")
        if not seats:
            return self.pass_()
        votes = {int(k): v for k, v in self.view["votes"].items() if int(k) != self.seat}
        if role in (WHITE_KNIGHT, BLACK_KNIGHT):
            revive = self._revive()
            if revive is not None:
                return revive
        if role == CASTAWAY and not votes and self._turn == 1:
            return None  # let others show the way first
        bonus: dict[int, float] = {}
        pending = self._choice("extra_vote_today")
        if role == WISE_WOMAN and pending:
            bonus[pending] = 0.3  # her hidden extra vote already counts there
        mine = self._choice("vote") or (self._choice("illusion") or {}).get("target", 0)
        if mine and self._turn > MAX_DAY_TURNS:
            return None  # keep the vote: the table has had its chance to settle
        target = tactics.day_target(b, seats, votes, self._jitter, bonus, mine)
        if not mine and not self._ready(target):
            return None
        if role == ILLUSIONIST:
            return self._illusion(seats, votes, target)
        return self._set("vote", target)

    def _ready(self, target: int) -> bool:
        """Whether to cast a first vote now. Evidence votes at once; a hunch waits a while,
        so a table without evidence does not stampede onto the first accusation — but
        votes before the table settles (when nobody moved since its last turn)."""
        if tactics.convinced(self.beliefs, target) or self._quiet:
            return True
        return self._turn >= 3 or self.rng.random() < FIRST_VOTE * self._turn

    def _illusion(self, seats: list[int], votes: dict[int, int], target: int) -> Action | None:
        """Show a vote that looks Human (the crowd's choice, or a seat Humans suspect);
        put the counted vote where the team wants it."""
        b = self.beliefs
        lead, _count = tactics.leader(votes)
        if lead and lead in seats:
            shown = lead
        else:
            shown = tactics.best({s: b.p_trusis(s) + self._jitter.get(s, 0.0)
                                  for s in seats}) or target
        if not target:
            return None
        if self._choice("illusion") == {"shown": shown, "target": target}:
            return None
        return Action("illusion", self.seat, target, shown)

    def _talk_by_day(self) -> Action | None:
        if self._turn > 2:
            return None
        b = self.beliefs
        names = {p["seat"]: p["name"] for p in self.view["players"]}
        for result in self.view.get("results", ()):
            key = (result["kind"], result["target"])
            if key in self._announced or (result["target"] not in b.alive and \
                    result["kind"] == "sweep_result"):
                continue
            self._announced.add(key)
            kind = _ANNOUNCE.get((result["kind"], result.get("result", "")))
            if kind is None:
                continue
            if kind in (chat.SWEEP_CLEAR, chat.GRAVE_CLEAR) and self.rng.random() < self.KEEP_CLEAR:
                continue
            return self._say(kind, names[result["target"]])
        if b.role == GRAVEDIGGER and b.day == 1:
            whisper = self._whisper_allies(chat.ALLY, 0)
            if whisper is not None:
                return whisper
        if self._turn == 1 and self.rng.random() < CHATTINESS and b.role != CASTAWAY:
            if b.day == 1 and not self.view["history"]:
                return self._say(chat.HELLO)
            seats = [s for s in b.alive if s != self.seat]
            if b.team == TEAM_HUMAN:
                scores = tactics.human_scores(b, seats, self._jitter)
            else:
                scores = tactics.trusis_scores(b, seats, self._jitter)
            suspect = tactics.best(scores)
            if suspect:
                return self._say(chat.SUSPECT, names[suspect])
        if self._turn == 2:
            lead, _count = tactics.leader({int(k): v for k, v in self.view["votes"].items()})
            if lead == self.seat and self.rng.random() < 0.5:
                return self._say(chat.DEFEND)
        return None

    def _say(self, kind: str, name: str = "", role: str = "", to: int | None = None) -> Action:
        text = chat.phrase(self.lang, kind, self.rng.randrange(8), name, role)
        return self.say(text, to)

    # -- night --------------------------------------------------------------

    def _night(self) -> Action | None:
        b = self.beliefs
        role = b.role
        if role == TRUSIS:
            seats = self._seats("vote")
            if not seats:
                return self.pass_()
            night_votes = {int(k): v for k, v in self.view["votes"].items()}
            target = tactics.kill_target(b, seats, night_votes, self._jitter)
            return self._set("vote", target)
        action: Action | None = None
        if role == SWEEPER and self.can("sweep"):
            action = self._set("sweep", tactics.sweep_target(b, self._seats("sweep"), self._jitter))
        elif role == ORACLE and self.can("foresee"):
            action = self._set("foresee",
                               tactics.foresee_target(b, self._seats("foresee"), self._jitter))
        elif role == PRIEST and self.can("protect"):
            action = self._set("protect",
                               tactics.protect_target(b, self._seats("protect"), self._jitter))
        elif role == WISE_WOMAN and self.can("extra_vote"):
            action = self._extra_vote()
        elif role == KAMIKAZE and self.can("kamikaze"):
            action = self._kamikaze()
        elif role in (WHITE_KNIGHT, BLACK_KNIGHT):
            action = self._revive()
        return action or self.pass_()

    def _extra_vote(self) -> Action | None:
        b = self.beliefs
        scores = tactics.human_scores(b, self._seats("extra_vote"), self._jitter)
        target = tactics.best(scores)
        if target and (b.p_trusis(target) > 1.5 * b.prior or b.castaway(target) > 0):
            return self._set("extra_vote", target)
        return None

    def _kamikaze(self) -> Action | None:
        """Strike a seat that threatens the team — a claimer, a named Sweeper — or, after
        the first night, the seat that looks least like a Trusis."""
        b = self.beliefs
        scores = tactics.trusis_scores(b, self._seats("kamikaze"), self._jitter)
        target = tactics.best(scores)
        if not target:
            return None
        if scores[target] >= 2.5 or (b.day >= 2 and b.p_trusis(target) < 0.5 * b.prior):
            return self._set("kamikaze", target)
        return None

    def _revive(self) -> Action | None:
        if not self.can("revive"):
            return None
        dead = [p["seat"] for p in self.view["players"] if not p["alive"]]
        return self._set("revive", tactics.revive_target(self.beliefs, dead))

    def _talk_by_night(self) -> Action | None:
        b = self.beliefs
        if b.role == ORACLE:
            tip = self._oracle_tips()
            if tip is not None:
                return tip
        if b.role == TRUSIS and b.day == 1 and self._turn == 2 and self.rng.random() < 0.3:
            return self._whisper_allies(chat.FOLLOW, 0)
        return None

    def _oracle_tips(self) -> Action | None:
        """The Oracle tells the TRUSIS it found that it is on their side, and what it saw."""
        b = self.beliefs
        if not any(b.known.get(s) == TRUSIS for s in range(1, b.n + 1) if s != self.seat):
            return None
        whisper = self._whisper_allies(chat.ALLY, 0)
        if whisper is not None:
            return whisper
        names = {p["seat"]: p["name"] for p in self.view["players"]}
        for about, role in sorted(b.known.items()):
            if about != self.seat and about in b.alive and role != TRUSIS:
                whisper = self._whisper_allies(chat.TIP, about, names[about], role)
                if whisper is not None:
                    return whisper
        return None

    def _whisper_allies(self, kind: str, about: int, name: str = "",
                        role: str = "") -> Action | None:
        """One whisper of `kind` to the next known TRUSIS that has not had it yet."""
        if self._whispers >= MAX_WHISPERS:
            return None
        recipients = self._seats("say")
        for seat in sorted(self.beliefs.known):
            if seat == self.seat or self.beliefs.known[seat] != TRUSIS or seat not in recipients:
                continue
            if (seat, about, kind) in self._told:
                continue
            self._told.add((seat, about, kind))
            self._whispers += 1
            return self._say(kind, name, role, to=seat)
        return None


_VOTE_EVENTS = frozenset({"vote_cast", "vote_withdrawn"})

_ANNOUNCE: dict[tuple[str, str], str] = {
    ("sweep_result", TRUSIS): chat.SWEEP_TRUSIS,
    ("sweep_result", CASTAWAY): chat.SWEEP_CASTAWAY,
    ("sweep_result", "NEITHER"): chat.SWEEP_CLEAR,
    ("gravekeeper_result", TRUSIS): chat.GRAVE_TRUSIS,
    ("gravekeeper_result", "NOT_TRUSIS"): chat.GRAVE_CLEAR,
}

