"""Issue 7: bad input never crashes — records, command-line options and the engine's API.

Each case the fuzz campaign found has a test here: the commands exit 0 with strict
JSON or exit 2 with one line on standard error and nothing on standard output; the
engine answers with a result or a refusal (`IllegalAction`, `SetupError`); names
are cleaned as chat is (D9).
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from trusis import Action, Game, IllegalAction, RecordError, SetupError, apply, new_game
from trusis.rules.engine import MAX_MESSAGE
from trusis.table.game import replay
from trusis.table.record import load_record, parse_record

EXAMPLE: dict[str, Any] = json.loads(
    (Path(__file__).parent.parent / "examples" / "record-example.json").read_text("utf-8"))
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve"]
HUGE = "9" * 5000


def record(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(EXAMPLE)
    data.update(changes)
    return data


def trusis(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trusis", *args], input=stdin,
                          capture_output=True, text=True, encoding="utf-8", check=False)


def strict(text: str) -> Any:
    """RFC 8259 JSON: Infinity and NaN are not JSON."""
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def assert_ok(done: subprocess.CompletedProcess[str], as_json: bool = False) -> str:
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    if as_json:
        strict(done.stdout)
    return done.stdout


def assert_malformed(done: subprocess.CompletedProcess[str], field: str = "") -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: "), done.stderr
    assert done.stderr.startswith(f"error: {field}"), done.stderr
    return done.stderr


COMMANDS = [("replay", "-"), ("replay", "-", "--json"), ("replay", "-", "--as", "2"),
            ("stats", "-"), ("stats", "-", "--json")]


# -- records: integers over 4,300 digits ------------------------------------------


def with_huge(where: str) -> str:
    """The example record with a 5,000-digit integer at `where`."""
    data = record(x=0)
    data["actions"][0]["t"] = 0
    text = json.dumps(data)
    marker = {"x": '"x": 0', "seed": '"seed": 7', "t": '"t": 0',
              "target": '"target": 5'}[where]
    assert marker in text
    return text.replace(marker, marker.rsplit(" ", 1)[0] + " " + HUGE, 1)


@pytest.mark.parametrize(("where", "field"), [
    ("x", "x"), ("seed", "seed"), ("t", "actions[0].t"), ("target", "actions[0].target")])
@pytest.mark.parametrize("command", [("replay", "-"), ("stats", "-", "--json")])
def test_a_5000_digit_integer_is_malformed_naming_its_field(
        where: str, field: str, command: tuple[str, ...]) -> None:
    err = assert_malformed(trusis(*command, stdin=with_huge(where)), f"{field}:")
    assert "4300 digits" in err


def test_huge_integers_do_not_depend_on_the_interpreter_limit() -> None:
    old = sys.get_int_max_str_digits()
    try:
        for limit in (0, 100_000):  # unlimited, or above 4300: still malformed
            sys.set_int_max_str_digits(limit)
            with pytest.raises(RecordError, match=r"^x: is an integer of more than 4300"):
                load_record(with_huge("x"))
        text = json.dumps(record(x=0)).replace('"x": 0', '"x": ' + "7" * 2000)
        sys.set_int_max_str_digits(1000)  # below: what this interpreter cannot read
        with pytest.raises(RecordError, match=r"^x: is an integer of more than 1000 digits"):
            load_record(text)
    finally:
        sys.set_int_max_str_digits(old)


def test_huge_seed_through_the_api_is_refused() -> None:
    with pytest.raises(RecordError, match=r"^seed:"):
        parse_record(record(seed=10**5000))
    with pytest.raises(SetupError) as err:
        new_game(NAMES, 10**5000)
    assert err.value.code == "bad_seed"


# -- records: clocks that no float holds ------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_t_and_started_at_of_10_to_the_400_mean_no_clock(command: tuple[str, ...]) -> None:
    data = record(started_at=10**400)
    for action in data["actions"]:
        action["t"] = 10**400
    done = trusis(*command, stdin=json.dumps(data))
    assert_ok(done, "--json" in command)
    if command == ("stats", "-", "--json"):
        rows = {row["name"]: row["value"] for row in strict(done.stdout)["table"]}
        assert rows["game_seconds"] in (None, "-")  # no clock: the timed statistics are unset


def test_a_clock_spanning_every_float_prints_strict_json(tmp_path: Path) -> None:
    data = record()
    data["actions"][0]["t"] = -1e308
    data["actions"][-1]["t"] = 1e308  # the difference overflows to infinity
    out = assert_ok(trusis("stats", "-", "--json", stdin=json.dumps(data)), as_json=True)
    assert "Infinity" not in out and "NaN" not in out
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    two = assert_ok(trusis("stats", str(path), str(path), "--json", stdin=""), as_json=True)
    assert "Infinity" not in two and "NaN" not in two


# -- records: names -------------------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_a_lone_surrogate_in_a_name_does_not_crash_the_output(command: tuple[str, ...]) -> None:
    data = record(players=["Ann\ud800", *NAMES[1:]])
    out = assert_ok(trusis(*command, stdin=json.dumps(data)), "--json" in command)
    assert "\ud800" not in out


def test_a_name_cannot_forge_a_line_of_the_replay_screen() -> None:
    forged = "Ann\n  2. Bob   Trusis   alive"
    data = record(players=[forged, *NAMES[1:]])
    out = assert_ok(trusis("replay", "-", "--as", "2", stdin=json.dumps(data)))
    lines = out.splitlines()
    seat_lines = [line for line in lines if re.match(r"\s+\d+\. ", line)]
    assert len(seat_lines) == 5
    assert seat_lines[0].startswith("   1. Ann 2. Bob Trusis alive")
    assert parse_record(data).players[0] == "Ann 2. Bob Trusis alive"


@pytest.mark.parametrize(("name", "clean"), [
    ("  Ann  ", "Ann"), ("A\tn\nn", "A n n"), ("Ann\r\n\x00 Lee", "Ann Lee"),
    ("Ann\ud800", "Ann"), ("Zoë\u2028", "Zoë")])
def test_names_are_cleaned_as_chat_is(name: str, clean: str) -> None:
    assert parse_record(record(players=[name, *NAMES[1:]])).players[0] == clean
    assert new_game([name, *NAMES[1:]]).names[1] == clean
    assert Game([name, *NAMES[1:]]).record.players[0] == clean


@pytest.mark.parametrize("name", ["", " ", "\n", "\x00\t", "\ud800"])
def test_a_name_empty_once_cleaned_is_refused(name: str) -> None:
    with pytest.raises(RecordError, match=r"^players\[2\]:"):
        parse_record(record(players=["Ann", "Bob", name, "Dee", "Eve"]))
    with pytest.raises(SetupError) as err:
        new_game(["Ann", "Bob", name, "Dee", "Eve"])
    assert err.value.code == "bad_name" and "seat 3" in str(err.value)


@pytest.mark.parametrize("players", ["AnnBobCidDeeEve", None, 5, [1, 2, 3, 4, 5],
                                     [b"Ann", "Bob", "Cid", "Dee", "Eve"]])
def test_new_game_refuses_players_that_are_not_names(players: Any) -> None:
    with pytest.raises(SetupError) as err:
        new_game(players)
    assert err.value.code in {"bad_players", "bad_name", "too_few_players"}


def test_replace_by_in_a_record_is_cleaned_and_an_empty_one_is_malformed() -> None:
    actions = [{"seat": 4, "do": "leave"}, {"seat": 4, "do": "replace", "by": " Zed\n"}]
    played = replay(parse_record(record(actions=actions)))
    assert not played.refused and played.state.names[4] == "Zed"
    for by in ("\n", " ", "\x00", 5, b"x"):
        bad = [{"seat": 4, "do": "leave"}, {"seat": 4, "do": "replace", "by": by}]
        with pytest.raises(RecordError, match=r"^actions\[1\]\.by:"):
            parse_record(record(actions=bad))


# -- records: custom sets --------------------------------------------------------------


@pytest.mark.parametrize("key", ["TRU\nSIS", "PRIEST\n\nerror: forged", "A\ud800", "\r"])
def test_a_custom_role_key_is_quoted_on_one_line(key: str) -> None:
    data = record(set={"custom": {key: 1}})
    del data["deal"]
    err = assert_malformed(trusis("replay", "-", stdin=json.dumps(data)), "set.custom[")
    assert repr(key) in err or "\\u" in err or "\\ud800" in err


def test_setup_errors_quote_odd_role_ids() -> None:
    with pytest.raises(SetupError) as err:
        new_game(NAMES, custom={"A\nB": 1})
    assert "\n" not in str(err.value) and "'A\\nB'" in str(err.value)
    with pytest.raises(SetupError) as err:
        new_game(NAMES, deal=[["x"], "HUMAN", "HUMAN", "TRUSIS", "HUMAN"])
    assert err.value.code == "unknown_role"
    for custom in ([("TRUSIS", 1)], "TRUSIS", 5):
        with pytest.raises(SetupError) as err:
            new_game(NAMES, custom=custom)  # type: ignore[arg-type]
        assert err.value.code == "bad_set"
    with pytest.raises(SetupError) as err:
        new_game(NAMES, custom={"TRUSIS": 10**5000})
    assert "\n" not in str(err.value) and len(str(err.value)) < 200
    with pytest.raises(SetupError) as err:
        new_game(NAMES, deal=5)  # type: ignore[arg-type]
    assert err.value.code == "bad_deal"


# -- the command line: --as --------------------------------------------------------------


@pytest.mark.parametrize("value", ["²", "３", pytest.param(HUGE, id="huge"), "0", "6", "-1",
                                   "1.0", "", " ", "Zed", "\n", "\x7f"])
def test_as_that_names_no_seat_is_one_line_exit_2(value: str) -> None:
    stdin = json.dumps(EXAMPLE)
    for extra in ((), ("--json",)):
        err = assert_malformed(trusis("replay", "-", "--as", value, *extra, stdin=stdin), "--as:")
        assert len(err) < 300


@pytest.mark.parametrize(("value", "seat"), [
    ("3", 3), (" 3 ", 3), ("#3", 3), ("03", 3), ("Cid", 3), ("cid", 3), ("CI", 3), ("e", 5)])
def test_as_takes_a_seat_number_or_a_name(value: str, seat: int) -> None:
    doc = strict(assert_ok(trusis("replay", "-", "--as", value, "--json",
                                  stdin=json.dumps(EXAMPLE)), as_json=True))
    assert list(doc["views"]) == [str(seat)]


def test_as_with_an_ambiguous_name_asks_for_the_number() -> None:
    data = record(players=["Ann", "Anna", "Bob", "Dee", "Eve"])
    err = assert_malformed(trusis("replay", "-", "--as", "an", stdin=json.dumps(data)), "--as:")
    assert "seat number" in err
    doc = strict(assert_ok(trusis("replay", "-", "--as", "ann", "--json",
                                  stdin=json.dumps(data)), as_json=True))
    assert list(doc["views"]) == ["1"]  # the whole name beats a longer one it begins


# -- the engine's API -------------------------------------------------------------------


def fresh() -> Game:
    return Game(NAMES, 7)


@pytest.mark.parametrize("bad", [True, False, 1.0, "1", b"1", pytest.param(10**5000, id="huge"),
                                 [1], None, 1j])
def test_seats_targets_and_to_must_be_plain_ints(bad: Any) -> None:
    game = fresh()
    before = json.dumps(game.state.to_dict(), sort_keys=True)
    for action in (Action("vote", seat=bad, target=5), Action("say", seat=bad, text="hi"),
                   Action("pass", seat=bad), Action("leave", seat=bad),
                   Action("say", seat=1, text="hi", to=bad if bad is not None else 1),
                   Action("timeout", seat=bad if bad is not None else 0)):
        with pytest.raises(IllegalAction) as err:
            game.play(action)
        assert "\n" not in str(err.value)
        json.dumps(err.value.as_dict(), allow_nan=False)
    if bad is not None:
        with pytest.raises(IllegalAction):
            game.play(Action("vote", seat=1, target=bad))
    assert json.dumps(game.state.to_dict(), sort_keys=True) == before
    assert game.record.actions == []


def test_seat_true_is_not_seat_1() -> None:
    game = fresh()
    with pytest.raises(IllegalAction):
        game.play(Action("vote", seat=True, target=5))
    with pytest.raises(IllegalAction):
        game.play(Action("vote", seat=1, target=True))
    with pytest.raises(IllegalAction):
        game.play(Action("say", seat=True, text="hi"))
    game.play(Action("vote", seat=1, target=5))
    state = game.state
    assert state.votes == {1: 5} and type(next(iter(state.votes))) is int


@pytest.mark.parametrize("text", [5, b"hi", ["h", "i"], 1.5, True, ("hi",)])
def test_text_must_be_a_str(text: Any) -> None:
    with pytest.raises(IllegalAction) as err:
        apply(new_game(NAMES), Action("say", seat=1, text=text))
    assert err.value.code == "not_text"


@pytest.mark.parametrize("by", [5, b"x", " ", "\n", "", "\x00", True, ["Zed"]])
def test_replace_refuses_a_by_that_is_no_name(by: Any) -> None:
    game = fresh()
    game.play(Action("leave", seat=4))
    with pytest.raises(IllegalAction) as err:
        game.play(Action("replace", seat=4, by=by))
    assert err.value.code == "bad_name"
    assert game.state.left[4]
    game.play(Action("replace", seat=4, by=" Zed\t"))
    assert game.state.names[4] == "Zed"
    again = replay(load_record(json.dumps(game.record.to_dict())))
    assert again.state.names[4] == "Zed" and not again.refused


@pytest.mark.parametrize("seed", [None, "abc", 1.5, True, False, b"1", [1],
                                  pytest.param(10**5000, id="huge"),
                                  pytest.param(-(10**5000), id="-huge")])
def test_new_game_refuses_seeds_that_are_not_plain_ints(seed: Any) -> None:
    with pytest.raises(SetupError) as err:
        new_game(NAMES, seed)
    assert err.value.code == "bad_seed" and "seed" in str(err.value)
    with pytest.raises(SetupError):
        Game(NAMES, seed)


def test_odd_do_values_are_refused() -> None:
    state = new_game(NAMES)
    for do in (None, 5, ["vote"], {"do": 1}, b"vote", "VOTE", "vote\n", 10**5000):
        with pytest.raises(IllegalAction) as err:
            apply(state, Action(do, seat=1, target=2))  # type: ignore[arg-type]
        assert err.value.code == "unknown_action" and "\n" not in str(err.value)


def test_an_illusion_withdrawal_with_an_odd_shown_exports_a_loadable_record() -> None:
    game = Game(NAMES, deal=["ILLUSIONIST", "TRUSIS", "HUMAN", "HUMAN", "HUMAN"])
    game.play(Action("illusion", seat=1, target=None, shown="x"))  # type: ignore[arg-type]
    assert not replay(load_record(json.dumps(game.record.to_dict()))).refused


# -- chat: a 50 MB line --------------------------------------------------------------------


def peak_while(action: Action) -> tuple[int, IllegalAction | None]:
    state = new_game(NAMES)
    tracemalloc.start()
    try:
        apply(state, action)
        refusal = None
    except IllegalAction as err:
        refusal = err
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, refusal


@pytest.mark.parametrize("text", [
    pytest.param("x" * 50_000_000, id="50MB"), pytest.param("x\n" * 2_000_000, id="lines"),
    pytest.param("é " * 2_000_000, id="words")])
def test_a_huge_chat_line_is_refused_without_copying_it(text: str) -> None:
    peak, refusal = peak_while(Action("say", seat=1, text=text))
    assert refusal is not None and refusal.code == "message_too_long"
    assert peak < 2_000_000, peak


def test_length_is_the_cleaned_length() -> None:
    state = new_game(NAMES)
    padded = "\n" * 3_000_000 + "hi" + " \t" * 100_000 + "you" + "\x00" * 10_000
    peak, refusal = peak_while(Action("say", seat=1, text=padded))
    assert refusal is None and peak < 2_000_000, peak
    events = apply(state, Action("say", seat=1, text=padded))
    assert events[-1].params["text"] == "hi you"
    apply(state, Action("say", seat=1, text="y" * MAX_MESSAGE))
    with pytest.raises(IllegalAction) as err:
        apply(state, Action("say", seat=1, text="y" * (MAX_MESSAGE + 1)))
    assert err.value.code == "message_too_long" and "500" in str(err.value)


def test_a_huge_chat_line_in_a_record_is_a_refusal() -> None:
    data = record(actions=[{"seat": 1, "do": "say", "text": "z" * 5_000_000}])
    played = replay(load_record(json.dumps(data)))
    assert [r.error.code for r in played.refused] == ["message_too_long"]


def test_parse_record_names_odd_values_on_one_line() -> None:
    """`parse_record` takes Python data too (the server's): odd values are quoted."""
    cases = [("deal", [10**5000] * 5, "deal[0]"), ("actions", [{"do": 10**5000, "seat": 1}],
             "actions[0].do"), ("actions", [{"do": "a\nb", "seat": 1}], "actions[0].do")]
    for key, value, field in cases:
        with pytest.raises(RecordError) as err:
            parse_record(record(**{key: value}))
        assert str(err.value).startswith(f"{field}: ") and "\n" not in str(err.value)
    played = parse_record(record(actions=[{"do": "timeout", "t": 10**5000}]))
    assert played.times == [None]
