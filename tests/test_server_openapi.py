"""Every JSON route says what it answers (issue 36): the running server's `/openapi.json`
gives each route's 200 answer a schema with named fields, not an untyped object, also the
routes that send bytes they built themselves (api/documents.py).

Read from a real server over HTTP, so a route added later is checked too; a route that
answers an untyped object fails here until it has a response model (api/replies.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from serverproc import ServerProcess, running_server

OPEN_BY_NATURE = {
    ("GET", "/api/protocol.schema.json"): "a JSON Schema document: its shape is what it says",
    ("GET", "/api/view.schema.json"): "a JSON Schema document: its shape is what it says",
}
"""Routes whose answer is rightly an open object."""

BUILT_THEMSELVES = {
    ("GET", "/api/health"): "Health", ("GET", "/api/tables/{table_id}/record"): "RecordDocument",
    ("GET", "/api/tables/{table_id}/summary"): "EndScreen",
    ("GET", "/api/tables/{table_id}/replay"): "ReplayStep",
    ("GET", "/api/me/data"): "PersonalData", ("GET", "/api/balance"): "Balance",
}
"""Routes that build their JSON answer themselves (a cached end screen, a download, a 503
with the same body): they keep their bytes and name their shape in `responses=`
(api/documents.py)."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server: ServerProcess
    with running_server("sqlite", tmp_path_factory.mktemp("openapi")) as server:
        yield server


@pytest.fixture(scope="module")
def spec(served: ServerProcess) -> dict[str, Any]:
    answer = httpx.get(served.url + "/openapi.json", timeout=10)
    assert answer.status_code == 200
    found: dict[str, Any] = answer.json()
    return found


def resolved(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A schema with its `$ref` followed (to `#/components/schemas/...`)."""
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        schema = spec["components"]["schemas"][name]
    return schema


def untyped(spec: dict[str, Any], schema: dict[str, Any]) -> bool:
    """Anything at all (`{}`), or an object that names none of its fields."""
    found = resolved(spec, schema)
    return found == {} or (found.get("type") == "object" and not found.get("properties"))


def json_answers(spec: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(method, path) of every route answering JSON, and its success answer's schema."""
    found = {}
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            answers = operation.get("responses", {})
            ok = next((answers[code] for code in sorted(answers) if code.startswith("2")), {})
            content = ok.get("content", {})
            if "application/json" in content:
                found[(method.upper(), path)] = content["application/json"].get("schema", {})
    return found


def test_the_spec_is_read(spec: dict[str, Any]) -> None:
    answers = json_answers(spec)
    assert len(answers) > 50
    assert ("POST", "/api/tables") in answers
    assert ("GET", "/api/notifications/confirm") not in answers  # a page, in HTML
    # The checker itself: an untyped object is caught, a described one is not.
    assert untyped(spec, {"type": "object", "additionalProperties": True})
    assert untyped(spec, {})
    assert not untyped(spec, answers[("POST", "/api/tables")])


def test_every_json_route_describes_its_answer(spec: dict[str, Any]) -> None:
    answers = json_answers(spec)
    vague = sorted(route for route, schema in answers.items()
                   if untyped(spec, schema) and route not in OPEN_BY_NATURE)
    assert vague == [], "routes answering an untyped object"


def test_the_routes_that_build_their_answer_name_its_shape(spec: dict[str, Any]) -> None:
    answers = json_answers(spec)
    assert {route: answers[route].get("$ref", "").rsplit("/", 1)[-1]
            for route in BUILT_THEMSELVES} == BUILT_THEMSELVES
    health = spec["paths"]["/api/health"]["get"]["responses"]
    assert health["503"]["content"]["application/json"]["schema"] == answers[
        ("GET", "/api/health")]  # the same body, `ok` false


def test_health_sends_what_its_schema_names(served: ServerProcess,
                                            spec: dict[str, Any]) -> None:
    """The description follows the answer, not the other way round: every key health
    sends is named, and every key named as always there is sent."""
    shape = resolved(spec, json_answers(spec)[("GET", "/api/health")])
    sent = httpx.get(served.url + "/api/health", timeout=10).json()
    assert set(sent) <= set(shape["properties"])
    assert set(shape["required"]) <= set(sent)


def test_a_table_s_answer_names_its_fields(spec: dict[str, Any]) -> None:
    """The table as the lobby shows it, in every answer that carries it (api/replies.py)."""
    table = resolved(spec, json_answers(spec)[("GET", "/api/tables/{table_id}")])
    assert {"id", "name", "status", "host", "seats", "options", "invite"} <= set(
        table["properties"])
    assert "invite" not in table["required"]  # its host's only: absent for the others
