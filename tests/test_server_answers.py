"""A command's answer (server/answers.py): the client's frame is byte for byte the one
docs/protocol.md shows, no internal field ever reaches it, and the dict that carries an
answer to another process reads back as the same answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import orjson
import pytest
from pydantic import ValidationError

from trusis.server.cluster.messages import Reply, decode, encode
from trusis.server.data.store import Store
from trusis.server.tables.answers import CommandAnswer
from trusis.server.tables.commands import numbered
from trusis.server.tables.lobby_state import LobbyState
from trusis.server.tables.options import TableOptions
from trusis.server.tables.room import Room

PROTOCOL_DOC = Path(__file__).resolve().parents[1] / "docs/protocol.md"


def documented(kind: str) -> bytes:
    """The example frame of type `kind` in docs/protocol.md, as the server's bytes."""
    start = f'{{"type": "{kind}"'
    lines = [line for line in PROTOCOL_DOC.read_text().splitlines() if line.startswith(start)]
    assert len(lines) == 1, lines
    return orjson.dumps(json.loads(lines[0]))  # key order kept, spaces dropped


def test_an_ack_frame_is_the_documented_one() -> None:
    answer = CommandAnswer.ack("c-42", count=31).with_seq(19)
    assert answer.frame() == documented("ack") == b'{"type":"ack","id":"c-42","seq":19}'


def test_a_refused_frame_is_the_documented_one() -> None:
    answer = CommandAnswer.refused("c-42", "target_dead", {"target": 4},
                                   "seat 4 is dead").counted(31)
    assert answer.frame() == documented("refused")


def test_internal_facts_never_reach_the_client() -> None:
    read_back = CommandAnswer.read_back("c-7")
    assert orjson.loads(read_back.with_seq(3).frame()) == {"type": "ack", "id": "c-7", "seq": 3}
    refused = CommandAnswer("refused", "c-8", "stale_phase", {"kind": "day", "number": 2},
                            "too late", seq=4, count=9, again=True)
    assert set(orjson.loads(refused.frame())) == {"type", "id", "code", "params", "message"}


def test_a_copy_of_a_command_read_back_from_the_store_is_numbered_afresh() -> None:
    read_back = CommandAnswer.read_back("c-1")
    assert read_back.copy() == CommandAnswer.ack("c-1")
    kept = CommandAnswer.ack("c-2", count=5).with_seq(8)
    assert kept.copy() is kept  # one numbered here: the copy gets the very same answer


@pytest.mark.parametrize("answer", [
    CommandAnswer.ack("c-1"),
    CommandAnswer.ack("c-1", count=12).with_seq(40),
    CommandAnswer.read_back("c-1"),
    CommandAnswer.refused("c-2", "rate_limited", {"retry_after": 2}, "wait 2 s").counted(3),
    CommandAnswer.refused("c-3", "muted", {"until": None}, "muted"),
])
def test_an_answer_crosses_processes_unchanged(answer: CommandAnswer) -> None:
    carried = decode(encode(Reply(req="r1", answer=answer)))  # as on Redis
    assert isinstance(carried, Reply) and carried.answer == answer
    assert carried.answer.frame() == answer.frame()


@pytest.mark.parametrize("data", [
    {"not_owner": True},
    {"type": "ack"},
    {"type": "events", "id": "c-1"},
    {"type": "ack", "id": "c-1", "seq": "3x"},
    {"type": "refused", "id": "c-1", "params": [1]},
])
def test_a_reply_whose_answer_is_no_answer_is_refused_naming_the_field(
        data: dict[str, object]) -> None:
    with pytest.raises(ValidationError, match="answer"):
        decode(orjson.dumps({"k": "reply", "req": "r1", "answer": data}))


@pytest.mark.parametrize("result", [None, 3, "claim-code", (2, "token")])
def test_a_lobby_result_crosses_processes_as_its_own_type(result: object) -> None:
    """A seat and its token come back a tuple, a seat an int: nothing to repair."""
    carried = decode(encode(Reply(req="r1", result=result)))  # type: ignore[arg-type]
    assert isinstance(carried, Reply) and carried.result == result
    assert type(carried.result) is type(result)


def test_an_ack_is_numbered_once_and_kept_so() -> None:
    """The connection that sends an `ack` numbers it; the answer kept is that one, for a
    copy to get it again; a refusal and an ack numbered already are sent as they are."""
    room = Room("t", "table", LobbyState("h", "Host", TableOptions(), "invite"),
                cast(Store, None))
    first = CommandAnswer.ack("c-1", count=4)
    room.answers.remember("p", "c-1", first)
    sent = numbered(room, "p", first, 17)
    assert sent == first.with_seq(17) and room.answers.answer("p", "c-1") == sent
    assert numbered(room, "p", sent, 30) is sent  # a copy: its first number stays
    refused = CommandAnswer.refused("c-2", "target_dead", {"target": 4}, "seat 4 is dead")
    assert numbered(room, "p", refused, 17) is refused
    assert room.answers.answer("p", "c-2") is None and len(room.answers.answers) == 1
