"""`python -m trusis replay` as a subprocess (docs/record.md contract)."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROLE_IDS = {"HUMAN", "SWEEPER", "GRAVEKEEPER", "PRIEST", "WISE_WOMAN", "WHITE_KNIGHT",
            "TRUSIS", "BUTCHER", "ILLUSIONIST", "ORACLE", "BLACK_KNIGHT", "KAMIKAZE",
            "GRAVEDIGGER", "CASTAWAY"}
ROLE_NAMES = {"HUMAN": "Human", "TRUSIS": "Trusis", "SWEEPER": "Sweeper",
              "GRAVEDIGGER": "Gravedigger", "ORACLE": "Oracle", "PRIEST": "Priest"}

# Running at Night 2, with TRUSIS votes, private results and refusals by several seats.
RUNNING: dict[str, Any] = {
    "format": "trusis-record/1",
    "players": ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"],
    "deal": ["TRUSIS", "HUMAN", "SWEEPER", "TRUSIS", "GRAVEDIGGER", "ORACLE", "PRIEST",
             "HUMAN"],
    "actions": [
        {"seat": 1, "do": "vote", "target": 8},
        {"seat": 2, "do": "vote", "target": 8},
        {"seat": 3, "do": "vote", "target": 3},  # 2 refused: seat 3
        {"seat": 5, "do": "say", "text": "hi"},
        {"seat": 6, "do": "say", "text": "psst", "to": 1},
        {"seat": 7, "do": "protect", "target": 1},  # 5 refused: seat 7
        {"do": "timeout"},  # Day 1: Hal killed by the vote
        {"seat": 3, "do": "sweep", "target": 1},
        {"seat": 6, "do": "foresee", "target": 7},
        {"seat": 1, "do": "vote", "target": 2},
        {"seat": 4, "do": "vote", "target": 2},
        {"seat": 7, "do": "protect", "target": 5},
        {"seat": 8, "do": "vote", "target": 1},  # 12 refused: seat 8
        {"do": "timeout"},  # Night 1: Bob dies, the Gravedigger learns HUMAN
        {"seat": 1, "do": "vote", "target": 3},
        {"seat": 4, "do": "vote", "target": 3},
        {"seat": 5, "do": "vote", "target": 3},
        {"do": "timeout"},  # Day 2: Cid killed by the vote
        {"seat": 1, "do": "vote", "target": 7},
        {"seat": 4, "do": "vote", "target": 7},
        {"seat": 2, "do": "sweep", "target": 1},  # 20 refused: seat 2
    ],
}
REFUSED_BY = {2: 3, 5: 7, 12: 8, 20: 2}

# Finished on Day 1, then a refused timeout and a refused vote.
FINISHED: dict[str, Any] = {
    "format": "trusis-record/1",
    "players": ["Ann", "Bob", "Cid", "Dee", "Eve"],
    "deal": ["TRUSIS", "HUMAN", "HUMAN", "HUMAN", "HUMAN"],
    "actions": [
        {"seat": 2, "do": "vote", "target": 1},
        {"seat": 3, "do": "vote", "target": 1},
        {"do": "timeout"},
        {"do": "timeout"},
        {"seat": 2, "do": "say", "text": "gg"},
        {"seat": 1, "do": "vote", "target": 2},
    ],
}


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trusis", "replay", *args], input=stdin,
                          capture_output=True, text=True, check=False)


def write(tmp_path: Path, data: Any, name: str = "record.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def running_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    return write(tmp_path_factory.mktemp("running"), RUNNING)


@pytest.fixture(scope="module")
def finished_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    return write(tmp_path_factory.mktemp("finished"), FINISHED)


@functools.cache
def full_result(path: str) -> dict[str, Any]:
    return result(path)


def result(path: str, *args: str) -> dict[str, Any]:
    done = run(path, "--json", *args)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def test_played_record_with_refusals_exits_0(tmp_path: Path) -> None:
    doc = result(write(tmp_path, RUNNING))
    assert doc["format"] == "trusis-result/1"
    assert (doc["status"], doc["phase"]) == ("running", {"kind": "night", "number": 2})
    assert [r["index"] for r in doc["refused"]] == sorted(REFUSED_BY)
    assert all(isinstance(r["reason"], str) and r["reason"] for r in doc["refused"])
    assert doc["alive"] == [1, 4, 5, 6, 7]
    assert [(h["vote_killed"], h["died"]) for h in doc["history"]] == [
        (8, [8]), (None, [2]), (3, [3])]
    assert doc["votes"] == {}  # night votes are not public
    assert doc["views"]["5"]["known"] == {"1": "TRUSIS", "2": "HUMAN", "4": "TRUSIS",
                                          "5": "GRAVEDIGGER"}
    assert doc["views"]["3"]["known"] == {"1": "TRUSIS", "3": "SWEEPER"}
    assert doc["views"]["6"]["known"] == {"6": "ORACLE", "7": "PRIEST"}
    assert doc["roles"] == {str(s): r for s, r in enumerate(RUNNING["deal"], 1)}


def test_finished_record_exits_0(tmp_path: Path) -> None:
    doc = result(write(tmp_path, FINISHED))
    assert (doc["status"], doc["winner"], doc["winners"]) == ("finished", "HUMAN", [2, 3, 4, 5])
    assert (doc["passed"], doc["votes"]) == ([], {})
    assert [r["index"] for r in doc["refused"]] == [3, 5]
    everything = {str(s): r for s, r in enumerate(FINISHED["deal"], 1)}
    assert all(v["known"] == everything for v in doc["views"].values())


@pytest.mark.parametrize(
    ("data", "field"),
    [("{not json", "record"), ("[1, 2]", "record"),
     ({**FINISHED, "format": "trusis-record/9"}, "format"),
     ({k: v for k, v in FINISHED.items() if k != "format"}, "format"),
     ({**FINISHED, "players": ["Ann", "Bob"]}, "players"),
     ({**FINISHED, "deal": ["HUMAN"] * 5}, "deal"),
     ({**FINISHED, "deal": ["TRUSIS", "WIZARD", "HUMAN", "HUMAN", "HUMAN"]}, "deal[1]"),
     ({"format": "trusis-record/1", "players": [f"P{i}" for i in range(8)],
       "set": {"custom": {"ILLUSIONIST": 2, "TRUSIS": 1}}}, "set"),
     ({**FINISHED, "actions": [{"seat": 1, "do": "dance"}]}, "actions[0].do"),
     ({**FINISHED, "actions": [{"seat": 1, "do": "vote"}]}, "actions[0].target"),
     ({**FINISHED, "actions": [{"seat": 9, "do": "pass"}]}, "actions[0].seat"),
     ({**FINISHED, "actions": [{"seat": 1, "do": "say", "text": "x", "to": True}]},
      "actions[0].to")],
)
def test_malformed_record_exits_2_with_one_line(tmp_path: Path, data: Any, field: str) -> None:
    path = write(tmp_path, data)
    variants: list[tuple[str, ...]] = [(path, "--json")]
    if field in ("record", "actions[0].to"):  # also without --json, and with --as
        variants += [(path,), (path, "--as", "1", "--json")]
    for args in variants:
        done = run(*args)
        assert done.returncode == 2
        assert done.stdout == ""
        line = done.stderr.strip()
        assert "\n" not in line and field in line


@pytest.mark.parametrize(("seat", "extra"), [("99", "--json"), ("99", ""), ("0", "--json"),
                                             ("6", "--json")])
def test_as_names_no_seat_exits_2(finished_path: str, seat: str, extra: str) -> None:
    done = run(finished_path, f"--as={seat}", *([extra] if extra else []))
    assert done.returncode == 2
    assert done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line and "--as" in line


def test_as_not_an_integer_exits_2_with_one_line(finished_path: str) -> None:
    done = run(finished_path, "--as", "abc", "--json")
    assert done.returncode == 2
    assert done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line and "--as" in line


def test_reads_standard_input(tmp_path: Path) -> None:
    text = json.dumps(RUNNING)
    from_file = run(write(tmp_path, RUNNING), "--json", "--as", "5")
    from_stdin = run("-", "--json", "--as", "5", stdin=text)
    assert from_stdin.returncode == 0 and from_stdin.stdout == from_file.stdout
    bad = run("-", "--json", stdin="{")
    assert (bad.returncode, bad.stdout) == (2, "")
    assert "record" in bad.stderr


def test_human_readable_output_shows_the_same_facts(finished_path: str) -> None:
    path = finished_path
    done = run(path)
    assert done.returncode == 0 and done.stderr == ""
    text = done.stdout
    assert "Day 1" in text and "Human team wins" in text
    assert "Ann (seat 1) killed by the vote" in text
    for seat in (2, 3, 4, 5):
        assert f"{FINISHED['players'][seat - 1]} (seat {seat})" in text
    doc = full_result(path)
    for refused in doc["refused"]:
        assert f"action {refused['index']}: {refused['reason']}" in text
    lines = text.splitlines()
    for seat, role in doc["roles"].items():
        line = next(x for x in lines if x.startswith(f"  {int(seat):>2}. "))
        assert ROLE_NAMES[role] in line
        assert ("alive" if int(seat) in doc["alive"] else "dead") in line


def test_human_readable_running_game(running_path: str) -> None:
    text = run(running_path).stdout
    assert "Night 2" in text
    assert "Hal (seat 8) killed by the vote" in text
    assert "Bob (seat 2)" in text and "Cid (seat 3) killed by the vote" in text
    assert "votes for" not in text  # night votes are not public


def as_seat(path: str, full: dict[str, Any], seat: int, refused_by: dict[int, int],
            timeouts: set[int]) -> dict[str, Any]:
    doc = result(path, "--as", str(seat))
    mine = full["views"][str(seat)]
    assert doc["views"] == {str(seat): mine}
    assert doc["roles"] == {s: f for s, f in mine["known"].items() if f in ROLE_IDS}
    expected = sorted(i for i, s in refused_by.items() if s == seat) + sorted(timeouts)
    assert sorted(r["index"] for r in doc["refused"]) == sorted(expected)
    for key in ("format", "status", "phase", "winner", "winners", "composition", "alive",
                "passed", "history"):
        assert doc[key] == full[key]
    assert set(doc) <= set(full)
    return doc


@pytest.mark.parametrize("seat", range(1, 9))
def test_as_seat_leaks_nothing_while_running(running_path: str, seat: int) -> None:
    path = running_path
    full = full_result(path)
    doc = as_seat(path, full, seat, REFUSED_BY, set())
    trusis = RUNNING["deal"][seat - 1] == "TRUSIS"
    assert doc["votes"] == ({"1": 7, "4": 7} if trusis else {})
    text = run(path, "--as", str(seat)).stdout
    assert ("votes for" in text) == trusis
    for line in text.splitlines():
        for other in range(1, 9):
            if line.startswith(f"  {other:>2}. ") and str(other) not in doc["roles"]:
                assert " ? " in line
                assert ROLE_NAMES[RUNNING["deal"][other - 1]] not in line
    for other in range(1, 9):
        if other != seat:
            assert f"{RUNNING['players'][other - 1]} (seat {other}) is " not in text


def test_as_seat_known_roles_examples(running_path: str) -> None:
    path = running_path
    assert result(path, "--as", "1")["roles"] == {"1": "TRUSIS", "4": "TRUSIS"}
    assert result(path, "--as", "3")["roles"] == {"1": "TRUSIS", "3": "SWEEPER"}
    assert result(path, "--as", "6")["roles"] == {"6": "ORACLE", "7": "PRIEST"}
    assert result(path, "--as", "8")["roles"] == {"8": "HUMAN"}
    assert result(path, "--as", "8")["refused"][0]["index"] == 12


@pytest.mark.parametrize("seat", range(1, 6))
def test_as_seat_after_the_end_sees_refused_timeouts(finished_path: str, seat: int) -> None:
    path = finished_path
    full = full_result(path)
    doc = as_seat(path, full, seat, {5: 1}, {3})
    assert doc["roles"] == full["roles"]  # the end reveals every role
