"""`trusis stats`: the end-of-game table, --json, --lang, aggregates and malformed records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLE = Path(__file__).parent.parent / "examples" / "record-example.json"

# 1 Ann HUMAN, 2 Bob TRUSIS, 3 Cid PRIEST, 4 Dee HUMAN, 5 Eve HUMAN, with a clock.
# Day 1: Ann, Cid, Dee vote Bob → Bob dies → the Human team wins. Cid's refused night
# power and Ann's chat are recorded too.
RECORD: dict[str, Any] = {
    "format": "trusis-record/1",
    "players": ["Ann", "Bob", "Cid", "Dee", "Eve"],
    "deal": ["HUMAN", "TRUSIS", "PRIEST", "HUMAN", "HUMAN"],
    "started_at": 0,
    "actions": [
        {"seat": 3, "do": "protect", "target": 1, "t": 1},  # refused: a night power
        {"seat": 1, "do": "say", "text": "it's Bob", "t": 2},
        {"seat": 1, "do": "vote", "target": 2, "t": 3},
        {"seat": 3, "do": "vote", "target": 2, "t": 4},
        {"seat": 4, "do": "vote", "target": 2, "t": 5},
        {"do": "timeout", "t": 60},
    ],
}


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trusis", "stats", *args], input=stdin,
                          capture_output=True, text=True, check=False)


def write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_one_record_prints_the_end_screen(tmp_path: Path) -> None:
    done = run(write(tmp_path, "game.json", RECORD))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for text in ("Days", "Winning team", "Human", "Ann (1)", "Eve (5)", "Votes cast",
                 "Priest", "Lives saved"):
        assert text in out, text
    # limited statistics are hidden from players
    for text in ("Refused actions", "Game length", "Average seconds to pass"):
        assert text not in out
    # declaration order: Days before Nights before Winning team
    assert out.index("Days") < out.index("Nights") < out.index("Winning team")


def test_json_shape(tmp_path: Path) -> None:
    done = run(write(tmp_path, "game.json", RECORD), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert set(doc) == {"table", "players"}
    assert list(doc["players"]) == ["1", "2", "3", "4", "5"]
    for row in [*doc["table"], *(r for rows in doc["players"].values() for r in rows)]:
        assert set(row) == {"id", "name", "label", "value"}
    table = {r["name"]: r for r in doc["table"]}
    assert table["winning_team"] == {"id": 12, "name": "winning_team",
                                     "label": "Winning team", "value": "Human"}
    assert table["deaths_by_kamikaze"]["value"] == "-"
    assert table["refused_actions"]["value"] == 1  # limited: present in --json
    assert table["game_seconds"]["value"] == 60.0
    assert table["public_messages"]["value"] == 1
    ann = {r["name"]: r["value"] for r in doc["players"]["1"]}
    assert ann["role"] == "Human" and ann["won"] is True and ann["votes_cast"] == 1
    assert ann["death_day"] == "-" and ann["powers_used"] == "-"
    bob = {r["name"]: r["value"] for r in doc["players"]["2"]}
    assert bob["death_day"] == 1 and bob["survived"] is False and bob["votes_received"] == 3
    cid = {r["name"]: r["value"] for r in doc["players"]["3"]}
    assert cid["refused_actions"] == 1 and cid["saves"] == 0


@pytest.mark.parametrize(
    ("lang", "label", "value", "role"),
    [("fr", "Équipe gagnante", "Humains", "Prêtre"),
     ("it", "Squadra vincitrice", "Umani", "Parroco")],
)
def test_languages(tmp_path: Path, lang: str, label: str, value: str, role: str) -> None:
    path = write(tmp_path, "game.json", RECORD)
    doc = json.loads(run(path, "--json", "--lang", lang).stdout)
    assert {r["label"]: r["value"] for r in doc["table"]}[label] == value
    assert {r["name"]: r["value"] for r in doc["players"]["3"]}["role"] == role
    text = run(path, "--lang", lang).stdout
    assert label in text and role in text


def test_several_records_aggregate(tmp_path: Path) -> None:
    first = write(tmp_path, "a.json", RECORD)
    done = run(first, str(EXAMPLE))  # a finished game and a running one
    assert done.returncode == 0, done.stderr
    for text in ("Games", "Win rate", "Wins by team", "Wins by role", "Averages per game"):
        assert text in done.stdout, text
    doc = json.loads(run(first, str(EXAMPLE), "--json").stdout)
    assert doc["games"] == 2
    ann = doc["players"]["Ann"]
    # Ann won the first game; the example record is still running.
    assert (ann["games"], ann["wins"], ann["win_rate"]) == (2, 1, 1.0)
    assert ann["by_team"] == [{"team": "Human", "games": 2, "wins": 1, "win_rate": 1.0}]
    votes = {r["name"]: r["value"] for r in ann["averages"]}
    # 1 in the first game (for Bob); 1 in the example (for Eve, counted when Day 1 timed out)
    assert votes["votes_cast"] == 1.0
    assert votes["votes_against_opponents"] == 0.5  # Bob is an opponent, Eve is not
    fr = json.loads(run(first, str(EXAMPLE), "--json", "--lang", "fr").stdout)
    assert fr["players"]["Bob"]["by_role"][0]["role"] == "Trusis"
    # Cid was the Priest here and the Sweeper in the example (roles in §2 order)
    assert [r["role"] for r in fr["players"]["Cid"]["by_role"]] == ["Balayeur", "Prêtre"]


def test_standard_input(tmp_path: Path) -> None:
    done = run("-", "--json", stdin=json.dumps(RECORD))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["table"][0]["name"] == "days_number"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ("{not json", "record: not valid JSON"),
        ({**RECORD, "format": "x"}, "format:"),
        ({**RECORD, "players": ["A"]}, "players:"),
        ({**RECORD, "actions": [{"seat": 9, "do": "pass"}]}, "actions[0].seat:"),
    ],
)
def test_malformed_records_exit_2(tmp_path: Path, data: Any, field: str) -> None:
    good = write(tmp_path, "good.json", RECORD)
    bad = write(tmp_path, "bad.json", data)
    done = run(good, bad, "--json")  # nothing is printed, even for the good record
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and field in lines[0]


def test_missing_file_and_bad_language(tmp_path: Path) -> None:
    done = run(str(tmp_path / "nope.json"))
    assert done.returncode == 2 and done.stdout == "" and "cannot read" in done.stderr
    done = run(write(tmp_path, "game.json", RECORD), "--lang", "de")
    assert done.returncode == 2 and done.stdout == "" and "--lang" in done.stderr


def test_an_unusable_clock_is_ignored_not_malformed(tmp_path: Path) -> None:
    """`t` and `started_at` are this project's additions: a bad value means no clock."""
    data = {**RECORD, "started_at": "dawn",
            "actions": [{"seat": 1, "do": "pass", "t": "soon"}]}
    done = run(write(tmp_path, "r.json", data), "--json")
    assert done.returncode == 0, done.stderr
    assert "NaN" not in done.stdout
