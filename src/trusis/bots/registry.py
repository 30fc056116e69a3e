"""Which bots exist: the built-in kinds and those other packages plug in.

A plug-in is any installed distribution that declares an entry point in the
group `trusis.bots`, e.g. in its pyproject.toml::

    [project.entry-points."trusis.bots"]
    cautious = "my_package.bots:CautiousBot"

The entry point names the kind; it loads to a `Bot` subclass or any callable
`(seat, seed, lang) -> Bot`. Plug-ins are thus added without touching this
project. The built-in kinds are declared the same way in Trusis's own
pyproject.toml, and also known here directly so that they work even from a
source tree that was never installed.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from trusis.bots.base import Bot

BotFactory = Callable[[int, int, str], Bot]
"""Makes the bot of one seat: `(seat, seed, lang) -> Bot`."""

GROUP = "trusis.bots"


class UnknownBot(ValueError):
    """A bot kind that is neither built in nor plugged in."""

    def __init__(self, kind: str, available: list[str]) -> None:
        super().__init__(f"unknown bot kind {kind!r}; available: {', '.join(available)}")
        self.kind = kind
        self.available = available


def _builtins() -> dict[str, BotFactory]:
    # Imported here: the bot modules import `base`, and plug-ins import this module.
    from trusis.bots.deliberate import EasyBot, NormalBot
    from trusis.bots.expert import ExpertBot
    from trusis.bots.heuristic import HeuristicBot
    from trusis.bots.random_bot import RandomBot

    return {"random": RandomBot, "heuristic": HeuristicBot, "easy": EasyBot, "normal": NormalBot,
            "expert": ExpertBot}


def _plugins() -> dict[str, object]:
    return {ep.name: ep for ep in entry_points(group=GROUP)}


DEFAULT_BOT = "normal"
"""The kind a table gets when nobody chose one (docs/bots.md: the levels)."""


def available_kinds() -> list[str]:
    """Every bot kind that `create_bot` accepts, sorted."""
    return sorted(set(_builtins()) | set(_plugins()))


def bot_factory(kind: str) -> BotFactory:
    """The factory of bot `kind`; raises `UnknownBot` listing the available kinds."""
    builtins = _builtins()
    if kind in builtins:
        return builtins[kind]
    plugin = _plugins().get(kind)
    if plugin is None:
        raise UnknownBot(kind, available_kinds())
    loaded = plugin.load()  # type: ignore[attr-defined]
    if not callable(loaded):
        raise TypeError(f"bot plug-in {kind!r} ({plugin.value}) is not callable")  # type: ignore[attr-defined]
    factory: BotFactory = loaded
    return factory


def create_bot(kind: str, seat: int, seed: int = 0, lang: str = "en") -> Bot:
    """A new bot of `kind` for `seat`; raises `UnknownBot` for an unknown kind."""
    bot = bot_factory(kind)(seat, seed, lang)
    if not isinstance(bot, Bot):
        raise TypeError(f"bot kind {kind!r} made {type(bot).__name__}, not a trusis Bot")
    return bot
