"""The view's types, its documentation and its schema say the same thing.

docs/protocol.md, "The view, field by field", documents every key of `trusis-view/1`;
rules/formats.py types them. Every key of the TypedDicts (nested ones included, as
`players[].bot`) must be documented, and every documented key must exist. Real views
and events of random games (R1–R63 in play) must match the types, checked with the
same pydantic adapters that make the served schema.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import TypeAdapter

from randomgames import Mix, Policy, mixes, tables
from randomgames import Table as Shape
from trusis import Table
from trusis.rules.formats import EVENT_PARAMS, EventData, View
from trusis.rules.i18n import catalogue as messages
from trusis.server.connections.protocol import view_schema

DOCS = Path(__file__).resolve().parent.parent / "docs/protocol.md"
HEADING = "### The view, field by field"


def _typed_dict(annotation: Any) -> Any | None:
    return annotation if isinstance(annotation, type) and hasattr(annotation, "__total__") else None


def typed_keys(cls: Any, prefix: str = "", seen: set[Any] | None = None) -> set[str]:
    """Every key of a TypedDict, nested ones as `outer.inner` or `outer[].inner`; a
    nested TypedDict met again (a phase) is documented where it first appears."""
    seen = set() if seen is None else seen
    seen.add(cls)
    keys: set[str] = set()
    for key, annotation in get_type_hints(cls).items():
        path = prefix + key
        keys.add(path)
        inner = _typed_dict(annotation)
        if inner is not None:
            if inner not in seen:
                keys |= typed_keys(inner, path + ".", seen)
            continue
        origin = get_origin(annotation)
        if origin is not None and isinstance(origin, type) and issubclass(origin, Sequence):
            item = _typed_dict(get_args(annotation)[0])
            if item is not None and item not in seen:
                keys |= typed_keys(item, path + "[].", seen)
        elif origin is not None and isinstance(origin, type) and issubclass(origin, Mapping):
            continue
        else:  # X | None
            for arg in get_args(annotation):
                if _typed_dict(arg) is not None and arg not in seen:
                    keys |= typed_keys(arg, path + ".", seen)
    return keys


def documented_keys() -> set[str]:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split(HEADING, 1)[1].split("\n### ", 1)[0]
    return set(re.findall(r"^\| `([^`]+)` \|", section, flags=re.MULTILINE))


def test_every_key_of_the_view_is_documented_and_every_documented_key_exists() -> None:
    typed, documented = typed_keys(View), documented_keys()
    assert "players[].bot" in typed and "legal[].targets" in typed and "chat[].from" in typed
    assert typed - documented == set(), "typed in rules/formats.py but not in docs/protocol.md"
    assert documented - typed == set(), "documented in docs/protocol.md but not typed"


def test_the_view_schema_names_every_top_level_key() -> None:
    schema = view_schema()
    assert schema["title"] == "trusis-view/1"
    properties = schema["view"]["properties"]
    assert set(properties) == set(get_type_hints(View))
    assert properties["format"] == {"const": "trusis-view/1", "title": "Format", "type": "string"}
    assert set(schema["event"]["required"]) == {"seq", "code", "params"}


VIEWS: TypeAdapter[View] = TypeAdapter(View)
EVENTS: TypeAdapter[list[EventData]] = TypeAdapter(list[EventData])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=tables(max_players=12), mix=mixes(max_active=4))
def test_views_and_events_of_random_games_match_their_types(shape: Shape, mix: Mix) -> None:
    table = Table(list(shape.names), shape.seed, shape.custom)
    policy = Policy(mix)
    seats: list[int | None] = [None, *range(1, table.state.n + 1)]

    def check() -> None:
        for seat in seats:
            for chat in (True, False):
                data = dict(table.snapshot(seat, chat))
                VIEWS.validate_python(data, strict=True)
                assert set(data) <= set(get_type_hints(View)), "a key the types do not name"
            events = table.events_after(seat, 0)
            EVENTS.validate_python(events, strict=True)
            for event in events:  # each code's params, and no key they do not name
                params = EVENT_PARAMS[event["code"]]
                TypeAdapter(params).validate_python(dict(event["params"]), strict=True)
                assert set(event["params"]) <= set(get_type_hints(params)), event

    for _ in range(6000):
        step = policy.next(table.state)
        if step is None:
            break
        if table.submit(step.action).phase_changed:
            check()
    check()


def test_every_event_code_is_typed_documented_and_in_the_catalogues() -> None:
    section = DOCS.read_text(encoding="utf-8").split("### Events, code by code", 1)[1]
    section = section.split("\n### ", 1)[0]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE))
    # `event.CODE.of`: the same event told from outside, naming its seat (D27); not a code.
    catalogue = {key.split(".", 1)[1] for key in messages("en")
                 if key.startswith("event.") and not key.endswith(".of")}
    assert set(EVENT_PARAMS) == documented == catalogue
    for code, params in EVENT_PARAMS.items():
        row = re.search(rf"^\| `{code}` \| (.+?) \|", section, flags=re.MULTILINE)
        assert row is not None
        for key in get_type_hints(params):
            assert f"`{key}`" in row.group(1), (code, key)


@pytest.mark.parametrize("key", ["legal", "choices", "results", "known", "players[].bot"])
def test_the_fields_a_client_author_asked_about_are_explained(key: str) -> None:
    """The fields an agent written from the docs alone could not read (issue 20)."""
    section = DOCS.read_text(encoding="utf-8").split(HEADING, 1)[1]
    row = re.search(rf"^\| `{re.escape(key)}` \| (.+) \|$", section, flags=re.MULTILINE)
    assert row is not None and len(row.group(1)) > 40
