"""Helpers for the moderation tests (issue 18): accounts, roles from `trusis admin`, and
the moderation API over HTTP."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import httpx

from serverproc import ServerProcess


def account(base: str, name: str) -> tuple[httpx.Client, str]:
    """A registered account signed in by cookie (as a browser is), and its id."""
    client = httpx.Client(base_url=base, timeout=10)
    reply = client.post("/api/accounts", json={"name": name, "password": "a long password"})
    assert reply.status_code == 201, reply.text
    return client, str(reply.json()["player"]["id"])


def grant(server: ServerProcess, name: str, role: str) -> None:
    done = subprocess.run([sys.executable, "-m", "trusis", "admin", "grant", name, role,
                           "--database", server.database], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


def sanction(mod: httpx.Client, player_id: str, kind: str, reason: str = "rude",
             minutes: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"kind": kind, "reason": reason}
    if minutes is not None:
        body["minutes"] = minutes
    reply = mod.post(f"/api/moderation/players/{player_id}/sanctions", json=body)
    assert reply.status_code == 201, reply.text
    data: dict[str, Any] = reply.json()
    return data
