"""The settings of one game of `trusis play`: table, seat, names, set, bots, language.

The deal's seed is a secret: it gives away every role. So it comes from `secrets`
and is never shown, unless the person asked for a reproducible game with `--seed`
(then the screen says so). The person's seat and the bots' names come from a second,
independent draw (`table_seed`), so that nothing the person sees can be traced back
to the deal.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from pathlib import Path

from trusis.bots.names import BOT_NAMES
from trusis.rules.errors import SetupError
from trusis.rules.roles import MAX_PLAYERS, MIN_PLAYERS
from trusis.rules.setup import check_custom_set, check_player_count, deal_roles


class OptionError(ValueError):
    """A bad command-line option: `option` names it, the message says why."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"{option}: {message}")
        self.option = option


@dataclass(frozen=True)
class PlayOptions:
    """One game's settings, already checked."""

    players: int = 8
    seat: int = 1
    seed: int = 0
    custom: dict[str, int] | None = None
    bots: str = "normal"
    lang: str = "en"
    name: str = ""
    record: Path | None = None
    delay: float = 0.0
    color: bool = True
    table_seed: int = 0
    """Draws the bots' names (and, in `trusis play`, the seat): never the deal's seed."""
    seed_given: bool = False
    """Whether the person chose the deal's seed (`--seed`): only then is it shown."""
    overwrite: bool = False
    """Whether `record` already exists and the person agreed to replace it."""

    @property
    def bot_seed(self) -> int:
        """What the bots' own choices are drawn from: the deal's seed only when the person
        asked for a reproducible game (--seed); otherwise the independent draw, so that
        how the bots play can never be traced back to the deal."""
        return self.seed if self.seed_given else self.table_seed

    def names(self) -> list[str]:
        """Every seat's name: the person's, and pleasant distinct names for the bots."""
        return table_names(self.players, self.seat, self.name, self.table_seed)


def check_set(players: int, seed: int, custom: dict[str, int] | None, lang: str) -> None:
    """R3–R6 for the chosen set at this table, the reason in the player's language."""
    try:
        if custom is not None:
            check_custom_set(players, custom)
        deal_roles(players, seed, custom)
    except SetupError as err:
        raise OptionError("--set", err.message(lang)) from None


def check_players(players: int) -> None:
    try:
        check_player_count(players)
    except SetupError as err:
        raise OptionError("--players", f"{err} ({MIN_PLAYERS} to {MAX_PLAYERS})") from None


def new_seed() -> int:
    """A fresh, unpredictable seed (for the deal, or for the table's names and seat)."""
    return secrets.randbelow(2**31)


def draw_seat(players: int, table_seed: int) -> int:
    """The person's seat when none is asked for: drawn from the table's own seed."""
    return random.Random(f"trusis-play-seat:{table_seed}").randint(1, players)


def table_names(players: int, seat: int, name: str, table_seed: int) -> list[str]:
    """The person at `seat`, the bots elsewhere, every name distinct (ignoring case).

    Drawn from `table_seed`, which is independent of the deal's seed: names drawn
    from the deal's seed would let a player find the seed, and so every role."""
    pool = [n for n in BOT_NAMES if n.lower() != name.lower()]
    random.Random(f"trusis-play-names:{table_seed}").shuffle(pool)
    names: list[str] = []
    for s in range(1, players + 1):
        names.append(name if s == seat else pool.pop())
    return names
