"""Who holds a seat of a table: a person, a program or a bot."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Seat:
    """Who holds a seat (names are public; the player id never leaves the server)."""

    kind: str  # person, program, bot
    name: str
    player_id: str | None = None
    bot_kind: str | None = None
