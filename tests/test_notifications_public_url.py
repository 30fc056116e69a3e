"""Issue 37: a server that sends mail but was not told its public address (`--public-url`)
says so as it starts, in `trusis serve`'s output — every link of its mails would point to
http://localhost:PORT, which opens on no player's computer (docs/deploy.md,
"Notifications")."""

from __future__ import annotations

from pathlib import Path

import pytest

from notifyhelp import notifying_server

WARNING = "no public address is set"


@pytest.mark.parametrize("public_url", [False, True])
def test_mail_without_a_public_address_is_a_warning_at_start(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, public_url: bool) -> None:
    with notifying_server(tmp_path, monkeypatch, public_url=public_url) as (server, _m, _p):
        assert server.log is not None
        said = server.log.read_text("utf-8", "replace")
    warned = [line for line in said.splitlines() if WARNING in line]
    if public_url:
        assert warned == []
    else:
        assert len(warned) == 1, said
        assert "--public-url" in warned[0] and f"http://localhost:{server.port}" in warned[0]
