"""E-mail through the SMTP server the operator configures (aiosmtplib).

The settings come from the environment (docs/deploy.md, "Notifications"): host, port,
STARTTLS or implicit TLS, user, and a password given as `TRUSIS_SMTP_PASSWORD` or read from
`TRUSIS_SMTP_PASSWORD_FILE` (a secret mounted as a file). Every mail carries a stable
Message-ID made of its delivery's id, so that a mail sent again after a crash (outbox.py)
is the same message to the servers and programs that drop duplicates, and RFC 8058's
one-click unsubscribe headers.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate
from pathlib import Path
from typing import Literal

import aiosmtplib

from trusis.server.notifications.texts import Words, say

Security = Literal["starttls", "tls", "none"]


class MailSettingsError(ValueError):
    """A mail setting that does not fit: the message names the variable."""


@dataclass(frozen=True)
class MailSettings:
    host: str
    port: int = 587
    security: Security = "starttls"
    user: str | None = None
    password: str | None = None
    sender: str = "Trusis <trusis@localhost>"
    timeout: float = 20.0
    """Seconds for one whole SMTP exchange: a slow server fails the try, never the game."""

    @property
    def domain(self) -> str:
        """The sender's domain: the right side of every Message-ID."""
        address = self.sender.rsplit("<", 1)[-1].rstrip(">")
        return address.rpartition("@")[2] or "localhost"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> MailSettings | None:
        """The operator's SMTP settings, or None when `TRUSIS_SMTP_HOST` is not set (no
        e-mail: the settings page offers browser notifications only)."""
        env = dict(os.environ) if env is None else env
        host = env.get("TRUSIS_SMTP_HOST", "").strip()
        if not host:
            return None
        security = env.get("TRUSIS_SMTP_SECURITY", "starttls").strip().lower()
        if security not in ("starttls", "tls", "none"):
            raise MailSettingsError("TRUSIS_SMTP_SECURITY: starttls, tls or none")
        default_port = {"starttls": "587", "tls": "465", "none": "25"}[security]
        try:
            port = int(env.get("TRUSIS_SMTP_PORT", default_port))
            timeout = float(env.get("TRUSIS_SMTP_TIMEOUT", "20"))
        except ValueError:
            raise MailSettingsError("TRUSIS_SMTP_PORT and TRUSIS_SMTP_TIMEOUT are numbers") \
                from None
        if not 0 < port < 65536:
            raise MailSettingsError("TRUSIS_SMTP_PORT: a port from 1 to 65535")
        password = env.get("TRUSIS_SMTP_PASSWORD") or None
        if file := env.get("TRUSIS_SMTP_PASSWORD_FILE", "").strip():
            try:
                password = Path(file).read_text("utf-8").strip()
            except OSError as err:
                raise MailSettingsError(
                    f"TRUSIS_SMTP_PASSWORD_FILE: cannot read {file}: {err.strerror}") from None
        sender = env.get("TRUSIS_MAIL_FROM", "").strip() or f"Trusis <trusis@{host}>"
        return cls(host=host, port=port, security=security,  # type: ignore[arg-type]
                   user=env.get("TRUSIS_SMTP_USER") or None, password=password,
                   sender=sender, timeout=max(1.0, timeout))


def message(settings: MailSettings, to: str, delivery_id: str, lang: str,
            parts: list[Words], subject: str, unsubscribe: str, settings_url: str,
            intro: str | None = None) -> EmailMessage:
    """One mail: plain text, in the player's language, with a stable Message-ID and the
    one-click unsubscribe headers (RFC 2369, RFC 8058)."""
    mail = EmailMessage()
    mail["From"] = settings.sender
    mail["To"] = to
    mail["Subject"] = subject
    mail["Date"] = formatdate(localtime=False)
    mail["Message-ID"] = f"<{delivery_id}@{settings.domain}>"
    mail["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies, please
    if unsubscribe:
        mail["List-Unsubscribe"] = f"<{unsubscribe}>"
        mail["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    blocks = [intro] if intro else []
    for part in parts:
        lines = ([part["subject"]] if len(parts) > 1 else []) + part["lines"]
        lines.append(say(lang, "line.open", url=part["url"]))
        blocks.append("\n".join(lines))
    footer = say(lang, "footer", settings=settings_url, unsubscribe=unsubscribe) \
        if unsubscribe else ""
    mail.set_content("\n\n".join(blocks) + ("\n\n-- \n" + footer if footer else "") + "\n")
    mail["Content-Language"] = lang  # after the content, which sets the Content-* headers
    return mail


async def send(settings: MailSettings, mail: EmailMessage) -> None:
    """Hand one mail to the SMTP server; raises on any failure, or TimeoutError once the
    whole exchange has lasted `settings.timeout`. aiosmtplib's own timeout bounds each
    answer only: a server answering each of a dozen steps just in time held a send for
    minutes, past the claim it was sent under (outbox.py)."""
    async with asyncio.timeout(settings.timeout):
        await aiosmtplib.send(
            mail, hostname=settings.host, port=settings.port,
            username=settings.user, password=settings.password,
            use_tls=settings.security == "tls", start_tls=settings.security == "starttls",
            timeout=settings.timeout)
