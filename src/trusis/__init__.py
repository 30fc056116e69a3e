"""Trusis: a pure, deterministic rules engine for the social-deduction game.

The public API: `new_game`, `apply`, `legal_actions`, `view`, records and replay.
"""

from trusis.rules.actions import Action
from trusis.rules.engine import apply, new_game
from trusis.rules.errors import IllegalAction, RecordError, SetupError
from trusis.rules.events import Event
from trusis.rules.legal import LegalAction, concrete_actions, legal_actions
from trusis.rules.state import GameState
from trusis.rules.views import view
from trusis.table.game import Game, replay
from trusis.table.record import Record, load_record, parse_record
from trusis.table.table import Outcome, Table

__all__ = [
    "Action",
    "Event",
    "Game",
    "GameState",
    "IllegalAction",
    "LegalAction",
    "Outcome",
    "Record",
    "RecordError",
    "SetupError",
    "Table",
    "apply",
    "concrete_actions",
    "legal_actions",
    "load_record",
    "new_game",
    "parse_record",
    "replay",
    "view",
]
