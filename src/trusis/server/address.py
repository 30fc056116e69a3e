"""The client's address, the key of every per-address limit (limits.py).

Starlette's `client.host`: behind a trusted proxy, uvicorn's proxy headers
(`--forwarded-allow-ips`, docs/deploy.md) have already put the real client there.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection


def client_address(request_or_websocket: HTTPConnection) -> str:
    client = request_or_websocket.client
    return client.host if client is not None else "unknown"
