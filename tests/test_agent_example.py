"""examples/agent.py: a standalone agent that plays a seat to the end over the protocol only.

It must use nothing of the `trusis` package: its imports are checked, and it is
run in a process where importing `trusis` fails. It plays a demo table of its
own and a seat the host handed to a program, each to the end, against a real
`trusis serve`.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from serverproc import Guest, ServerProcess, running_server

AGENT = Path(__file__).resolve().parent.parent / "examples" / "agent.py"
# Runs the agent with `trusis` made unimportable: any import of it, or of a part of it, fails.
WITHOUT_TRUSIS = ("import runpy, sys; sys.modules['trusis'] = None; "
                  "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")


def run_agent(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_TRUSIS, str(AGENT), *args],
                          capture_output=True, text=True, timeout=240)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("agent")) as server:
        yield server


def test_the_agent_imports_only_the_standard_library_and_websockets() -> None:
    tree = ast.parse(AGENT.read_text("utf-8"))
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules.add(node.module.split(".")[0])
    assert "trusis" not in modules
    assert modules - set(sys.stdlib_module_names) == {"websockets"}


def _seat_actions(guest: Guest, table_id: str, seat: int) -> list[dict[str, object]]:
    reply = guest.http.get(f"/api/tables/{table_id}/record")
    assert reply.status_code == 200, reply.text  # only once the game has ended
    return [a for a in reply.json()["actions"] if a.get("seat") == seat]


def test_the_agent_plays_a_demo_table_of_its_own_to_the_end(server: ServerProcess) -> None:
    done = run_agent(server.url, "--demo", "--seats", "6", "--seed", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("demo table ") and lines[-1].startswith("the end: ")
    assert any(line.startswith("game over: ") for line in lines)
    table_id = lines[0].split()[2].rstrip(":")
    watcher = Guest(server.url, "Watcher")
    mine = _seat_actions(watcher, table_id, 1)
    assert any(a["do"] == "vote" for a in mine) and any(a["do"] == "pass" for a in mine)
    watcher.close()


def test_the_agent_plays_a_seat_the_host_handed_to_a_program(server: ServerProcess) -> None:
    host = Guest(server.url, "Host")
    table = host.create(seats=7, day_seconds=60, night_seconds=30)
    token = host.program(table["id"], 4)
    host.bots(table["id"], 6)
    host.start(table["id"])
    done = run_agent(server.url, "--table", table["id"], f"--token={token}", "--quiet")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1].startswith("the end: ") and "seat 4" in done.stdout
    assert host.http.get(f"/api/tables/{table['id']}").json()["status"] == "finished"
    assert _seat_actions(host, table["id"], 4), "the program's seat played nothing"
    host.close()


def test_a_seat_token_that_begins_with_a_dash_reaches_the_server(server: ServerProcess) -> None:
    """A seat token is URL-safe base64, so one in 64 begins with `-`: written `--token -…`,
    argparse took it for an option and the agent exited 2 before it connected (CI's failure
    of the rematch test below). Written `--token=-…`, or in TRUSIS_TOKEN, it is the token:
    this made-up one reaches the server, which refuses it as unknown."""
    table = Guest(server.url, "Host").create(seats=5)["id"]
    done = run_agent(server.url, "--table", table, "--token=-notatoken", "--quiet")
    assert done.returncode != 2 and "expected one argument" not in done.stderr
    assert "401" in done.stderr or "4401" in done.stderr, done.stderr[-2000:]


def _running(agent: subprocess.Popen[str]) -> str:
    """Why the agent is no longer running, for an assertion's message."""
    if agent.poll() is None:
        return ""
    said = agent.stderr.read()[-2000:] if agent.stderr else ""
    return f"the agent exited {agent.returncode}: {said}"


def test_the_agent_accepts_the_hosts_rematch_with_its_seat_token_and_plays_it(
        server: ServerProcess) -> None:
    """Issue 21 (D19): a program seat plays again over the protocol alone — the `rematch`
    frame, one accept with its old seat token, the new seat token from the answer."""
    host = Guest(server.url, "Host")
    first = host.create(seats=5, day_seconds=60, night_seconds=30)["id"]
    token = host.program(first, 2)
    host.bots(first, 4)
    host.start(first)
    agent = subprocess.Popen(
        [sys.executable, "-c", WITHOUT_TRUSIS, str(AGENT), server.url, "--table", first,
         f"--token={token}", "--games", "2", "--quiet"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while host.http.get(f"/api/tables/{first}").json()["status"] != "finished":
            assert agent.poll() is None, _running(agent)
            assert time.monotonic() < deadline, "no end"
            time.sleep(0.2)
        proposed = host.http.post(f"/api/tables/{first}/rematch")
        assert proposed.status_code == 200, proposed.text
        second = proposed.json()["table"]["id"]
        while host.http.get(f"/api/tables/{second}").json()["seats"][1]["kind"] != "program":
            assert agent.poll() is None, _running(agent)
            assert time.monotonic() < deadline, "not accepted"
            time.sleep(0.2)
        host.start(second)
        out, err = agent.communicate(timeout=180)
    finally:
        if agent.poll() is None:
            agent.kill()
    assert agent.returncode == 0, err[-2000:]
    lines = out.splitlines()
    assert f"rematch at table {second}" in lines
    assert [line.startswith("the end: ") for line in lines].count(True) == 2
    assert _seat_actions(host, second, 2), "the program's new seat played nothing"
    host.close()


def test_the_agent_connects_again_when_its_server_goes_away_and_plays_on(
        tmp_path: Path) -> None:
    """A connection that ends (a restart here; a process of several that lost its database
    or Redis closes with 1012, issue 41) is made again with `last_seq`, and the command
    that had no answer is sent again with the same id: the agent plays to the end."""
    server = ServerProcess(f"sqlite:///{tmp_path / 'trusis.db'}", bot_pace=0.3)
    server.start()
    try:
        host = Guest(server.url, "Host")
        table = host.create(seats=6, day_seconds=60, night_seconds=30)["id"]
        token = host.program(table, 3)
        host.bots(table, 5)
        host.start(table)
        agent = subprocess.Popen(
            [sys.executable, "-c", WITHOUT_TRUSIS, str(AGENT), server.url, "--table", table,
             f"--token={token}"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 30
            while not host.http.get(f"/api/tables/{table}").json()["seats"][2]["connected"]:
                assert agent.poll() is None, _running(agent)
                assert time.monotonic() < deadline, "the agent did not connect"
                time.sleep(0.1)
            host.close()
            server.kill()
            time.sleep(1.0)
            server.start()
            out, err = agent.communicate(timeout=180)
        finally:
            if agent.poll() is None:
                agent.kill()
    finally:
        server.stop()
    assert agent.returncode == 0, err[-2000:]
    assert "connecting again" in out or "trying again" in out, out[-2000:]
    assert out.splitlines()[-1].startswith("the end: ")
