"""One server process per SQLite file. Two `trusis serve` on one file each kept their own
games in memory (a table made on one was never listed by the other, and both wrote the
same rows), and two started together on a new file raced to create its schema, one dying
with a traceback ("table players already exists"). The second now stops at once, saying
why, and the first serves on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from serverproc import running_server


def test_a_second_server_on_the_same_sqlite_file_stops_and_says_why(tmp_path: Path) -> None:
    with running_server("sqlite", tmp_path) as first:
        second = subprocess.run(
            [sys.executable, "-m", "trusis", "serve", "--database", first.database,
             "--port", "0"], capture_output=True, text=True, timeout=60, check=False)
        assert second.returncode == 2, second
        said = second.stderr.strip()
        assert "already" in said and "trusis.db" in said and "PostgreSQL" in said, said
        assert "Traceback" not in second.stderr and len(said.splitlines()) <= 3, said
        assert httpx.get(f"{first.url}/api/health", timeout=5).status_code == 200


def test_two_servers_started_together_on_a_new_file_one_serves(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    both = [subprocess.Popen(
        [sys.executable, "-m", "trusis", "serve", "--database", url, "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for port in (0, 0)]
    try:
        stopped = None
        for _ in range(600):
            done = [p for p in both if p.poll() is not None]
            if done:
                stopped = done[0]
                break
            subprocess.run(["sleep", "0.1"], check=True)
        assert stopped is not None, "neither stopped: both serve one file"
        assert stopped.returncode == 2
        _, err = stopped.communicate(timeout=10)
        assert "Traceback" not in err and "already" in err, err
    finally:
        for process in both:
            process.terminate()
            process.wait(timeout=20)
