"""Prometheus metrics of a real `trusis serve` (docs/deploy.md, "Metrics"): private by
default, on a port of their own or behind a token, parsed by the client library's own
parser, and moving with a game played through the protocol."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from serverproc import (
    Guest,
    Player,
    ServerProcess,
    drop_database,
    free_port,
    new_database,
    postgres_available,
)
from test_server_game import _play_to_the_end

TOKEN = "a-metrics-token-of-some-length"
ROOT = Path(__file__).resolve().parent.parent
needs_cluster = pytest.mark.skipif(
    not postgres_available() or shutil.which("redis-server") is None,
    reason="several processes need PostgreSQL (TRUSIS_TEST_POSTGRES) and redis-server")


def figures(text: str) -> dict[str, float]:
    """Every sample, by name and labels: `name{a="x"}` (the parser's own reading)."""
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items())
                              if k != "le")
            if "le" in sample.labels:
                continue  # the buckets: their counts are checked through _count
            out[sample.name + (f"{{{labels}}}" if labels else "")] = sample.value
    return out


@pytest.fixture
def metered(tmp_path: Path) -> Iterator[tuple[ServerProcess, int]]:
    port = free_port()
    server = ServerProcess(new_database("sqlite", tmp_path),
                           extra=["--metrics-port", str(port)])
    server.start()
    try:
        yield server, port
    finally:
        server.stop()


def scrape(port: int) -> dict[str, float]:
    reply = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5)
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/plain")
    return figures(reply.text)


def sample_names(port: int) -> set[str]:
    """The name of every sample served, the histograms' buckets included."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
    return {s.name for f in text_string_to_metric_families(text) for s in f.samples}


def test_metrics_move_with_a_game_played_to_the_end(metered: tuple[ServerProcess, int]) -> None:
    server, port = metered
    before = scrape(port)
    assert before["trusis_actions_total"] == 0
    assert before['trusis_tables{status="running"}'] == 0
    ann = Guest(server.url, "Ann")
    table = ann.create(seats=5, day_seconds=60, night_seconds=30)
    assert ann.sit(table["id"]) == 1
    ann.bots(table["id"], 4)
    ann.start(table["id"])
    player = Player(server, table["id"], ann.token)
    player.until(lambda p: p.view is not None)
    during = scrape(port)
    assert during['trusis_tables{status="running"}'] == 1
    assert during['trusis_connections{kind="seat"}'] == 1
    assert during["trusis_players_connected"] == 1
    # The chat budget (docs/protocol.md, `rate_limited`): a burst past its 8 messages.
    for n in range(12):
        player.send(f"burst{n}", do="say", text=f"hello {n}")
    player.until(lambda p: all(f"burst{n}" in p.answers for n in range(12)))
    assert any(a["code"] == "rate_limited" for a in player.answers.values()
               if a["type"] == "refused")
    _play_to_the_end(player)
    player.close()
    after = scrape(port)
    assert after["trusis_actions_total"] > 10
    assert after["trusis_tables_finished_total"] == 1
    assert after['trusis_tables{status="running"}'] == 0
    assert after['trusis_ack_seconds_count{answer="ack"}'] > 0
    assert after['trusis_ack_seconds_sum{answer="ack"}'] > 0
    assert after["trusis_broadcast_seconds_count"] > after["trusis_actions_total"]
    assert after["trusis_commit_seconds_count"] > 0
    # every stored action waited for its commit once (a commit holds one or more)
    assert after["trusis_store_wait_seconds_count"] >= after["trusis_commit_seconds_count"]
    assert after["trusis_store_wait_seconds_count"] == after["trusis_actions_total"]
    # The loop's lag is sampled every 0.25 s (lag.py) while the server runs; a game of bots
    # can end in less than that since the commits no longer wait for the loop (CI on 5
    # December: the same count before and after), so wait for the next sample.
    waited = time.monotonic() + 15  # a sample every 0.25 s, later on a loaded machine
    while scrape(port)["trusis_loop_lag_seconds_count"] <= \
            before["trusis_loop_lag_seconds_count"]:
        assert time.monotonic() < waited, "the loop's lag was not sampled for 15 s"
        time.sleep(0.05)
    assert after['trusis_rate_limited_total{limit="chat"}'] >= 1
    assert after["trusis_commit_queue"] == 0 and after["trusis_send_queue"] == 0
    assert "trusis_leases_owned" not in after  # one process: no leases


def test_the_metrics_port_serves_metrics_only_and_the_main_port_none(
        metered: tuple[ServerProcess, int]) -> None:
    server, port = metered
    assert httpx.get(f"http://127.0.0.1:{port}/api/health").status_code == 404
    assert httpx.get(f"http://127.0.0.1:{port}/").status_code == 404
    assert httpx.get(f"{server.url}/metrics").status_code == 404  # no token given: none here
    assert httpx.get(f"{server.url}/api/health").status_code == 200


def test_metrics_are_off_by_default_and_a_token_opens_them_on_the_main_port(
        tmp_path: Path) -> None:
    plain = ServerProcess(new_database("sqlite", tmp_path / "a"))
    (tmp_path / "a").mkdir()
    plain.start()
    try:
        assert httpx.get(f"{plain.url}/metrics").status_code == 404
        assert httpx.get(f"{plain.url}/metrics", headers={
            "Authorization": f"Bearer {TOKEN}"}).status_code == 404
    finally:
        plain.stop()
    (tmp_path / "b").mkdir()
    guarded = ServerProcess(new_database("sqlite", tmp_path / "b"),
                            extra=["--metrics-token", TOKEN])
    guarded.start()
    try:
        assert httpx.get(f"{guarded.url}/metrics").status_code == 401
        assert httpx.get(f"{guarded.url}/metrics", headers={
            "Authorization": "Bearer wrong-token-of-some-length"}).status_code == 401
        reply = httpx.get(f"{guarded.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert reply.status_code == 200
        assert figures(reply.text)['trusis_tables{status="open"}'] == 0
    finally:
        guarded.stop()


@pytest.fixture
def metered_pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                 ) -> Iterator[list[tuple[ServerProcess, int]]]:
    """Two processes on one PostgreSQL and a Redis (as clusterproc.two_processes), each
    with a metrics port of its own."""
    from clusterproc import LEASE, RedisServer

    monkeypatch.setenv("TRUSIS_SECRET", "the same secret on every process")
    redis = RedisServer()
    redis.start()
    database = new_database("postgresql", tmp_path)
    pair = []
    for name in ("a", "b"):
        port = free_port()
        pair.append((ServerProcess(database, extra=[
            "--redis", redis.url, "--node", name, "--lease-seconds", str(LEASE),
            "--metrics-port", str(port)]), port))
    try:
        for server, _ in pair:
            server.start()
        yield pair
    finally:
        for server, _ in pair:
            server.stop()
        redis.kill()
        drop_database(database)


@needs_cluster
def test_leases_owned_and_taken_over_and_every_documented_query_names_real_metrics(
        metered_pair: list[tuple[ServerProcess, int]]) -> None:
    (a, a_port), (_b, b_port) = metered_pair
    ann = Guest(a.url, "Ann")
    table = ann.create(seats=5, day_seconds=600, night_seconds=600)
    ann.sit(table["id"])
    ann.bots(table["id"], 4)
    ann.start(table["id"])
    first_a, first_b = scrape(a_port), scrape(b_port)
    assert first_a["trusis_leases_owned"] == 1 and first_b["trusis_leases_owned"] == 0
    assert first_a["trusis_redis_up"] == 1
    assert first_b["trusis_leases_taken_over_total"] == 0
    a.kill()  # process a dies: b takes its game over once the lease expires
    deadline = time.monotonic() + 30
    while scrape(b_port)["trusis_leases_taken_over_total"] < 1:
        assert time.monotonic() < deadline, "b did not take the game over"
        time.sleep(0.5)
    after = scrape(b_port)
    assert after["trusis_leases_owned"] == 1
    assert after['trusis_tables{status="running"}'] == 1
    # Every metric the documentation's queries and the Grafana dashboard name is served.
    served = sample_names(b_port)  # b has served every kind of metric by now
    dashboard = json.loads((ROOT / "deploy/grafana-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    doc = (ROOT / "docs/deploy.md").read_text()
    exprs += re.findall(r"```promql\n(.*?)```", doc, re.S)
    named = {n for e in exprs for n in re.findall(r"\btrusis_[a-z_]+", e)}
    assert named and named <= served, named - served
    ann.close()


@pytest.mark.parametrize(("options", "said"), [
    (["--metrics-token", "short"], "16 characters"),
    (["--port", "8123", "--metrics-port", "8123"], "must differ from --port"),
    (["--log-format", "xml"], "--log-format"),
])
def test_bad_metrics_and_log_options_are_refused_before_anything_starts(
        options: list[str], said: str, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "trusis", "serve", "--database",
                           f"sqlite:///{tmp_path / 'never.db'}", *options],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, COLUMNS="200", NO_COLOR="1", TERM="dumb"))
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not (tmp_path / "never.db").exists()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="process metrics read /proc")
def test_process_metrics_are_the_serving_process_own(metered: tuple[ServerProcess, int]) -> None:
    """Issue 38: CPU seconds, resident memory, open file descriptors and the start time, as
    every Prometheus exporter serves them, and they are the server's, not the scraper's."""
    server, port = metered
    assert server.proc is not None
    got = scrape(port)
    for name in ("process_cpu_seconds_total", "process_resident_memory_bytes",
                 "process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
                 "process_start_time_seconds"):
        assert name in got, name
    assert got["process_cpu_seconds_total"] > 0
    assert got["process_resident_memory_bytes"] > 10 * 2**20  # a Python server, not nothing
    assert abs(got["process_open_fds"] - len(os.listdir(f"/proc/{server.proc.pid}/fd"))) <= 3
    # The start time is the server process's (started for this test), not the test runner's.
    assert abs(got["process_start_time_seconds"] - _started(server.proc.pid)) < 1
    assert got["process_start_time_seconds"] > _started(os.getpid())


def _started(pid: int) -> float:
    """A process's start, in seconds since the epoch, from /proc (boot time + ticks)."""
    boot = next(float(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                if line.startswith("btime "))
    ticks = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    return boot + ticks / os.sysconf("SC_CLK_TCK")
