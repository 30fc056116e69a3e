"""What the person types: command words (English, or the player's language) and seats.

`parse` turns a line into a `Command` with seats resolved — a seat is named by
its number or its name (any case, or the start of a name when only one
matches). Whether the command is *allowed* is not decided here: game actions
go to the engine, which refuses with a reason the screen translates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from trusis.play.text import Texts
from trusis.rules.roles import EXTRA_VOTE, FORESEE, KAMIKAZE_STRIKE, PROTECT, REVIVE, SWEEP

# Power commands: the word typed -> the engine's `do` (docs/rules.md §2).
POWERS: Final[dict[str, str]] = {
    "vote": "vote", "sweep": SWEEP, "protect": PROTECT, "extra": EXTRA_VOTE,
    "kamikaze": KAMIKAZE_STRIKE, "revive": REVIVE, "foresee": FORESEE,
}
COMMAND_FOR: Final[dict[str, str]] = {do: word for word, do in POWERS.items()}
IRREVERSIBLE: Final = frozenset({SWEEP, FORESEE, KAMIKAZE_STRIKE, REVIVE})
"""Acts answered at once or costing a life: asked for confirmation (docs/ux.md, "Acting")."""

# Every command, in the order help lists them; and short English forms.
COMMANDS: Final = (
    "vote", "unvote", "illusion", "sweep", "protect", "extra", "kamikaze", "revive",
    "foresee", "pass", "say", "whisper", "table", "role", "roles", "notes", "note", "votes",
    "log", "help", "quit",
)
SHORT: Final[dict[str, str]] = {
    "v": "vote", "p": "pass", "s": "say", "w": "whisper", "t": "table", "h": "help",
    "?": "help", "q": "quit", "n": "notes", "extra_vote": "extra", "exit": "quit",
}


class CommandError(ValueError):
    """A line that is not a command: `key` is a `play.` message with `params`."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass(frozen=True)
class Command:
    """A parsed line: the command's canonical (English) word and its arguments."""

    name: str
    target: int | None = None
    shown: int | None = None
    text: str = ""
    withdraw: bool = False
    args: list[str] = field(default_factory=list)


def command_words(texts: Texts) -> dict[str, str]:
    """Every word that names a command: English, short forms and the player's language."""
    words = {c: c for c in COMMANDS}
    words.update(SHORT)
    for name in COMMANDS:
        for alias in texts.words(f"cmd.{name}"):
            words.setdefault(alias, name)
    return words


def find_seat(token: str, texts: Texts) -> int:
    """A seat named by number or by name; raises `CommandError` when it names none or several."""
    token = token.strip().strip(",.;:")
    if token.startswith("#"):
        token = token[1:]
    if token.isdigit():
        return int(token)
    lowered = token.lower()
    names = texts.names
    exact = [s for s, n in enumerate(names, 1) if n.lower() == lowered]
    if len(exact) == 1:
        return exact[0]
    starts = [s for s, n in enumerate(names, 1) if n.lower().startswith(lowered)] if token else []
    if len(starts) == 1:
        return starts[0]
    if starts:
        return _ambiguous(token, starts, texts)
    raise CommandError("no_such_name", name=token)


def _ambiguous(token: str, seats: list[int], texts: Texts) -> int:
    raise CommandError("ambiguous_name", name=token,
                       choices=", ".join(texts.seat(s) for s in seats))


def parse(line: str, texts: Texts) -> Command | None:
    """The command on `line`, or None for an empty line; raises `CommandError`."""
    line = line.strip()
    if not line:
        return None
    word, _, rest = line.partition(" ")
    rest = rest.strip()
    name = command_words(texts).get(word.lower())
    if name is None:
        raise CommandError("unknown_command", word=word)
    if name in ("say", "note", "whisper"):
        return _talk(name, rest, texts)
    args = rest.split()
    if name in POWERS:
        if not args:
            raise CommandError("needs_seat", command=word)
        if args[0].lower() in texts.words("none_words") or args[0] in ("-", "off", "none"):
            return Command(name, withdraw=True)
        return Command(name, find_seat(args[0], texts))
    if name == "illusion":
        if args and (args[0].lower() in texts.words("none_words") or args[0] in ("-", "off")):
            return Command(name, withdraw=True)
        if len(args) != 2:
            raise CommandError("illusion_usage")
        return Command(name, find_seat(args[1], texts), find_seat(args[0], texts))
    return Command(name, args=args)


def _talk(name: str, rest: str, texts: Texts) -> Command:
    if name == "say":
        if not rest:
            raise CommandError("say_usage")
        return Command(name, text=rest)
    who, _, text = rest.partition(" ")
    if name == "note" and not who:
        return Command("notes")
    if not who or not text.strip():
        raise CommandError(f"{name}_usage")
    return Command(name, find_seat(who, texts), text=text.strip())
