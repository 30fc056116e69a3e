"""Where the person's typing comes from: the keyboard, or a script in tests.

The game loop never calls `input()` itself: it asks a `Terminal`, so a test
can play a whole game from a list of lines and read the transcript back from
a recording Rich console.
"""

from __future__ import annotations

import contextlib
import select
import sys
import time
from collections.abc import Iterable
from typing import Protocol

from rich.console import Console


class Terminal(Protocol):
    """A source of command lines."""

    interactive: bool
    """Whether a person answers (confirmations are asked only then)."""

    def ask(self, prompt: str) -> str:
        """Show `prompt` (Rich markup) and return one line; EOFError when input ends."""

    def poll(self, seconds: float) -> str | None:
        """Wait up to `seconds` for a line typed meanwhile; None if none came."""


class KeyboardTerminal:
    """Standard input, through the Rich console (readline editing works)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.interactive = sys.stdin.isatty()
        if self.interactive:
            # Line editing and history (↑) for `input()`, where the platform has them.
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401

    def ask(self, prompt: str) -> str:
        return self.console.input(prompt)

    def poll(self, seconds: float) -> str | None:
        if seconds <= 0:
            return None
        if not self.interactive:
            time.sleep(seconds)
            return None
        try:
            ready, _, _ = select.select([sys.stdin], [], [], seconds)
        except (OSError, ValueError):  # no select on this stream (e.g. Windows)
            time.sleep(seconds)
            return None
        if not ready:
            return None
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.rstrip("\n")


class ScriptedTerminal:
    """Lines from a list, echoed into the console as if typed; EOFError at the end."""

    def __init__(self, lines: Iterable[str], console: Console, interactive: bool = False,
                 watch_lines: Iterable[str] = ()) -> None:
        self.lines = list(lines)
        self.watch_lines = list(watch_lines)
        self.console = console
        self.interactive = interactive
        self.prompts = 0

    def ask(self, prompt: str) -> str:
        self.prompts += 1
        self.console.print(prompt, end="")
        if not self.lines:
            self.console.print()
            raise EOFError
        line = self.lines.pop(0)
        self.console.print(line, markup=False, highlight=False)
        return line

    def poll(self, seconds: float) -> str | None:
        if not self.watch_lines:
            return None
        line = self.watch_lines.pop(0)
        self.console.print(line, markup=False, highlight=False)
        return line
