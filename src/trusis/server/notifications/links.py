"""Signed links: confirming an address, and unsubscribing from the mails in one click.

Signed with the server's secret key (itsdangerous), so a link can be neither made up nor
changed: it names its player and address. A confirmation expires (`CONFIRM_HOURS`); an
unsubscribe link never does (RFC 8058: it works as long as the mail is read), and needs no
sign-in.
"""

from __future__ import annotations

from itsdangerous import BadSignature, URLSafeTimedSerializer

CONFIRM_HOURS = 48
"""How long a confirmation link works."""


class Links:
    """Makes and reads the signed links of one server."""

    def __init__(self, secret: str, base: str) -> None:
        self.base = base.rstrip("/")
        self._confirm = URLSafeTimedSerializer(secret, salt="trusis-mail-confirm")
        self._unsubscribe = URLSafeTimedSerializer(secret, salt="trusis-mail-unsubscribe")

    def confirm_url(self, player_id: str, address: str) -> str:
        token = self._confirm.dumps([player_id, address])
        return f"{self.base}/api/notifications/confirm?token={token}"

    def read_confirm(self, token: str, hours: float = CONFIRM_HOURS) -> tuple[str, str] | None:
        try:
            player_id, address = self._confirm.loads(token, max_age=int(hours * 3600))
        except (BadSignature, ValueError, TypeError):
            return None
        return str(player_id), str(address)

    def unsubscribe_url(self, player_id: str, address: str, lang: str) -> str:
        token = self._unsubscribe.dumps([player_id, address, lang])
        return f"{self.base}/api/notifications/unsubscribe?token={token}"

    def read_unsubscribe(self, token: str) -> tuple[str, str, str] | None:
        try:
            player_id, address, lang = self._unsubscribe.loads(token)
        except (BadSignature, ValueError, TypeError):
            return None
        return str(player_id), str(address), str(lang)

    def settings_url(self) -> str:
        return f"{self.base}/settings/notifications"
