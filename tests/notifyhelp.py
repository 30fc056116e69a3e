"""Real parts for the notification tests: an SMTP server (aiosmtpd) that keeps every mail,
and a push service that keeps every push, with browser-like subscriptions whose keys the
test made, so that each payload is decrypted as a browser would (RFC 8291)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import threading
import time
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import http_ece
import pytest
from aiosmtpd.controller import Controller
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from serverproc import ServerProcess, drop_database, free_port, new_database


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class _Keeper:
    """Keeps every mail it accepts. `step` seconds pass before each answer to MAIL, RCPT and
    DATA (a slow server); while `gate` is clear a mail waits at DATA (`waiting` counts them),
    then gets `answer` (a 4xx or 5xx refuses it)."""

    def __init__(self, step: float = 0.0) -> None:
        self.mails: list[tuple[list[str], bytes]] = []
        self.lock = threading.Lock()
        self.step = step
        self.gate = threading.Event()
        self.gate.set()
        self.answer = "250 kept"
        self.waiting = 0

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str,
                          options: list[str]) -> str:
        await asyncio.sleep(self.step)
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          options: list[str]) -> str:
        await asyncio.sleep(self.step)
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(options)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(self.step)
        with self.lock:
            self.waiting += 1
        try:
            while not self.gate.is_set():
                await asyncio.sleep(0.02)
        finally:
            with self.lock:
                self.waiting -= 1
        if not self.answer.startswith("250"):
            return self.answer
        with self.lock:
            self.mails.append((list(envelope.rcpt_tos), bytes(envelope.content)))
        return self.answer


class MailSink:
    """An SMTP server on loopback, started (and stopped) by the test."""

    def __init__(self, port: int | None = None, step: float = 0.0) -> None:
        self.port = port or free_port()
        self.keeper = _Keeper(step)
        self.controller: Controller | None = None

    def start(self) -> None:
        self.controller = Controller(self.keeper, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def env(self) -> dict[str, str]:
        return {"TRUSIS_SMTP_HOST": "127.0.0.1", "TRUSIS_SMTP_PORT": str(self.port),
                "TRUSIS_SMTP_SECURITY": "none", "TRUSIS_MAIL_FROM":
                "Trusis <games@trusis.test>", "TRUSIS_SMTP_TIMEOUT": "5"}

    def mails(self) -> list[EmailMessage]:
        with self.keeper.lock:
            kept = list(self.keeper.mails)
        return [message_from_bytes(raw, policy=policy.default)  # type: ignore[misc]
                for _, raw in kept]

    def hold(self) -> None:
        """From now on each mail waits at DATA until `release`."""
        self.keeper.gate.clear()

    def release(self, answer: str = "250 kept") -> None:
        """The mails waiting at DATA, and the next ones, get `answer`."""
        self.keeper.answer = answer
        self.keeper.gate.set()

    async def held(self, count: int, timeout: float = 20.0) -> None:
        """Wait (in an event loop) until `count` mails wait at DATA."""
        deadline = time.monotonic() + timeout
        while self.keeper.waiting < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.keeper.waiting} mails held, not {count}")
            await asyncio.sleep(0.02)

    def wait(self, predicate: Any, timeout: float = 20.0) -> list[EmailMessage]:
        deadline = time.monotonic() + timeout
        while True:
            mails = self.mails()
            if predicate(mails):
                return mails
            if time.monotonic() > deadline:
                raise AssertionError(f"mails: {[m['Subject'] for m in mails]}")
            time.sleep(0.1)


class Subscription:
    """A browser's push subscription: its keys are the test's, so it can read its pushes."""

    def __init__(self, endpoint: str) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.endpoint = endpoint
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.body = {"endpoint": endpoint, "expirationTime": None,
                     "keys": {"p256dh": b64(public), "auth": b64(self.auth)}}

    def decrypt(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth,
                                 version="aes128gcm")
        data: dict[str, Any] = json.loads(plain)
        return data


class PushSink:
    """A push service on loopback: keeps each request (path, headers, body); answers 201,
    or `status_for[path]`."""

    def __init__(self) -> None:
        self.port = free_port()
        self.kept: list[tuple[str, dict[str, str], bytes]] = []
        self.status_for: dict[str, int] = {}
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                sink.kept.append((self.path, dict(self.headers.items()), body))
                self.send_response(sink.status_for.get(self.path, 201))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def subscription(self, name: str) -> Subscription:
        return Subscription(f"{self.origin}/push/{name}")

    def pushes(self, sub: Subscription) -> list[dict[str, Any]]:
        path = sub.endpoint[len(self.origin):]
        return [sub.decrypt(body) for p, _h, body in list(self.kept) if p == path]

    def wait(self, sub: Subscription, predicate: Any, timeout: float = 20.0
             ) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while True:
            pushes = self.pushes(sub)
            if predicate(pushes):
                return pushes
            if time.monotonic() > deadline:
                raise AssertionError(f"pushes: {[p['title'] for p in pushes]}")
            time.sleep(0.1)


def vapid_checked(headers: dict[str, str], server_key: str, audience: str) -> dict[str, Any]:
    """RFC 8292: the Authorization header is `vapid t=JWT,k=KEY`, KEY is the server's public
    key, and the JWT is signed by it (ES256) for this push service's origin. Its claims."""
    scheme, _, rest = headers["Authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(part.split("=", 1) for part in rest.split(","))
    assert fields["k"] == server_key
    head, claims, signature = fields["t"].split(".")
    raw = unb64(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(server_key))
    public.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"),
                                       int.from_bytes(raw[32:], "big")),
                  f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    data: dict[str, Any] = json.loads(unb64(claims))
    assert data["aud"] == audience
    assert data["exp"] > time.time()
    return data


@contextlib.contextmanager
def notifying_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                     reminder_before: float | None = None, public_url: bool = True
                     ) -> Iterator[tuple[ServerProcess, MailSink, PushSink]]:
    """A real `trusis serve` on SQLite whose mail goes to a MailSink and whose pushes to a
    PushSink of the test's, polling its outbox every 0.2 s; its VAPID key in `tmp_path`."""
    mail, push = MailSink(), PushSink()
    mail.start()
    push.start()
    settings = {**mail.env(), "TRUSIS_PUSH_SERVICES": push.origin,
                "TRUSIS_NOTIFY_POLL_SECONDS": "0.2",
                "TRUSIS_VAPID_KEY_FILE": str(tmp_path / "vapid.pem")}
    if reminder_before is not None:
        settings["TRUSIS_NOTIFY_REMINDER_BEFORE_SECONDS"] = str(reminder_before)
    for key, value in settings.items():
        monkeypatch.setenv(key, value)
    database = new_database("sqlite", tmp_path)
    server = ServerProcess(database, log=tmp_path / "server.log")
    if public_url:
        server.extra = ["--public-url", server.url]
    server.start()
    try:
        yield server, mail, push
    finally:
        server.stop()
        mail.stop()
        push.stop()
        drop_database(database)
