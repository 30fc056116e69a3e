"""No credential in the server's logs: a filter that blanks them out of every log line.

Credentials never travel in URLs (identity.py, docs/protocol.md), but a client may
still put one there — an old agent's `?token=`, a claim code pasted into a query —
and uvicorn writes the path with its query in its `WebSocket … [accepted]` line and
in its access log. This filter, on uvicorn's loggers and the server's own, replaces
the value of every query parameter that names a credential.
"""

from __future__ import annotations

import logging
import re

SECRET_PARAMETERS = ("token", "access_token", "claim", "code", "password", "session")
_NAMES = "|".join(SECRET_PARAMETERS)
_QUERY = re.compile(rf"([?&](?:{_NAMES})=)[^&\s\"']*", re.IGNORECASE)
LOGGERS = ("uvicorn.error", "uvicorn.access", "trusis.server")


def redact(text: str) -> str:
    return _QUERY.sub(r"\1[redacted]", text)


class Redact(logging.Filter):
    """Rewrites the record's message with every credential in a query blanked out."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        safe = redact(message)
        if safe != message:
            record.msg, record.args = safe, None
        return True


def install() -> None:
    """On the loggers that write request paths (after uvicorn configured its logging)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, Redact) for f in logger.filters):
            logger.addFilter(Redact())
