"""New ids, and the hash tokens are stored by: for every query group of the data package."""

from __future__ import annotations

import hashlib
import secrets


def token_hash(token: str) -> str:
    """Tokens are stored by their hash, so a copy of the database signs nobody in."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_id(length: int = 12) -> str:
    return secrets.token_urlsafe(length)[:length].replace("-", "x").replace("_", "y")
