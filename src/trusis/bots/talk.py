"""Bots that talk like players: they say why they vote, ask, and answer questions.

`TalkingBot` is the part of the `normal` and `easy` bots that converses (the words are
`trusis.bots.phrases`'s, in the table's language):

- **Why, before voting.** When it is about to vote for a seat — a first vote, or a move
  — a bot sometimes says why first (always, when nobody has said anything yet today),
  and votes on its next turn: its real reason for a Human, a public fact or a hunch for
  the Trusis team (`trusis.bots.reasons`).
- **Asking, not answering a vote with a vote.** A lone vote on a bot — nobody else on it
  yet — is a question before it is evidence: the bot often asks its voter "why me?"
  (and `trusis.bots.deliberate` does not vote back at once).
- **Answering.** "why Quinn?", "who do you suspect?", "are you the Sweeper?"
  (`trusis.bots.questions`) are answered by the bot asked — by name, or by a whisper,
  answered the same way — or, asked of nobody in particular, by one player only: the
  last one to vote for the seat in question, or the first living seat after the asker's
  (a person there answers for themself; the view does not say who is a bot). On
  roles everyone answers alike: all deny being a Trusis, all say they side with the
  Humans, and about a Human power role all but a seat that claimed it keep it to
  themselves, so an answer tells nothing about who holds it.
- **Never every turn, never the same line twice in a row**: a bot leaves a turn between
  two lines of conversation, and picks a wording that is neither its own last line nor
  the table's last one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from trusis.bots import chat, listen, phrases, questions, reasons, tactics
from trusis.bots.base import EventData, View
from trusis.bots.heuristic import HeuristicBot
from trusis.bots.questions import Question
from trusis.bots.weigh import RESULTS, ListeningBeliefs
from trusis.rules.actions import Action
from trusis.rules.roles import HUMAN, TEAM_HUMAN, TEAM_OF, TEAM_TRUSIS, TRUSIS

ASK_CHANCE = 0.6  # a lone vote on this bot: chance that it asks why
EXPLAIN_CHANCE = 0.35  # a new vote: chance that it says why first
QUESTION_TURNS = 5  # turns a question waits for its answer before it is let go
POWER_ROLES = frozenset(r for r, team in TEAM_OF.items() if team == TEAM_HUMAN and r != HUMAN)


class TalkingBot(HeuristicBot):
    """The conversation of a bot that listens (`ListeningBeliefs`)."""

    TALK: ClassVar[bool] = True
    beliefs: ListeningBeliefs

    def __init__(self, seat: int, seed: int = 0, lang: str = "en") -> None:
        super().__init__(seat, seed, lang)
        self._last_own = ""  # this bot's last line
        self._last_table = ""  # the last public line anyone said
        self._talked = -9  # the turn of its last line of conversation
        self._phase_turns = 0  # turns since the start of the game (for the gap above)
        self._pending: list[tuple[int, Question, bool, int]] = []  # asker, question, private, turn
        self._to_ask: list[int] = []  # seats to ask "why me?"
        self._asked: set[tuple[int, int]] = set()  # (day, voter) asked already
        self._order: list[tuple[int, int]] = []  # today's visible votes in order (voter, target)
        self._explained: tuple[int, int] = (0, 0)  # (day, seat) of the last reason given
        self._reasoned = 0  # the last day it gave a reason, explaining or answering
        self._claims: list[str] = []  # the roles this bot claimed in public, in order
        self._heard_today = False  # someone said something in public this phase

    # -- hearing ----------------------------------------------------------------

    def observe(self, view: View, events: Sequence[EventData]) -> None:
        day_before = (self.beliefs.kind, self.beliefs.day)
        super().observe(view, events)
        self._phase_turns += 1
        if (self.beliefs.kind, self.beliefs.day) != day_before:
            self._order, self._to_ask, self._heard_today = [], [], False
            self._pending = [p for p in self._pending if p[2]]  # whispers outlive a phase
        names = self.beliefs.name_list
        for event in events:
            code, params = event["code"], event["params"]
            if code == "phase_started":
                self._order, self._to_ask = [], []
            elif code == "vote_cast" and self.beliefs.kind == "day":
                self._order.append((params["voter"], params["target"]))
                self._heard_vote(params["voter"], params["target"])
            elif code in ("said", "whispered"):
                speaker = params["seat"]
                if code == "said":
                    self._last_table = params["text"]
                    self._heard_today = True
                if speaker == self.seat:
                    self._own_claims(params["text"])
                    continue
                if not self.TALK:
                    continue
                asked = questions.parse(params["text"], names, speaker)
                if asked is not None:
                    self._pending.append((speaker, asked, code == "whispered",
                                          self._phase_turns))

    def act(self) -> Action | None:
        if self._pending or self._to_ask:
            self._news = True  # something to answer: not the turn to wait without thinking
        return super().act()

    def _heard_vote(self, voter: int, target: int) -> None:
        """A lone vote on this bot is a question to ask its voter (once a day)."""
        if target != self.seat or voter == self.seat or not self.TALK:
            return
        votes = self.view.get("votes", {})
        lone = sum(1 for t in votes.values() if t == self.seat) <= 1
        key = (self.beliefs.day, voter)
        if lone and key not in self._asked and self.rng.random() < ASK_CHANCE:
            self._asked.add(key)
            self._to_ask.append(voter)

    # -- talking ----------------------------------------------------------------

    def _may_talk(self) -> bool:
        """Never every turn: a turn of silence between two lines of conversation."""
        return self.TALK and self._phase_turns - self._talked >= 2

    def _line(self, kind: str, name: str = "", other: str = "", role: str = "",
              then: str = "", to: int | None = None) -> Action | None:
        """A line of `kind` in a wording unlike this bot's last line and the table's
        (None if every wording would repeat one); `then` follows it in the same message."""
        count = phrases.wordings(self.lang, kind)
        start = self.rng.randrange(count)
        for i in range(count):
            text = phrases.line(self.lang, kind, start + i, name, other, role)
            text = f"{text} {then}".strip()
            if text not in (self._last_own, self._last_table):
                self._last_own = text
                self._talked = self._phase_turns
                return self.say(text, to)
        return None

    def _say(self, kind: str, name: str = "", role: str = "", to: int | None = None) -> Action:
        action = super()._say(kind, name, role, to)
        if action.text in (self._last_own, self._last_table):  # another wording if any
            for pick in range(8):
                other = super()._say(kind, name, role, to)
                if other.text not in (self._last_own, self._last_table) or pick == 7:
                    action = other
                    break
        self._last_own = action.text or ""
        return action

    def _visible_vote(self) -> int:
        """The vote everyone sees of this bot (an Illusionist's shown one)."""
        vote = self._choice("vote")
        illusion = self._choice("illusion")
        return int(vote or (illusion["shown"] if illusion else 0))

    def _reason_line(self, target: int, prefix: str = "", to: int | None = None
                     ) -> Action | None:
        names = {p["seat"]: p["name"] for p in self.view["players"]}
        votes = {int(k): v for k, v in self.view.get("votes", {}).items()}
        reason = reasons.why(self.beliefs, target, votes, self.rng)
        self._reasoned = self.beliefs.day
        if reason.kind not in phrases.ACCUSING and self._drawn(target):
            # D70: a vote by lot says it is one; "most of us are on X" read as a pile-on
            reason = reasons.Reason(phrases.WHY_LOT, target)
        if prefix:
            said = phrases.line(self.lang, reason.kind, self.rng.randrange(8), names[target],
                                names.get(reason.other, ""), reason.role)
            return self._line(prefix, names[target], then=said, to=to)
        return self._line(reason.kind, names[target], names.get(reason.other, ""), reason.role,
                          to=to)

    def _drawn(self, target: int) -> bool:
        """Whether this bot votes `target` today by the table's lot (D70), not by evidence."""
        return False

    def _lot_today(self) -> int:
        """The seat the table's lot drew today for this bot (D70); 0: none, or itself."""
        return 0

    def _owes_word(self, target: int) -> bool:
        """It gave a reason today and now follows the lot to `target` without having said
        so yet (D70): the vote waits for the word, a turn or two."""
        return (self.TALK and self._reasoned == self.beliefs.day and self._drawn(target)
                and self._explained != (self.beliefs.day, target) and self.can("say"))

    def _explain(self, target: int) -> Action | None:
        """Sometimes, before a new vote on `target`, say why (once a day per seat)."""
        key = (self.beliefs.day, target)
        if key == self._explained or not self._may_talk() or target == self._visible_vote():
            return None
        self._explained = key
        # Talk before voting: the day's first vote at a silent table always comes with why;
        # and a bot that gave a hunch today and now follows the lot says so (D70: a new
        # player read "a hunch about Nico", then a silent vote for Elsa).
        switched = self._reasoned == key[0] and self._drawn(target)
        # ... and so does the first vote on the seat the lot drew: in a browser trial four
        # bots voted a new player by lot before any of them said it was one (D70)
        voted = {seat for seat in self.view.get("votes", {}).values() if seat}
        first_on = self._drawn(target) and target not in voted
        chance = EXPLAIN_CHANCE if self._heard_today and not switched and not first_on else 1.0
        if self.rng.random() >= chance or not self.can("say"):
            return None
        return self._reason_line(target)

    def _converse(self) -> Action | None:
        """An answer to a question put to this bot, or "why me?" to a lone voter."""
        if not self._may_talk() or not self.can("say"):
            return None
        names = {p["seat"]: p["name"] for p in self.view["players"]}
        alive = set(self.view["alive"])
        while self._to_ask:
            voter = self._to_ask.pop(0)
            votes = self.view.get("votes", {})
            if voter in alive and votes.get(str(voter)) == self.seat:
                return self._line(phrases.ASK_WHY_ME, names[voter])
        while self._pending:
            asker, asked, private, turn = self._pending.pop(0)
            if self._phase_turns - turn > QUESTION_TURNS or not self._mine(asker, asked, private):
                continue
            answer = self._answer(asker, asked, private)
            if answer is not None:
                return answer
        return None

    def _mine(self, asker: int, asked: Question, private: bool) -> bool:
        """Whether this bot is the one to answer (see the module's docstring)."""
        if private or asked.to == self.seat:
            return True
        if asked.to:
            return False
        if asked.kind == questions.WHY and asked.about:
            # "why Quinn?": for whoever voted Quinn last (a person answers for themself)
            votes = {int(k): v for k, v in self.view.get("votes", {}).items()}
            last = [v for v, t in self._order if t == asked.about and votes.get(v) == t]
            return bool(last) and last[-1] == self.seat
        if asked.kind == questions.WHY:
            return False  # "why?" of nobody in particular: about whose vote?
        # "who do you suspect?" to the table: the first living seat after the asker's
        living = sorted(p["seat"] for p in self.view["players"] if p["alive"])
        after = [s for s in living if s > asker] + [s for s in living if s < asker]
        return bool(after) and after[0] == self.seat

    def _answer(self, asker: int, asked: Question, private: bool) -> Action | None:
        to = asker if private else None
        names = {p["seat"]: p["name"] for p in self.view["players"]}
        mine = self._visible_vote()
        if asked.kind == questions.WHY:
            about = asked.about or mine
            if not about:
                return self._line(phrases.SUSPECT_NOBODY, to=to)
            if about != mine:
                return self._line(phrases.NOT_VOTING, names[about], to=to)
            return self._reason_line(about, to=to)
        if asked.kind == questions.WHO:
            # no vote yet and no evidence, but the lot has drawn a seat it will vote: that
            # seat, said to be the lot's (D70) — "too early to say", then a vote for the
            # asker, read as a lie in a browser trial
            target = mine or self._suspect() or self._lot_today()
            if not target:
                return self._line(phrases.SUSPECT_NOBODY, to=to)
            return self._reason_line(target, prefix=phrases.SUSPECT_NAME, to=to)
        return self._role_answer(asked.role, to)

    def _suspect(self) -> int:
        """Whom to name when asked with no vote yet: a Human's real suspect if it has
        evidence, the team's target for the Trusis; else nobody."""
        b = self.beliefs
        seats = [s for s in b.alive if s != self.seat]
        if b.team == TEAM_HUMAN:
            best = tactics.best(tactics.human_scores(b, seats, self._jitter))
            return best if tactics.convinced(b, best) else 0
        if b.team == TEAM_TRUSIS:
            return tactics.best(tactics.trusis_scores(b, seats, self._jitter))
        return 0

    def _own_claims(self, text: str) -> None:
        """Note the role a line of this bot's claims (a result claims its power's role)."""
        b = self.beliefs
        found = listen.parse(text, b.name_list, self.seat)
        template = chat.parse(text, b.names)
        if template is not None:
            found.append(template)
        for claim in found:
            role = RESULTS.get(claim.kind) or (claim.role if claim.kind == listen.ROLE
                                               and claim.about == self.seat else "")
            if role:
                self._claims.append(role)

    def _claimed(self) -> str:
        """The role this bot last claimed in public (a posing TRUSIS: the Sweeper)."""
        return self._claims[-1] if self._claims else ""

    def _role_answer(self, role: str, to: int | None) -> Action | None:
        if role == TRUSIS:
            return self._line(phrases.NOT_TRUSIS, to=to)
        if role == HUMAN:
            return self._line(phrases.ON_HUMAN_SIDE, to=to)
        if self._claimed() == role:
            return self._line(phrases.ROLE_YES, role=role, to=to)
        if role in POWER_ROLES:
            return self._line(phrases.ROLE_COY, to=to)
        return self._line(phrases.ROLE_NO, role=role, to=to)
