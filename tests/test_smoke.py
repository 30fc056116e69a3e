"""A first end-to-end check: the docs/record.md example replays to its documented output."""

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).parent.parent / "examples" / "record-example.json"

EXPECTED = {
    "format": "trusis-result/1",
    "status": "running",
    "phase": {"kind": "night", "number": 1},
    "winner": None,
    "winners": [],
    "composition": {"HUMAN": 2, "TRUSIS": 1, "SWEEPER": 1, "BUTCHER": 1},
    "roles": {"1": "HUMAN", "2": "TRUSIS", "3": "SWEEPER", "4": "BUTCHER", "5": "HUMAN"},
    "alive": [1, 2, 3, 4],
    "passed": [],
    "votes": {},
    "history": [
        {"phase": {"kind": "day", "number": 1}, "vote_killed": 5, "died": [5], "revived": []}
    ],
    "refused": [{"index": 7, "reason": "seat 5 is dead"}],
    "views": {
        "1": {"role": "HUMAN", "known": {"1": "HUMAN"}},
        "2": {"role": "TRUSIS", "known": {"2": "TRUSIS"}},
        "3": {"role": "SWEEPER", "known": {"3": "SWEEPER", "4": "NEITHER"}},
        "4": {"role": "BUTCHER", "known": {"4": "BUTCHER"}},
        "5": {"role": "HUMAN", "known": {"5": "HUMAN"}},
    },
}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "trusis", *args], capture_output=True, text=True, check=False
    )


def test_record_example_replays_to_documented_output() -> None:
    done = run("replay", str(EXAMPLE), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    for entry in doc["refused"]:  # added fields are allowed by docs/record.md
        entry.pop("code")
        entry.pop("params")
    assert doc == EXPECTED


def test_record_example_as_seat_2() -> None:
    done = run("replay", str(EXAMPLE), "--as", "2", "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["roles"] == {"2": "TRUSIS"}
    assert doc["votes"] == {"2": 3}
    assert doc["refused"] == []
    assert list(doc["views"]) == ["2"]
