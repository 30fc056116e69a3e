"""The browser's notifications: Web Push (RFC 8030), encrypted as RFC 8291 says, signed
with the server's VAPID key (RFC 8292).

The key is made once and kept beside the secret key in the data folder (`vapid.pem`,
readable by its owner only), or given as `TRUSIS_VAPID_KEY_FILE` when several processes
must share one: a browser's subscription is bound to the public key it was made with, so a
new key would silently end every subscription. The payload is encrypted for each
subscription with its own keys (`p256dh`, `auth`), so the push service carries it unread.

A subscription's endpoint is a URL a browser gave: the server posts only to the push
services it trusts (`PUSH_SERVICES`, or `TRUSIS_PUSH_SERVICES`), over HTTPS, so that a
made-up subscription cannot make it post to a host on its own network.
"""

from __future__ import annotations

import base64
import contextlib
import os
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid
from pywebpush import WebPusher

from trusis.server.data.notifications import PushSubscription

PUSH_SERVICES = ("fcm.googleapis.com", "updates.push.services.mozilla.com",
                 "push.services.mozilla.com", "notify.windows.com", "push.apple.com")
"""The push services of the browsers people use (a host or any name under it)."""
PUSH_TTL_SECONDS = 24 * 3600
"""How long a push service keeps a notification for a browser that is offline."""


def vapid_key(folder: Path) -> Vapid:
    """The server's VAPID key: `TRUSIS_VAPID_KEY_FILE`, or `vapid.pem` in `folder`, made on
    first use (written whole, then linked into place, as the secret key is)."""
    given = os.environ.get("TRUSIS_VAPID_KEY_FILE", "").strip()
    path = Path(given) if given else folder / "vapid.pem"
    if not path.exists():
        key = Vapid()
        key.generate_keys()
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".vapid-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(key.private_pem())
                out.flush()
                os.fsync(out.fileno())
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)
        finally:
            os.unlink(temporary)
    return Vapid.from_pem(path.read_bytes())


def public_key(key: Vapid) -> str:
    """The browser's `applicationServerKey`: the public key's point, base64url."""
    raw = key.public_key.public_bytes(serialization.Encoding.X962,
                                      serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def trusted(endpoint: str, services: tuple[str, ...]) -> bool:
    """Whether the server may post to `endpoint`: HTTPS to a trusted push service (a
    service given as `http://host:port` is trusted as it is: the tests' own endpoint)."""
    try:
        parts = urlsplit(endpoint)
    except ValueError:
        return False
    for service in services:
        if "://" in service:
            if endpoint.startswith(service.rstrip("/") + "/"):
                return True
            continue
        host = (parts.hostname or "").lower()
        if parts.scheme == "https" and (host == service or host.endswith("." + service)):
            return True
    return False


def services_from_env() -> tuple[str, ...]:
    extra = os.environ.get("TRUSIS_PUSH_SERVICES", "")
    return PUSH_SERVICES + tuple(s.strip() for s in extra.split(",") if s.strip())


async def send(session: aiohttp.ClientSession, key: Vapid, contact: str,
               sub: PushSubscription, payload: bytes, timeout: float) -> int:
    """Post one encrypted notification; its HTTP status (201: accepted; 404 or 410: the
    subscription is gone; 429 or 5xx: try again later). Raises on a network failure."""
    pusher = WebPusher({"endpoint": sub.endpoint,
                        "keys": {"p256dh": sub.p256dh, "auth": sub.auth}})
    body = pusher.encode(payload, "aes128gcm")["body"]
    parts = urlsplit(sub.endpoint)
    headers = dict(key.sign({"sub": contact, "aud": f"{parts.scheme}://{parts.netloc}",
                             "exp": int(time.time()) + 12 * 3600}))
    headers.update({"Content-Encoding": "aes128gcm", "Content-Type":
                    "application/octet-stream", "TTL": str(PUSH_TTL_SECONDS),
                    "Urgency": "normal"})
    async with session.post(sub.endpoint, data=body, headers=headers,
                            timeout=aiohttp.ClientTimeout(total=timeout),
                            allow_redirects=False) as answer:
        await answer.read()
        return answer.status
