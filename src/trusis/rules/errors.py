"""The error family of the engine: every refusal has a code, parameters and a text.

`IllegalAction` is a refused action (the game goes on, nothing changed);
`SetupError` is a table that cannot start (R4–R6); `RecordError` is a malformed
record, naming the offending field. All are `ValueError`s, as in python-chess.
"""

from __future__ import annotations

from typing import Any

from trusis.rules.i18n import SeatNamer, render


class TrusisError(ValueError):
    """A refusal with a stable code and parameters, renderable in any language."""

    prefix = "refusal"

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
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
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")
