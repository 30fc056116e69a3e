"""`trusis stats` over several records names the unfinished games and leaves them out of
the wins (issue 12)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from trusis import parse_record
from trusis.stats import aggregate, score, shipped_declaration

PLAYERS = ["Ann", "Bob", "Cid", "Dee", "Eve"]
DEAL = ["HUMAN", "TRUSIS", "HUMAN", "HUMAN", "HUMAN"]
FINISHED = [{"seat": s, "do": "vote", "target": 2} for s in (1, 3, 4)] + [{"do": "timeout"}]
RUNNING = [{"seat": 1, "do": "vote", "target": 2}]


def record(actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {"format": "trusis-record/1", "players": PLAYERS, "deal": DEAL, "actions": actions}


def test_unfinished_games_are_named_and_left_out_of_the_wins() -> None:
    stored = [score(parse_record(record(a))).stored() for a in (FINISHED, RUNNING, RUNNING)]
    history = aggregate(stored, shipped_declaration(), ["a.json", "b.json", "c.json"])
    assert history.unfinished == ["b.json", "c.json"]
    doc = history.as_json()
    assert (doc["games"], doc["finished"], doc["unfinished"]) == (3, 1, ["b.json", "c.json"])
    ann = doc["players"]["Ann"]
    assert (ann["games"], ann["finished"], ann["wins"], ann["win_rate"]) == (3, 1, 1, 1.0)
    bob = doc["players"]["Bob"]
    assert (bob["finished"], bob["wins"], bob["win_rate"]) == (1, 0, 0.0)


def run_stats(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trusis", "stats", *args], capture_output=True,
                          text=True, check=False, timeout=60)


def test_the_command_lists_the_unfinished_records(tmp_path: Path) -> None:
    paths = []
    for name, actions in (("done.json", FINISHED), ("cut.json", RUNNING)):
        path = tmp_path / name
        path.write_text(json.dumps(record(actions)), "utf-8")
        paths.append(str(path))
    done = run_stats(*paths)
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert f"Unfinished, left out of the wins: {paths[1]}" in out
    assert paths[0] not in out
    assert "Finished games" in out
    as_json = json.loads(run_stats(*paths, "--json").stdout)
    assert as_json["unfinished"] == [paths[1]]
    assert as_json["players"]["Ann"]["wins"] == 1
