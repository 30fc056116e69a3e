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

SECRET_PARAMETERS = ("token", "access_token", "claim", "code", "password", "session",
                     "invite")
"""`invite`: not a credential, but it lets anyone into a private table."""
_NAMES = "|".join(SECRET_PARAMETERS)
_QUERY = re.compile(rf"([?&](?:{_NAMES})=)[^&\s\"']*", re.IGNORECASE)
LOGGERS = ("uvicorn.error", "uvicorn.access", "trusis.server")


def redact(text: str) -> str:
    return _QUERY.sub(r"\1[redacted]", text)


def redact_record(record: logging.LogRecord) -> None:
    """Blank credentials in the record's message and in each of its string arguments
    (uvicorn's access formatter reads the arguments, so they stay a tuple)."""
    if isinstance(record.msg, str) and "=" in record.msg:
        record.msg = redact(record.msg)
    if isinstance(record.args, tuple):
        record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)


class Redact(logging.Filter):
    """Rewrites the record with every credential in a query blanked out."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


def install() -> None:
    """On the loggers that write request paths (after uvicorn configured its logging)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, Redact) for f in logger.filters):
            logger.addFilter(Redact())
