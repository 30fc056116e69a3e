"""`trusis simulate --ladder`: every kind against every other, on both sides (issue 40)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from trusis.cli.main import app
from trusis.lab.simulate import plan, run, tally

runner = CliRunner()


def test_the_ladder_plays_every_pairing_on_the_same_seeds_and_prints_both_sides() -> None:
    result = runner.invoke(app, ["simulate", "--players", "5", "--games", "6",
                                 "--ladder", "random,heuristic", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout.strip().splitlines()[-1])
    pairs = {(r["human"], r["trusis"]): r for r in doc["ladder"]}
    assert set(pairs) == {(h, t) for h in ("random", "heuristic") for t in ("random", "heuristic")}
    # the same games as one match-up of `simulate --bots` with those kinds
    alone = tally(run(plan([5], 6, 0, None, {"HUMAN": "heuristic", "TRUSIS": "random",
                                              "CASTAWAY": "heuristic"})))
    rung = pairs[("heuristic", "random")]
    assert rung["games"] == 6 and rung["wins"]["HUMAN"] == alone[0].wins["HUMAN"]
    low, high = rung["ci95"]["HUMAN"]
    assert 0 <= low <= rung["wins"]["HUMAN"] / 6 <= high <= 1

    table = runner.invoke(app, ["simulate", "--players", "5", "--games", "4",
                                "--ladder", "random,heuristic"])
    assert table.exit_code == 0, table.output
    assert "Human team's win %" in table.stdout and "Trusis team's win %" in table.stdout
    assert "z vs random" in table.stdout


def test_a_ladder_of_unknown_or_single_kinds_names_the_option() -> None:
    bad = runner.invoke(app, ["simulate", "--ladder", "normal,nope"])
    assert bad.exit_code == 2 and "--ladder" in bad.output and "nope" in bad.output
    one = runner.invoke(app, ["simulate", "--ladder", "normal"])
    assert one.exit_code == 2 and "two or more" in one.output
