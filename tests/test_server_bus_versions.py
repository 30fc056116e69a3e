"""Issue 38: a rolling upgrade of a cluster dropped the new bus messages until every process
ran the new version. A message from a newer process — fields this version does not know, or
a kind it does not know — is understood or skipped, counted and logged once, never a crash
nor a silent drop (cluster/messages.py, docs/deploy.md "Upgrading a cluster")."""

from __future__ import annotations

import logging
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
from pydantic import ValidationError

from clusterproc import LEASE, METRICS_TOKEN, Cluster, start_two_processes
from serverplay import Conn
from serverproc import Guest, postgres_available
from trusis.server.cluster import messages
from trusis.server.cluster.messages import Revoked, TableFacts, decode

REVOKED = {"k": "revoked", "sender": "n-newer", "player": "p1", "family": None, "keep": None,
           "ban": True, "until": None, "reason": "threats", "deleted": False}


@pytest.fixture(autouse=True)
def fresh_counts() -> Iterator[None]:
    messages.NEWER.clear()
    messages._logged.clear()
    yield
    messages.NEWER.clear()
    messages._logged.clear()


def test_a_message_with_fields_this_version_does_not_know_is_understood_without_them(
        caplog: pytest.LogCaptureFixture) -> None:
    newer = {**REVOKED, "v": 3, "scope": "table-only", "note": {"any": "thing"}}
    with caplog.at_level(logging.WARNING, "trusis.server"):
        first = decode(orjson.dumps(newer))
        again = decode(orjson.dumps(newer))
    assert isinstance(first, Revoked) and first == again
    assert (first.player, first.ban, first.reason) == ("p1", True, "threats")
    assert messages.NEWER == {"fields": 2}
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1, said  # once per kind and fields: an upgrade sends many
    assert "'revoked'" in said[0] and "fields note, scope," in said[0]  # `v` is known (version 2)
    assert "bus version 3 (this one: 2)" in said[0]


def test_a_new_field_in_a_nested_part_is_understood_too() -> None:
    facts = {"k": "table", "status": "open", "deadline": None, "connected": [],
             "spectators": 0, "former": [], "colour": "blue",
             "seats": {"1": {"kind": "person", "name": "Ann", "player_id": "p1",
                             "bot_kind": None, "away_since": 3.0}}}
    heard = decode(orjson.dumps(facts))
    assert isinstance(heard, TableFacts) and heard.seats[1].name == "Ann"
    assert messages.NEWER == {"fields": 1}


def test_a_kind_this_version_does_not_know_is_skipped_counted_and_logged_once(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, "trusis.server"):
        assert decode(b'{"k": "kicked", "v": 2, "player": "p1"}') is None
        assert decode(b'{"k": "kicked", "v": 2, "player": "p2"}') is None
    assert messages.NEWER == {"kind": 2}
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "'kicked'" in said[0] and "skipped" in said[0], said


def test_a_malformed_message_is_still_refused_naming_its_field() -> None:
    """Tolerance is for what a newer version adds, not for a known field gone wrong."""
    with pytest.raises(ValidationError, match="ban"):
        decode(orjson.dumps({**REVOKED, "ban": [1], "extra": 1}))
    with pytest.raises(ValidationError, match="player"):
        decode(orjson.dumps({k: v for k, v in REVOKED.items() if k != "player"}))
    assert messages.NEWER == {}


def test_this_version_writes_what_the_version_before_reads() -> None:
    """Version 2 (D71's `line_hidden`) says its `v`, which version 1 reads as a field it
    does not know; this version reads its own `v` as its own, not as a newer field."""
    message = Revoked(sender="n-a", player="p1")
    sent = orjson.loads(messages.encode(message))
    assert sent["v"] == messages.BUS_VERSION == 2
    read = decode(messages.encode(message))
    assert read is not None and read.model_dump() == message.model_dump() and read.v == 2
    assert messages.NEWER == {}


# -- on a real cluster ----------------------------------------------------------------


@pytest.fixture
def metered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Cluster]:
    """Two processes with their metrics on."""
    if not postgres_available() or shutil.which("redis-server") is None:
        pytest.skip("needs the machine's PostgreSQL and redis-server")
    monkeypatch.setenv("TRUSIS_METRICS_TOKEN", METRICS_TOKEN)
    yield from start_two_processes(tmp_path, monkeypatch, LEASE)


def newer_count(url: str, what: str) -> float:
    text = httpx.get(url + "/metrics", timeout=5,
                     headers={"Authorization": f"Bearer {METRICS_TOKEN}"}).text
    series = f'trusis_bus_newer_total{{what="{what}"}} '
    line = next(x for x in text.splitlines() if x.startswith(series))
    return float(line.split()[1])


def test_a_running_process_acts_on_a_newer_process_s_revocation_and_skips_a_new_kind(
        metered: Cluster, tmp_path: Path) -> None:
    """A newer process, as Redis carries its messages: a ban's revocation with a field this
    version does not know still closes the player's connection (4423, after `banned`), and
    a kind this version does not know is skipped; the process stays healthy, and counts
    both in /metrics."""
    a, b = metered.servers
    host = Guest(a.url, "Host")
    table = host.create(seats=5, day_seconds=3600, night_seconds=1800)["id"]
    host.sit(table)
    host.bots(table, 4)
    host.start(table)
    conn = Conn(a, table, host.token).open()
    try:
        port = str(metered.redis.port)
        skip = orjson.dumps({"k": "kicked", "v": 2, "sender": "n-newer", "player": host.id})
        ban = orjson.dumps({**REVOKED, "player": host.id, "v": 2, "scope": "everything"})
        for data in (skip, ban):
            subprocess.run(["redis-cli", "-p", port, "publish", "trusis:s:revoked", data],
                           check=True, capture_output=True)
        assert conn.wait_closed() == 4423
        assert [m for m in conn.messages if m["type"] == "banned"] == [
            {"type": "banned", "until": None, "reason": "threats"}]
        for server in (a, b):
            assert httpx.get(server.url + "/api/health", timeout=5).status_code == 200
            assert newer_count(server.url, "kind") == 1
            assert newer_count(server.url, "fields") == 1
        logged = (tmp_path / "a.log").read_text(encoding="utf-8")
        assert logged.count("'kicked'") == 1 and logged.count("'revoked'") == 1
    finally:
        conn.close()
