"""Trusis: a pure, deterministic rules engine for the social-deduction game.

The public API: `new_game`, `apply`, `legal_actions`, `view`, records and replay.
"""

from trusis.actions import Action
from trusis.engine import apply, new_game
from trusis.errors import IllegalAction, RecordError, SetupError
from trusis.events import Event
from trusis.game import Game, replay
from trusis.legal import LegalAction, concrete_actions, legal_actions
from trusis.record import Record, load_record, parse_record
from trusis.state import GameState
from trusis.views import view

__all__ = [
    "Action",
    "Event",
    "Game",
    "GameState",
    "IllegalAction",
    "LegalAction",
    "Record",
    "RecordError",
    "SetupError",
    "apply",
    "concrete_actions",
    "legal_actions",
    "load_record",
    "new_game",
    "parse_record",
    "replay",
    "view",
]
