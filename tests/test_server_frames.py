"""Issue 36, typed messages at every edge: every server-to-client frame is one type of
connections/frames.py's union, built as that type and serialised there only."""

from __future__ import annotations

import ast
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args, get_type_hints

import httpx
import orjson
import pytest

from serverproc import ServerProcess, running_server
from trusis.server.connections.frames import (
    FRAMES,
    Clock,
    EventsFrame,
    Frame,
    events_bytes,
    serialise,
)

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "src" / "trusis" / "server"
FRAMES_MODULE = SERVER / "connections" / "frames.py"


def frame_types() -> set[str]:
    """The `type` of every member of the union."""
    return {get_args(get_type_hints(member)["type"])[0] for member in get_args(Frame)}


def test_each_frame_type_is_one_member_of_the_union() -> None:
    members = get_args(Frame)
    assert len(frame_types()) == len(members)
    assert frame_types() >= {"welcome", "snapshot", "events", "ack", "refused", "table",
                             "waiting_chat", "rematch", "error", "pong", "warning", "banned"}


def test_no_module_but_frames_py_writes_a_frame_as_a_dict_literal() -> None:
    """A dict literal whose `type` is a frame's is a frame built past the union (the 13 sites
    in 6 modules issue 36 counted); ASGI's own messages (`http.response.start`, …) are not
    frames and may stay dicts."""
    kinds = frame_types()
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        if path == FRAMES_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Dict):
                for key, value in zip(node.keys, node.values, strict=True):
                    if (isinstance(key, ast.Constant) and key.value == "type"
                            and isinstance(value, ast.Constant) and value.value in kinds):
                        found.append(f"{path.relative_to(SERVER)}:{node.lineno}")
            if isinstance(node, ast.Constant) and isinstance(node.value, bytes) \
                    and b'"type":' in node.value:
                found.append(f"{path.relative_to(SERVER)}:{node.lineno} (bytes)")
    assert found == []


def test_a_frame_s_bytes_are_orjson_s_of_its_fields_in_their_order() -> None:
    """The wire did not change with the types: a frame is the dict it always was."""
    frame: Any = {"type": "banned", "until": None, "reason": "threats"}
    assert serialise(frame) == b'{"type":"banned","until":null,"reason":"threats"}'
    FRAMES.validate_python(frame)


def test_an_events_frame_made_from_its_serialised_parts_is_the_same_bytes() -> None:
    """`events_bytes` (what a client's queue merges) writes what `serialise` would."""
    view: Any = {"format": "trusis-view/1", "seat": 2}
    events: Any = [{"seq": 4, "code": "passed", "params": {"seat": 2}, "t": 1.5},
                   {"seq": 5, "code": "phase", "params": {}, "t": 2.0}]
    clock = Clock(now=time.time(), deadline=None)
    whole = serialise(EventsFrame(type="events", seq=5, events=events, view=view, clock=clock))
    parts = events_bytes(5, b",".join(orjson.dumps(e) for e in events), orjson.dumps(view),
                         orjson.dumps(clock))
    assert parts == whole
    assert orjson.loads(events_bytes(5, b"", b"{}", orjson.dumps(clock)))["events"] == []


# -- the served schema covers what docs/protocol.md shows ---------------------------


def documented_types() -> tuple[set[str], set[str]]:
    """The `type` of every message docs/protocol.md shows in a JSON example: those of its
    "Client to server" block, and those of every other block (the server's)."""
    page = (ROOT / "docs/protocol.md").read_text(encoding="utf-8")
    to_server: set[str] = set()
    to_client: set[str] = set()
    for section in re.split(r"\n(?=#+ )", page):
        title = section.splitlines()[0]
        for block in re.findall(r"(?s)```json\n(.*?)```", section):
            kinds = set(re.findall(r'\{"type": "([a-z_]+)"', block))
            (to_server if title == "### Client to server" else to_client).update(kinds)
    return to_server, to_client


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("frames")) as proc:
        yield proc


def test_the_served_schema_names_every_message_docs_protocol_md_shows_and_no_other(
        server: ServerProcess) -> None:
    """Issue 36: the schema lacked `waiting_chat`, `warning` and `banned` while the page
    said it covered every message. Both directions: a type the page shows and the schema
    lacks, and a type the schema has and the page never shows, each fail."""
    schema = httpx.get(server.url + "/api/protocol.schema.json", timeout=10).json()
    served_in = set(schema["client_to_server"]["discriminator"]["mapping"])
    served_out = set(schema["server_to_client"]["discriminator"]["mapping"])
    shown_in, shown_out = documented_types()
    assert shown_in == served_in == {"hello", "act", "ping"}
    assert shown_out == served_out == frame_types()
    assert {"waiting_chat", "warning", "banned"} <= served_out
