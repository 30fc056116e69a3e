"""What the person has seen happen: news since the last prompt, the log, the vote grid.

Reads the table's event journal through `Event.visible_to(seat)` — the
audiences the engine fixed when it made each event — so an event meant for
other seats (a sweep result, a Trusis kill vote, a whisper) never reaches this
screen. Internal events (tallies, causes of death) are visible to nobody.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rich.text import Text

from trusis.play.table import TableGame
from trusis.play.text import Texts, capital
from trusis.rules.events import Event
from trusis.rules.formats import ResultEntry
from trusis.rules.roles import DAY

# How each kind of line looks; colour is never the only mark (docs/ux.md, "Accessibility").
STYLE = {
    "banner": "bold", "system": "bold", "death": "bold red", "life": "bold green",
    "vote": "", "kill": "red", "mine": "cyan", "result": "bold yellow", "chat": "",
    "whisper": "magenta",
}
MARK = {
    "system": "▸ ", "death": "☠ ", "life": "✚ ", "vote": "  ", "kill": "🗡 ", "mine": "✓ ",
    "result": "★ ", "chat": "", "whisper": "", "banner": "",
}
QUIET = frozenset({"passed", "phase_started"})
"""Events not written as news lines (the status line and the banners show them)."""


@dataclass
class Line:
    """One line of news or log: its kind (a key of STYLE), its text and when it came."""

    kind: str
    text: str
    phase: str
    clock: str = ""

    def rich(self, with_clock: bool = False) -> Text:
        out = Text()
        if with_clock and self.clock:
            out.append(f"{self.clock} ", style="dim")
        out.append(MARK.get(self.kind, ""), style=STYLE.get(self.kind, ""))
        if self.kind in ("chat", "whisper"):
            speaker, _, said = self.text.partition("\x00")
            out.append(speaker, style="bold " + STYLE[self.kind])
            out.append(" " + said, style=STYLE[self.kind])
        else:
            out.append(self.text, style=STYLE.get(self.kind, ""))
        return out


@dataclass
class Journal:
    """Turns the game's events into lines for one seat, once each."""

    game: TableGame
    seat: int
    texts: Texts
    cursor: int = 0
    log: list[Line] = field(default_factory=list)
    # Public day votes as shown (an illusion shows its shown vote), day -> voter -> target.
    day_votes: dict[int, dict[int, int]] = field(default_factory=dict)
    day_outcome: dict[int, int | None] = field(default_factory=dict)
    phase: tuple[str, int] = (DAY, 1)  # the phase of the event being read
    dead: set[int] = field(default_factory=set)

    def news(self) -> list[Line]:
        """The lines of every event this seat may see that came since the last call."""
        journal = self.game.journal
        fresh: list[Line] = []
        clock = time.strftime("%H:%M:%S")
        for event in journal[self.cursor:]:
            if event.visible_to(self.seat):
                fresh.extend(self._lines(event, clock))
        self.cursor = len(journal)
        self.log.extend(fresh)
        return fresh

    def _phase_label(self) -> str:
        return self.texts.phase(*self.phase)

    def _lines(self, event: Event, clock: str) -> list[Line]:
        code, params = event.code, event.params
        t = self.texts
        label = self._phase_label()
        if code == "phase_started":
            kind, number = params["kind"], params["number"]
            self.phase = (kind, number)
            key = "banner_day" if kind == DAY else "banner_night"
            return [Line("banner", t(key, number=number), self._phase_label(), clock)]
        if code == "died":
            self.dead.add(params["seat"])
            if self.day_outcome.get(self.phase[1]) == params["seat"] and self.phase[0] == DAY:
                return []  # "killed by the vote" already said it
        elif code == "revived":
            self.dead.discard(params["seat"])
        if code in ("vote_cast", "vote_withdrawn"):  # day votes (the night's are trusis_vote)
            votes = self.day_votes.setdefault(self.phase[1], {})
            if code == "vote_cast":
                votes[params["voter"]] = params["target"]
            else:
                votes.pop(params["voter"], None)
        if code == "vote_killed":
            self.day_outcome[self.phase[1]] = params["seat"]
        elif code == "nobody_killed":
            self.day_outcome[self.phase[1]] = None
        if code in QUIET:
            return []
        if code == "said":
            return [self._speech("chat", params["seat"], None, params["text"], label, clock)]
        if code == "whispered":
            return [self._speech("whisper", params["seat"], params["to"], params["text"],
                                 label, clock)]
        if code == "choice_made" and t.has(f"choice_{params['power']}"):
            text = t(f"choice_{params['power']}", target=params["target"])
            return [Line("mine", capital(text), label, clock)]
        if code == "game_over":
            return [Line("system", t.event(code, {"winner": params["winner"]}), label, clock)]
        return [Line(_kind(code), t.event(code, params), label, clock)]

    def _speech(self, kind: str, sender: int, to: int | None, text: str, label: str,
                clock: str) -> Line:
        t = self.texts
        dead = "☠" if sender in self.dead else ""  # public (R40: deaths are public)
        who = f"{dead}[{t.short(sender)}"
        if to is not None:
            who += " → " + (t("you") if to == self.seat else t.short(to))
            who += " " + t("private")
        return Line(kind, f"{who}]\x00{text}", label, clock)


def _kind(code: str) -> str:
    if code in ("died", "vote_killed"):
        return "death"
    if code == "revived":
        return "life"
    if code in ("vote_cast", "vote_withdrawn"):
        return "vote"
    if code in ("trusis_vote", "trusis_vote_withdrawn"):
        return "kill"
    if code in ("choice_made", "choice_withdrawn", "illusion_made"):
        return "mine"
    if code.endswith("_result"):
        return "result"
    return "system"


def result_fact(result: ResultEntry, texts: Texts) -> str:
    """A private result of the view, as the notebook's locked fact reads it."""
    fact = result.get("role") or result.get("result") or ""
    phase = texts.phase(result["phase"]["kind"], result["phase"]["number"])
    return texts(f"fact_{result['kind']}", when=phase, fact=texts.role(fact))
