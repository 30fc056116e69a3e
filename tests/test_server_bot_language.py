"""Bots speak the table's language: the one its host's page had when the table was made
(docs/bots.md). A French table's bots said "Good luck, everyone." before."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from serverplay import Conn
from serverproc import Guest, ServerProcess, running_server
from trusis.bots.chat import TEMPLATES


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path) as running:
        yield running


def _constant_lines(lang: str) -> set[str]:
    """The templates of `lang` that name nobody: said word for word."""
    return {t for kinds in TEMPLATES[lang].values() for t in kinds if "{" not in t}


def test_bots_chat_in_the_tables_language(server: ServerProcess) -> None:
    host = Guest(server.url, "Hote")
    table = host.create(seats=12, lang="fr", day_seconds=30, night_seconds=15)
    assert table["options"]["lang"] == "fr"
    assert next(t for t in host.http.get("/api/tables").json()["tables"]
                if t["id"] == table["id"])["options"]["lang"] == "fr"
    host.bots(table["id"], 12)
    host.start(table["id"])
    watcher = Conn(server, table["id"], host.token)
    try:
        watcher.until(lambda p: p.view is not None and p.view["status"] == "finished", 120)
    finally:
        watcher.close()
    record = host.http.get(f"/api/tables/{table['id']}/record").json()
    said = [a["text"] for a in record["actions"] if a["do"] == "say"]
    assert said, "twelve bots said nothing in a whole game"
    english = _constant_lines("en") - _constant_lines("fr")
    assert not [line for line in said if line in english], said
    assert any(line.isascii() is False or line in _constant_lines("fr") for line in said), said


def test_a_table_in_a_language_the_server_does_not_speak_is_refused(
        server: ServerProcess) -> None:
    reply = Guest(server.url, "Hote").http.post("/api/tables", json={"name": "t", "lang": "xx"})
    assert reply.status_code == 422 and "lang" in reply.text
