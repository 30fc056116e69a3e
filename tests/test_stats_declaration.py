"""R60/R61: the statistics declaration, and a broken one for each validation rule."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pytest

from trusis.rules.roles import ROLE_TABLE
from trusis.stats import StatsDeclarationError, load_declaration, parse_declaration
from trusis.stats.declaration import shipped_declaration, shipped_text


def tr(en: str) -> dict[str, str]:
    return {"en": en, "fr": en + " (fr)", "it": en + " (it)"}


def good() -> dict[str, Any]:
    """A small valid declaration; each test breaks one rule of a copy."""
    return {
        "table": {
            "turns_number": {"id": 10, "name": tr("Turns"), "type": "int"},
            "winner": {"id": 11, "name": tr("Winner"), "type": "int"},
        },
        "player": {
            "turns_number": {"id": 10, "name": tr("Turns"), "type": "int"},
            "score": {"id": 12, "name": tr("Score"), "type": "float"},
            "alive": {"id": 13, "name": tr("Alive"), "type": "bool", "display": "limited"},
        },
        "value_labels": {"11": {"0": tr("None"), "1": tr("Red")}},
    }


def broken(message: str, data: Any) -> str:
    with pytest.raises(StatsDeclarationError) as info:
        parse_declaration(data)
    text = str(info.value)
    assert message in text, text
    return text


def test_shipped_declaration_is_valid() -> None:
    decl = shipped_declaration()
    assert [s.name for s in decl.table][:4] == [
        "days_number", "nights_number", "winning_team", "players_number"]
    assert decl.find("player", "role") is not None


def test_the_good_example_is_valid_and_a_shared_id_with_the_same_name_is_allowed() -> None:
    decl = parse_declaration(good())
    assert decl.find("table", "turns_number").id == decl.find("player", "turns_number").id == 10
    assert decl.find("player", "alive").limited


def test_role_labels_follow_the_role_table() -> None:
    # scoring.ROLE_VALUE numbers roles 1..14 in the order of docs/rules.md §2 (roles.ROLE_TABLE)
    labels = shipped_declaration().value_labels[40]
    assert list(labels) == list(range(1, len(ROLE_TABLE) + 1))
    for i, role in enumerate(ROLE_TABLE, start=1):
        assert labels[i] == {"en": role.en, "fr": role.fr, "it": role.it}


def test_id_below_10() -> None:
    data = good()
    data["player"]["score"]["id"] = 9
    text = broken("ids must be 10 or more", data)
    assert "player statistic 'score'" in text


@pytest.mark.parametrize("bad_id", ["12", 12.0, True, None])
def test_id_not_an_integer(bad_id: Any) -> None:
    data = good()
    data["table"]["winner"]["id"] = bad_id
    text = broken("the id must be an integer", data)
    assert "table statistic 'winner'" in text


def test_id_used_twice_in_a_group() -> None:
    data = good()
    data["player"]["alive"]["id"] = 12
    text = broken("ids are unique in a group", data)
    assert "player statistic 'alive'" in text and "'score'" in text


def test_same_id_in_both_groups_needs_the_same_name() -> None:
    data = good()
    data["player"]["score"]["id"] = 11  # the table's 'winner'
    text = broken("a shared id needs the same name", data)
    assert "'score'" in text and "'winner'" in text


@pytest.mark.parametrize("name", ["turns number", "turns-number", "tours_é", ""])
def test_name_of_letters_digits_and_underscore(name: str) -> None:
    data = good()
    data["table"][name] = data["table"].pop("turns_number")
    text = broken("letters, digits and '_' only", data)
    assert repr(name) in text


def test_name_declared_twice_in_a_group() -> None:
    text = good_text().replace('"winner": {"id": 11', '"turns_number": {"id": 11')
    with pytest.raises(StatsDeclarationError, match="'turns_number' is declared twice"):
        load_declaration(text)


def good_text() -> str:
    return json.dumps(good())


@pytest.mark.parametrize("bad_type", ["integer", "str", None, 1])
def test_unknown_type(bad_type: Any) -> None:
    data = good()
    data["player"]["score"]["type"] = bad_type
    text = broken("unknown type", data)
    assert "'score'" in text


def test_display_other_than_limited() -> None:
    data = good()
    data["player"]["alive"]["display"] = "hidden"
    broken("display must be 'limited'", data)


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_display_name_needs_every_language(lang: str) -> None:
    data = good()
    del data["player"]["score"]["name"][lang]
    text = broken(f"non-empty {lang!r} translation", data)
    assert "'score'" in text


def test_display_name_must_be_translations_not_a_string() -> None:
    data = good()
    data["player"]["score"]["name"] = "Score"
    broken("the display name must be an object", data)


def test_unknown_key_in_a_statistic() -> None:
    data = good()
    data["player"]["score"]["dispaly"] = "limited"
    broken("unknown key 'dispaly'", data)


def test_value_labels_only_on_int_statistics() -> None:
    data = good()
    data["value_labels"]["12"] = {"0": tr("zero")}  # 'score' is a float
    text = broken("value_labels apply only to int statistics", data)
    assert "'score'" in text and "float" in text
    data = good()
    data["value_labels"]["13"] = {"0": tr("dead")}  # 'alive' is a bool
    broken("value_labels apply only to int statistics", data)


def test_value_labels_keyed_by_an_existing_id() -> None:
    data = good()
    data["value_labels"]["99"] = {"0": tr("zero")}
    broken("value_labels '99': no statistic has this id", data)


def test_value_labels_values_are_integers() -> None:
    data = good()
    data["value_labels"]["11"]["red"] = tr("Red")
    broken("labelled values must be integers", data)


def test_value_label_needs_every_language() -> None:
    data = good()
    del data["value_labels"]["11"]["1"]["it"]
    broken("non-empty 'it' translation", data)


def test_missing_group_and_unknown_top_level_key() -> None:
    data = good()
    del data["player"]
    broken("the 'player' group must be an object", data)
    data = good()
    data["players"] = {}
    broken("unknown top-level key 'players'", data)


def test_not_json() -> None:
    with pytest.raises(StatsDeclarationError, match="not valid JSON"):
        load_declaration("{")


def test_declaration_order_is_kept() -> None:
    data = good()
    data["player"] = dict(reversed(list(copy.deepcopy(data["player"]).items())))
    assert [s.name for s in parse_declaration(data).player] == ["alive", "score", "turns_number"]


def test_the_trusis_program_refuses_to_start_with_a_broken_declaration() -> None:
    data = json.loads(shipped_text())
    data["player"]["votes_cast"]["id"] = 3
    code = (
        "import sys, trusis.stats.declaration as d\n"
        f"d.shipped_text = lambda: {json.dumps(json.dumps(data))}\n"
        "sys.argv = ['trusis', 'replay', 'examples/record-example.json']\n"
        "from trusis.cli.main import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip() == (
        "error: stats.json: player statistic 'votes_cast' (id 3): ids must be 10 or more (R60)"
    )
