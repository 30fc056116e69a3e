"""Bots: players that see only their own seat's view, and the driver that runs them.

`Bot` (base) is the interface, `BotDriver`/`run_phase`/`play_game` (driver) run
bots on a `trusis.Game`, `create_bot`/`available_kinds` (registry) find the
built-in and plugged-in kinds.
"""

from trusis.bots.base import Bot, EventData, View, concrete
from trusis.bots.driver import BotDriver, Refused, play_game, run_phase
from trusis.bots.registry import BotFactory, UnknownBot, available_kinds, bot_factory, create_bot

__all__ = [
    "Bot",
    "BotDriver",
    "BotFactory",
    "EventData",
    "Refused",
    "UnknownBot",
    "View",
    "available_kinds",
    "bot_factory",
    "concrete",
    "create_bot",
    "play_game",
    "run_phase",
]

import logging as _logging

# A library logs, the application decides where: without this, Python's last-resort
# handler would print bot warnings on a player's terminal.
_logging.getLogger("trusis.bots").addHandler(_logging.NullHandler())
