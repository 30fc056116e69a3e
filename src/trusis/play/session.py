"""One game of `trusis play`: the loop between the person, the bots and the engine.

The loop owns no I/O of its own: lines come from a `Terminal` and everything
goes out through a Rich `Console`, so tests script whole games. The screen
shows only `view(state, seat)` and the events the engine addressed to this
seat. Bots answer after each of the person's commands (`BotDriver.react`, a
round at a time, so their votes come in gradually) and settle the phase once
the person has passed (`BotDriver.settle`); a dead person watches, chat still
open, until the game ends.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from trusis.bots.registry import create_bot
from trusis.play.commands import IRREVERSIBLE, POWERS, Command, CommandError, parse
from trusis.play.endgame import show_end
from trusis.play.journal import Journal, Line
from trusis.play.options import PlayOptions
from trusis.play.screen import (
    any_role_card,
    board,
    choice_parts,
    find_role,
    has_power,
    notebook_table,
    role_card,
    roles_overview,
    status,
    tally,
    vote_grid,
)
from trusis.play.screen import choices as choices_line
from trusis.play.table import ROUNDS_PER_COMMAND, TableDriver, TableGame, seat_bots
from trusis.play.terminal import Terminal
from trusis.play.text import Texts, capital, sentence
from trusis.rules.actions import LEAVE, PASS, REPLACE, SAY, TIMEOUT, Action
from trusis.rules.errors import IllegalAction
from trusis.rules.formats import View
from trusis.rules.roles import ILLUSION, VOTE
from trusis.rules.views import view

MAX_VOTE_LINES = 10  # vote changes listed one by one in the news; more are summed up
MAX_SETTLE = 5  # settle calls before a stuck phase is ended by the timer (never expected)


@dataclass
class Session:
    """A table of one person and bots, played to its end."""

    options: PlayOptions
    console: Console
    terminal: Terminal
    notebook: dict[int, list[str]] = field(default_factory=dict)
    saved_to: Path | None = None

    def __post_init__(self) -> None:
        opts = self.options
        names = opts.names()
        self.seat = opts.seat
        self.t = Texts(opts.lang, names)
        self.game = TableGame(names, opts.seed, opts.custom, self.seat)
        bots = seat_bots(opts.bots, self.seat, opts.players, opts.bot_seed, opts.lang)
        self.driver = TableDriver(self.game, bots)
        self.journal = Journal(self.game, self.seat, self.t)
        self.left = False
        self.shown_phase: tuple[str, int] | None = None
        self.was_alive = True
        self.changed = True  # whether the status line is worth printing again
        self.bots_may_move = True  # false after a line that asked or failed: the table waits

    # -- the loop -------------------------------------------------------------

    def run(self) -> int:
        """Play the game to its end; returns the exit status (130 after Ctrl-C)."""
        try:
            self.intro()
            while self.game.state.running:
                self.flush()
                self.check_life()
                if self.active():
                    self.prompt_turn()
                else:
                    self.watch_phase()
            self.flush()
            show_end(self.console, self.view(), self.t, self.journal, self.game.record)
            self.save()
            self.say_saved()
            return 0
        except KeyboardInterrupt:
            self.console.print()
            self.console.print(Text(self.t("interrupted"), style="bold"))
            self.save()
            self.say_saved()
            return 130

    def view(self) -> View:
        return view(self.game.state, self.seat)

    def active(self) -> bool:
        """Whether the person still has something to decide in this phase."""
        state = self.game.state
        s = self.seat
        return state.running and state.alive[s] and not state.passed[s] and not state.left[s]

    def intro(self) -> None:
        c, t, opts = self.console, self.t, self.options
        c.print(Text(t("welcome", players=opts.players), style="bold"))
        if opts.seed_given:  # a reproducible game the person asked for; else the seed is secret
            c.print(Text(t("seed_given", seed=opts.seed), style="dim"))
        c.print(role_card(self.view(), t))
        c.print(Text(t("how_to"), style="dim"))
        self.banner(Line("banner", t("banner_day", number=1), ""))

    def flush(self) -> None:
        """Print the news since the last prompt (many vote changes are summed up in one line:
        the seats table shows where the votes stand, and `log` lists each change)."""
        lines = self.journal.news()
        if lines:
            self.changed = True
        if self.left:
            return
        votes = sum(1 for line in lines if line.kind in ("vote", "kill"))
        if not self.active():
            votes = 0  # watching: every vote is part of the show
        for line in lines:
            if line.kind == "banner":
                self.banner(line)
            elif votes <= MAX_VOTE_LINES or line.kind not in ("vote", "kill"):
                self.console.print(line.rich())
        if votes > MAX_VOTE_LINES:
            self.console.print(Text("  " + self.t("many_votes", count=votes), style="dim"))

    def banner(self, line: Line) -> None:
        style = "bold black on yellow" if "☀" in line.text else "bold white on blue"
        self.console.print()
        self.console.rule(Text(f" {line.text} ", style=style))

    def prompt_turn(self) -> None:
        """Bots answer, the screen updates, the person types one command.

        The bots answer only a line that did something at the table (an action the
        engine took, or a chat message): help, a role's description, a typo, an
        empty line or a refused action leave the table as it was."""
        if self.bots_may_move:
            self.driver.react(ROUNDS_PER_COMMAND)
        self.bots_may_move = False
        self.flush()
        if not self.active():
            return
        phase = (self.game.state.kind, self.game.state.number)
        v = self.view()
        if phase != self.shown_phase:
            self.shown_phase = phase
            self.console.print(board(v, self.t, self.notebook))
        elif self.changed:
            self.console.print(status(v, self.t))
            for extra in (tally(v, self.t), choices_line(v, self.t)):
                if extra is not None:
                    self.console.print(extra)
        self.changed = False
        line = self.ask(self.t("prompt"))
        if line is None:  # end of input: the seat leaves, the bots finish
            self.leave()
            return
        self.handle(line)

    def ask(self, prompt: str) -> str | None:
        try:
            return self.terminal.ask(f"[bold]{escape(prompt)}[/bold] ")
        except EOFError:
            if self.terminal.interactive:
                self.console.print()  # Ctrl-D left the cursor after the prompt
            return None

    def confirm(self, question: str) -> bool:
        """Ask yes or no (no by default) when a person is at the keyboard; scripts say yes."""
        if not self.terminal.interactive:
            self.console.print(Text(question + " " + self.t("yes_script"), style="dim"))
            return True
        answer = self.ask(f"{question} {self.t('yes_no')}")
        return answer is not None and answer.strip().lower() in self.t.words("yes_words")

    def watch_phase(self) -> None:
        """The person is dead, has left, or has passed: the bots play on."""
        state = self.game.state
        phase = (state.kind, state.number)
        for _ in range(MAX_SETTLE):
            self.driver.settle()
            if not state.running or (state.kind, state.number) != phase or self.active():
                break
        else:
            self.driver.play_for(Action(TIMEOUT))
        self.flush()
        self.check_life()
        if state.running and not state.alive[self.seat] and not self.left:
            self.console.print(status(self.view(), self.t))
            self.pause()

    def check_life(self) -> None:
        """Tell the person when they die or come back (deaths are public, R30)."""
        alive = self.game.state.alive[self.seat]
        if self.left or alive == self.was_alive:
            return
        self.was_alive = alive
        if alive:
            self.console.print(Text(self.t("back_to_life"), style="bold green"))
            return
        if not self.game.state.running:  # died at the very end: there is nothing to watch
            self.console.print(Text(self.t("you_died_at_end"), style="bold red"))
            return
        self.console.print(Text(self.t("you_died"), style="bold red"))
        if self.terminal.interactive:
            self.ask(self.t("press_enter"))

    def pause(self) -> None:
        """Between watched phases: wait `--delay` seconds, taking any line typed meanwhile."""
        try:
            line = self.terminal.poll(self.options.delay)
        except EOFError:
            return
        while line is not None:
            if line.strip():
                self.handle(line)
            if self.left:
                return
            try:
                line = self.terminal.poll(min(self.options.delay, 0.2))
            except EOFError:
                return

    # -- commands -------------------------------------------------------------

    def handle(self, line: str) -> None:
        t = self.t
        try:
            command = parse(line, t)
        except CommandError as err:
            self.refuse(t(err.key, **err.params))
            return
        if command is None:
            self.console.print(board(self.view(), t, self.notebook))
            return
        handler = getattr(self, f"do_{command.name}", None)
        if handler is not None:
            handler(command)
        elif command.name in POWERS or command.name == ILLUSION:
            self.do_power(command)

    def act(self, action: Action) -> bool:
        """Play one of the person's actions; a refusal is shown in the player's language."""
        try:
            self.driver.play_for(action)
        except IllegalAction as err:
            self.refuse(self.t.refusal(err))
            return False
        self.bots_may_move = True
        return True

    def refuse(self, text: str) -> None:
        """Why a line did nothing, as one sentence (every refusal ends with a full stop)."""
        self.console.print(Text("✗ " + sentence(text), style="bold red"))

    def do_power(self, command: Command) -> None:
        do = POWERS.get(command.name, command.name)
        if command.withdraw:
            self.act(Action(do, self.seat, None))
            return
        if do in IRREVERSIBLE and self._legal_target(do, command.target):
            question = self.t(f"confirm.{command.name}", target=command.target)
            if not self.confirm(question):
                self.console.print(Text(self.t("cancelled"), style="dim"))
                return
        self.act(Action(do, self.seat, command.target, command.shown))

    def _legal_target(self, do: str, target: int | None) -> bool:
        for legal in self.view()["legal"]:
            if legal["do"] == do:
                return target in legal.get("targets", ())
        return False

    def do_unvote(self, _command: Command) -> None:
        v = self.view()
        choices = v.get("choices", {})
        do = ILLUSION if "illusion" in choices else VOTE
        self.act(Action(do, self.seat, None))

    def do_pass(self, _command: Command) -> None:
        if not self.active():
            self.act(Action(PASS, self.seat))  # the engine says why not
            return
        v = self.view()
        parts = choice_parts(v, self.t)
        if parts or has_power(v):
            text = capital("; ".join(parts)) if parts else self.t("no_choice")
            if not self.confirm(self.t("confirm.pass", summary=text)):
                self.console.print(Text(self.t("cancelled"), style="dim"))
                return
        if self.act(Action(PASS, self.seat)):
            self.console.print(Text(self.t("you_passed"), style="dim"))

    def do_say(self, command: Command) -> None:
        self.act(Action(SAY, self.seat, text=command.text))

    def do_whisper(self, command: Command) -> None:
        self.act(Action(SAY, self.seat, text=command.text, to=command.target))

    def do_note(self, command: Command) -> None:
        seat = command.target or 0
        if not 1 <= seat <= self.options.players:
            self.refuse(self.t("no_such_seat", number=seat))
            return
        notes = self.notebook.setdefault(seat, [])
        if command.text in ("-", "--"):
            notes.clear()
        else:
            notes.append(command.text)
        self.console.print(Text(self.t("noted", seat=seat), style="dim"))

    def do_notes(self, _command: Command) -> None:
        self.console.print(notebook_table(self.view(), self.t, self.notebook))

    def do_table(self, _command: Command) -> None:
        self.console.print(board(self.view(), self.t, self.notebook))

    def do_role(self, command: Command) -> None:
        """`role`: the person's own card; `role NAME`: what any role is and does."""
        if not command.args:
            self.console.print(role_card(self.view(), self.t))
            return
        wanted = " ".join(command.args)
        role = find_role(wanted, self.t)
        if role is None:
            self.refuse(self.t("no_such_role", name=wanted))
            return
        self.console.print(any_role_card(role, self.view(), self.t))

    def do_roles(self, _command: Command) -> None:
        """Every role of the game: team, power, and how many this table holds."""
        self.console.print(roles_overview(self.view(), self.t))

    def do_votes(self, _command: Command) -> None:
        self.console.print(vote_grid(self.journal, self.view(), self.t))

    def do_log(self, _command: Command) -> None:
        label = None
        for line in self.journal.log:
            if line.phase != label:
                label = line.phase
                self.console.print(Text(f"— {label} —", style="bold"))
            if line.kind != "banner":
                self.console.print(line.rich(with_clock=True))

    def do_help(self, _command: Command) -> None:
        self.console.print(Text(self.t("help"), style=""))
        self.console.print(role_card(self.view(), self.t))

    def do_quit(self, _command: Command) -> None:
        if self.confirm(self.t("confirm.quit")):
            self.leave()
        else:
            self.console.print(Text(self.t("cancelled"), style="dim"))

    def leave(self) -> None:
        """R52: the seat leaves (its unpassed choices dropped); the bots finish the game."""
        state = self.game.state
        if not state.running or self.left:
            return
        self.driver.play_for(Action(LEAVE, self.seat))
        self.left = True
        # R53: a bot takes the seat over, keeping its role and knowledge, so the team
        # does not lose a player; it acts from the next phase.
        opts = self.options
        self.driver.play_for(Action(REPLACE, self.seat, by="bot"))
        self.driver.take_over(self.seat, create_bot(opts.bots, self.seat, opts.bot_seed,
                                                   opts.lang))
        self.console.print(Text(self.t("you_left"), style="bold"))
        self.driver.run_game()

    # -- the record -----------------------------------------------------------

    def save(self) -> None:
        path = self.options.record
        if path is None:
            return
        data = self.game.record.to_dict()
        try:
            path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", "utf-8")
        except OSError as err:
            self.console.print(Text(f"error: --record: cannot write {path}: {err.strerror}",
                                    style="bold red"))
            return
        self.saved_to = path

    def say_saved(self) -> None:
        if self.saved_to is not None:
            self.console.print(Text(self.t("saved", path=str(self.saved_to)), style="bold"))
        else:
            self.console.print(Text(self.t("not_saved"), style="dim"))
