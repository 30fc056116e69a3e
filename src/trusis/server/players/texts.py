"""Free text that is stored: a report's reason, a moderator's or an admin's (issue 38).

Cleaned as names are (D9, D20, names.py) before anything is stored or looked up: control
characters (a NUL, which PostgreSQL refuses in text, answered 500), line breaks, bidi
overrides and zero-width characters become spaces, and so do the fillers that show
nothing; runs of spaces become one. A reason that must say something (a report's, a
sanction's, a lift's) is refused when nothing visible is left.
"""

from __future__ import annotations

import unicodedata

from trusis.rules.actions import clean_line
from trusis.server.errors import LobbyError
from trusis.server.players.names import FILLERS

REASON_LIMIT = 1000
"""The longest reason, once cleaned (docs/protocol.md, "Moderation")."""


def free_text(raw: str, field: str, required: bool = False,
              limit: int = REASON_LIMIT) -> str:
    """`raw` cleaned (D9), without the fillers D20 refuses in names; with `required`, 422
    `needs_reason` when nothing visible is left (a reason of U+200B only says nothing)."""
    text = clean_line("".join(" " if c in FILLERS else c for c in raw), limit)
    if text is None:
        raise LobbyError(422, "text_too_long", f"at most {limit} characters", field=field,
                         limit=limit)
    if not any(unicodedata.category(c)[0] in "LNPS" for c in text):
        text = ""
    if required and not text:
        raise LobbyError(422, "needs_reason", "say why", field=field)
    return text


def looked_up(raw: str) -> str:
    """A name to look up, cleaned as names are when they are made (D9): one holding a NUL
    finds nobody rather than failing the query."""
    return clean_line(raw) or ""
