"""Names for bots: pleasant, distinct, and never drawn from a game's deal seed.

Shared by the terminal game and the server, which each draw from this list with
their own random source, so a bot's name tells nothing about the deal.
"""

from __future__ import annotations

BOT_NAMES = (
    "Ada", "Basil", "Clara", "Dario", "Elsa", "Felix", "Greta", "Hugo", "Iris", "Jonas",
    "Kira", "Leo", "Mila", "Nico", "Olga", "Pablo", "Quinn", "Rosa", "Sami", "Tess",
    "Ugo", "Vera", "Wim", "Xenia", "Yann", "Zoe", "Amir", "Bea", "Cyril", "Dina",
    "Emil", "Flora", "Gil", "Hana", "Ines", "Joel", "Luca", "Maya", "Noor", "Otto",
)
