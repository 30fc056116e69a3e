"""The lobby's refusals: a stable code, parameters, an HTTP status and a sentence."""

from __future__ import annotations

from typing import Any


class LobbyError(Exception):
    """A lobby request that cannot be done; the HTTP answer says why, as data."""

    def __init__(self, status: int, code: str, message: str, **params: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.params = params
        self.headers: dict[str, str] = {}  # e.g. a 429's Retry-After (limits/settings.py)
        if "retry_after" in params:  # every refusal that says when, says it to HTTP too
            self.headers["Retry-After"] = str(params["retry_after"])

    def body(self) -> dict[str, Any]:
        return {"code": self.code, "params": self.params, "message": self.message}
