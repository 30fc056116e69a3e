"""R62: the init/set/inc API, "-" versus 0, declaration order, and loud refusals."""

from __future__ import annotations

from typing import Any

import pytest

from trusis.stats import (
    GameStats,
    NotInitialised,
    StatsError,
    StatTypeError,
    UnknownStatistic,
    parse_declaration,
)
from trusis.stats.declaration import Declaration


def tr(en: str, fr: str, it: str) -> dict[str, str]:
    return {"en": en, "fr": fr, "it": it}


def decl() -> Declaration:
    # ids deliberately out of order: display follows the declaration, not the ids
    data: dict[str, Any] = {
        "table": {
            "zeta": {"id": 30, "name": tr("Zeta", "Zêta", "Zeta"), "type": "int"},
            "alpha": {"id": 10, "name": tr("Alpha", "Alpha", "Alfa"), "type": "int"},
            "colour": {"id": 20, "name": tr("Colour", "Couleur", "Colore"), "type": "int"},
            "secret": {"id": 40, "name": tr("Secret", "Secret", "Segreto"), "type": "int",
                       "display": "limited"},
        },
        "player": {
            "ratio": {"id": 50, "name": tr("Ratio", "Ratio", "Rapporto"), "type": "float"},
            "alive": {"id": 11, "name": tr("Alive", "Vivant", "Vivo"), "type": "bool"},
            "colour": {"id": 20, "name": tr("Colour", "Couleur", "Colore"), "type": "int"},
        },
        "value_labels": {"20": {"1": tr("Red", "Rouge", "Rosso")}},
    }
    return parse_declaration(data)


def game() -> GameStats:
    return GameStats(decl(), ["Ann", "Bob"])


def test_uninitialised_shows_dash_initialised_shows_zero() -> None:
    stats = game()
    stats.table.init("alpha", 0)
    rows = {r.name: r for r in stats.table.rows()}
    assert rows["alpha"].value == 0 and rows["alpha"].text == "0"
    assert rows["zeta"].value == "-" and rows["zeta"].text == "-"
    assert stats.table.get("zeta") is None and not stats.table.is_set("zeta")


def test_rows_follow_declaration_order_not_ids() -> None:
    stats = game()
    assert [r.id for r in stats.table.rows()] == [30, 10, 20, 40]
    assert [r.name for r in stats.player(1).rows()] == ["ratio", "alive", "colour"]


def test_limited_statistics_can_be_hidden() -> None:
    stats = game()
    assert [r.name for r in stats.table.rows(limited=False)] == ["zeta", "alpha", "colour"]
    assert stats.table.rows()[-1].limited


def test_init_set_inc() -> None:
    stats = game()
    stats.table.init("alpha", 2)
    stats.table.inc("alpha")
    stats.table.inc("alpha", 3)
    assert stats.table.get("alpha") == 6
    stats.table.set("alpha", 1)
    assert stats.table.get("alpha") == 1
    stats.table.set("zeta", 9)  # set initialises
    assert stats.table.get("zeta") == 9
    stats.player(2).init("ratio", 1)  # an int is fine for a float, stored as float
    stats.player(2).inc("ratio", 0.5)
    assert stats.player(2).get("ratio") == 1.5
    assert isinstance(stats.player(2).get("ratio"), float)
    stats.init_players("alive", True)
    assert [stats.player(s).get("alive") for s in (1, 2)] == [True, True]


def test_value_labels_and_translation() -> None:
    stats = game()
    stats.table.init("colour", 1)
    stats.table.init("alpha", 2)
    stats.player(1).init("alive", False)
    fr = {r.name: r for r in stats.table.rows("fr")}
    assert fr["colour"].label == "Couleur" and fr["colour"].value == "Rouge"
    assert fr["alpha"].label == "Alpha" and fr["alpha"].value == 2
    it = {r.name: r for r in stats.player(1).rows("it")}
    assert it["alive"].label == "Vivo" and it["alive"].value is False and it["alive"].text == "no"
    stats.table.set("colour", 7)  # no label for 7: the number itself
    assert {r.name: r.value for r in stats.table.rows()}["colour"] == 7


def test_unknown_names_are_refused() -> None:
    stats = game()
    with pytest.raises(UnknownStatistic, match="no table statistic is called 'ratio'"):
        stats.table.init("ratio", 1.0)  # a player statistic, not a table one
    with pytest.raises(UnknownStatistic):
        stats.player(1).inc("nope")
    with pytest.raises(UnknownStatistic):
        stats.player(1).get("nope")
    with pytest.raises(StatsError, match="no seat 3"):
        stats.player(3)


@pytest.mark.parametrize(
    ("group", "name", "value"),
    [
        ("table", "alpha", True),  # a bool is not an int
        ("table", "alpha", 1.5),
        ("table", "alpha", "1"),
        ("player", "ratio", False),
        ("player", "ratio", "0.5"),
        ("player", "alive", 1),  # an int is not a bool
        ("player", "alive", None),
    ],
)
def test_wrong_types_are_refused(group: str, name: str, value: Any) -> None:
    stats = game()
    sheet = stats.table if group == "table" else stats.player(1)
    with pytest.raises(StatTypeError, match=repr(name)):
        sheet.init(name, value)
    with pytest.raises(StatTypeError):
        sheet.set(name, value)
    assert not sheet.is_set(name)


def test_inc_needs_init_and_a_number() -> None:
    stats = game()
    with pytest.raises(NotInitialised, match="'alpha' was never initialised"):
        stats.table.inc("alpha")
    stats.table.init("alpha", 0)
    with pytest.raises(StatTypeError):
        stats.table.inc("alpha", 0.5)
    stats.player(1).init("alive", True)
    with pytest.raises(StatTypeError, match="bool"):
        stats.player(1).inc("alive")
    assert stats.table.get("alpha") == 0


def test_json_and_stored_forms() -> None:
    stats = game()
    stats.table.init("colour", 1)
    stats.player(2).init("ratio", 0.25)
    doc = stats.as_json("en")
    assert doc["table"][2] == {"id": 20, "name": "colour", "label": "Colour", "value": "Red"}
    assert doc["table"][0] == {"id": 30, "name": "zeta", "label": "Zeta", "value": "-"}
    assert list(doc["players"]) == ["1", "2"]
    assert doc["players"]["2"][0]["value"] == 0.25
    assert stats.stored() == {
        "table": {"20": 1},
        "players": [{"seat": 1, "name": "Ann", "stats": {}},
                    {"seat": 2, "name": "Bob", "stats": {"50": 0.25}}],
    }
