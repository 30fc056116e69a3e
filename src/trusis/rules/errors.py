"""The error family of the engine: every refusal has a code, parameters and a text.

`IllegalAction` is a refused action (the game goes on, nothing changed);
`SetupError` is a table that cannot start (R4–R6); `RecordError` is a malformed
record, naming the offending field. All are `ValueError`s, as in python-chess.
"""

from __future__ import annotations

import math
from typing import Any

from trusis.rules.i18n import SeatNamer, render

QUOTE_LIMIT = 60  # characters of a bad value that a message quotes


def escaped(text: str) -> str:
    """`text` on one line: each character that is not printable as its escape (repr's)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def quoted(value: Any) -> str:
    """`value` as a message may quote it: repr-like, on one line, never too long.

    Never raises: an integer too large to print (Python refuses more than 4300
    digits) or an object whose repr fails is described rather than shown.
    """
    if type(value) is int and value.bit_length() > 200:
        return "<a very large integer>"
    try:
        text = escaped(repr(value))
    except Exception:  # any repr may fail; a message must not
        return f"<{type(value).__name__}>"
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT - 1] + "…"


def safe_param(value: Any) -> Any:
    """A refusal parameter that renders on one line and serialises as strict JSON."""
    kind = type(value)
    if value is None or kind is bool:
        return value
    if kind is int:
        return value if value.bit_length() <= 64 else quoted(value)
    if kind is float:
        return value if math.isfinite(value) else quoted(value)
    if kind is str:
        return value if value.isprintable() else quoted(value)
    if kind is list or kind is tuple:
        return [safe_param(v) for v in value]
    return quoted(value)


class TrusisError(ValueError):
    """A refusal with a stable code and parameters, renderable in any language."""

    prefix = "refusal"

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        # Parameters may come from any caller's bad input (a seat of 1.5, a role id
        # holding a line break): keep them printable on one line and JSON-safe.
        self.params = {k: safe_param(v) for k, v in params.items()}
        super().__init__(self.message())

    def message(self, lang: str = "en", name: SeatNamer | None = None) -> str:
        """The reason as a player reads it, in `lang`, naming seats with `name`."""
        return render(f"{self.prefix}.{self.code}", self.params, lang, name)

    def as_dict(self) -> dict[str, Any]:
        """Code and parameters, for a client that renders the text itself."""
        return {"code": self.code, "params": dict(self.params), "reason": self.message()}


class IllegalAction(TrusisError):
    """An action the rules do not allow at this moment; the state is unchanged (R14)."""


class SetupError(TrusisError):
    """A table that cannot start: wrong size, impossible set, or already won (R1, R4–R6)."""

    prefix = "setup"


class RecordError(ValueError):
    """A malformed record or file: `field` names where, `problem` says what."""

    def __init__(self, field: str, problem: str) -> None:
        field = escaped(field)
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")
