"""Frame fuzzing (Hypothesis): whatever one client sends, the server stands and no other
table notices.

One guest plays seat 1 of table A (the other seats are bots) and sends random
frames: any JSON value, messages with random types in `type`, `id` and `action`,
random text and bytes, huge numbers, deep nesting (all within the 16 KiB cap),
now and then an oversize frame, and well-formed commands too (chat marked with a
token no other table may ever see). After every example the server must still
answer /api/health, and the same connection — or, when the server closed it with
one of its documented codes, a new one — must answer a ping and carry a command.
Table B, with its own person, spectator and bots, must never see a byte of it,
and its game must go on afterwards.

`TRUSIS_FUZZ_EXAMPLES` sets the number of examples (150 by default, for CI).
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed

from serverplay import Conn, close_code, frames_text
from serverproc import Guest, ServerProcess, running_server
from trusis.rules.actions import DOS
from trusis.server.connections.protocol import outbound

EXAMPLES = int(os.environ.get("TRUSIS_FUZZ_EXAMPLES", "150"))
CAP = 16 * 1024
MARK = f"FUZZ{secrets.token_hex(6)}"
"""In every chat line the fuzzer sends: table B's clients must never receive it."""
CLOSES = {1009, 4429}
"""The closes a frame may earn: too big, or too many malformed ones (docs/protocol.md)."""

# websockets' keepalive pings (every 20 s, in each connection's own thread) draw from
# `random`; Hypothesis then warns that a strategy used it. No strategy here does.
pytestmark = pytest.mark.filterwarnings("ignore:Do not use the `random` module")

SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=False,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@dataclass
class Fuzz:
    server: ServerProcess
    fuzzer: Guest
    table_a: str
    conn: Conn
    b_person: Conn
    b_watcher: Conn
    b_marks: dict[Conn, int]
    closes: list[int] = field(default_factory=list)
    examples: int = 0

    def reconnect(self) -> None:
        self.conn.close()
        self.conn = Conn(self.server, self.table_a, self.fuzzer.token).open()


def _table(server: ServerProcess, name: str) -> tuple[Guest, str]:
    guest = Guest(server.url, name)
    table = guest.create(seats=5, day_seconds=3600, night_seconds=1800)
    guest.sit(table["id"], 1)
    guest.bots(table["id"], 4)
    guest.start(table["id"])
    return guest, table["id"]


@pytest.fixture(scope="module")
def fuzz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fuzz]:
    with running_server("sqlite", tmp_path_factory.mktemp("fuzz")) as server:
        fuzzer, table_a = _table(server, "Fuzzer")
        person, table_b = _table(server, "Bea")
        b_person = Conn(server, table_b, person.token).open()
        b_watcher = Conn(server, table_b, Guest(server.url, "Onlooker").token).open()
        for conn in (b_person, b_watcher):
            conn.drain(0.5)  # the bots' first moves of the day, then they wait for Bea
        conn = Conn(server, table_a, fuzzer.token).open()
        yield Fuzz(server, fuzzer, table_a, conn, b_person, b_watcher,
                   {b_person: b_person.mark(), b_watcher: b_watcher.mark()})
        for c in (conn, b_person, b_watcher):
            c.close()


# -- what the fuzzer sends -----------------------------------------------------------

scalars = (st.none() | st.booleans() | st.integers() | st.floats()
           | st.integers(min_value=-10**40, max_value=10**40) | st.just(10**300)
           | st.text(max_size=40))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                      | st.dictionaries(st.text(max_size=10), inner, max_size=5),
                      max_leaves=25)
seat_like = st.integers(min_value=-3, max_value=12) | values
actions = st.fixed_dictionaries(
    {"do": st.sampled_from(sorted(DOS)) | st.text(max_size=25) | values},
    optional={"target": seat_like, "shown": seat_like, "to": seat_like, "seat": seat_like,
              "text": st.text(max_size=300).map(lambda t: f"{MARK} {t}") | values,
              "by": values, "extra": values})
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["act", "ping", "hello", "Act", ""]) | values},
    optional={"id": st.text(max_size=70) | values, "action": actions | values,
              "protocol": values, "last_seq": values, "lang": values, "pad": values})


def _nested(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    if kind == "dict":
        return '{"a":' * depth + "1" + "}" * depth
    return json.dumps({"type": "act", "id": "deep", "action": {
        "do": "say", "text": "[" * depth + "]" * depth}})  # deep-looking, only a string


good = st.builds(lambda n, text, to: json.dumps({
    "type": "act", "id": f"g{n}", "action": {"do": "say", "text": f"{MARK} {text}",
                                             **({"to": to} if to else {})}}),
    st.integers(0, 10**9), st.text(max_size=100), st.sampled_from([None, 2, 3]))
plays = st.builds(lambda n, do, target: json.dumps({
    "type": "act", "id": f"p{n}", "action": {"do": do, "target": target}}),
    st.integers(0, 10**9), st.sampled_from(["vote", "sweep", "protect", "revive"]),
    st.integers(0, 6) | st.none())
frames = st.one_of(
    values.map(json.dumps),
    messages.map(json.dumps),
    st.text(max_size=3000),
    st.binary(max_size=3000),
    st.builds(_nested, st.integers(1, 2500), st.sampled_from(["list", "dict", "string"])),
    st.integers(0, CAP - 200).map(lambda n: json.dumps({"type": "ping", "pad": "x" * n})),
    st.just(json.dumps({"type": "ping", "pad": "x" * (CAP + 10)})),  # over the cap
    good, plays,
)


def _live(fuzz: Fuzz, oversize: bool) -> None:
    """The server stands; the fuzzer's connection (or a new one) answers and plays.

    After an oversize frame, uvicorn writes its 1009 close and drops the connection at
    once, with the rest of the frame unread: the next frame the client sends is answered
    by a TCP reset, which can discard the close frame before the client reads it. So a
    close with no code is accepted after an oversize frame, and only then.
    """
    assert httpx.get(fuzz.server.url + "/api/health", timeout=10).json()["ok"] is True
    conn = fuzz.conn
    try:
        conn.barrier(10)
        return
    except ConnectionClosed as closed:
        code = closed.rcvd.code if closed.rcvd is not None else None
        assert code in CLOSES or (oversize and code is None), f"closed with {code}: {closed}"
        fuzz.closes.append(code or 1006)
    fuzz.reconnect()
    fuzz.conn.barrier(10)


def test_random_frames_never_crash_the_server_nor_reach_another_table(fuzz: Fuzz) -> None:
    @SETTINGS
    @given(batch=st.lists(frames, min_size=1, max_size=6))
    def example(batch: list[str | bytes]) -> None:
        fuzz.examples += 1
        conn = fuzz.conn
        mark = conn.mark()
        try:
            for frame in batch:
                conn.ws.send(frame)
        except ConnectionClosed:
            pass  # closed mid-batch (oversize, or the 20th malformed frame): _live says how
        _live(fuzz, any(len(frame) > CAP for frame in batch))
        if fuzz.conn is conn:
            for message in conn.since(mark):
                outbound.validate_python(message)  # every answer is a protocol message
        if fuzz.examples % 25 == 0:
            _table_b_untouched(fuzz)

    example()
    print(f"fuzz: {fuzz.examples} examples, closes {sorted(set(fuzz.closes))} "
          f"({len(fuzz.closes)}), {len(fuzz.conn.messages)} messages on the last connection")
    _table_b_untouched(fuzz)
    for conn in (fuzz.b_person, fuzz.b_watcher):
        for message in conn.since(fuzz.b_marks[conn]):
            assert message["type"] in ("table", "pong", "events"), message
            outbound.validate_python(message)
    # Table B goes on: Bea passes, the bots follow, the phase ends (R12).
    bea = fuzz.b_person
    phase = (bea.view or {}).get("phase")
    assert bea.view is not None and "pass" in bea.legal()
    assert bea.command(do="pass")["type"] == "ack"
    bea.until(lambda c: c.view is not None and (c.view["phase"] != phase
                                                or c.view["status"] == "finished"), 30)
    assert bea.command(do="say", text="still here")["type"] == "ack"  # also after the end
    # Table A too: a fresh connection gets a snapshot, and its chat is carried.
    fuzz.reconnect()
    snapshot = [m for m in fuzz.conn.messages if m["type"] == "snapshot"]
    assert snapshot and snapshot[0]["view"]["seat"] == 1
    answer = fuzz.conn.command(do="say", text="after the storm")
    if answer["type"] == "refused":  # only a seat that left, or a spent chat budget
        assert answer["code"] in ("actor_left", "rate_limited"), answer
    assert MARK not in frames_text([fuzz.b_person, fuzz.b_watcher])


def _table_b_untouched(fuzz: Fuzz) -> None:
    for conn in (fuzz.b_person, fuzz.b_watcher):
        conn.barrier()
        assert [e["seq"] for e in conn.events] == list(range(1, conn.seq + 1))
    assert MARK not in frames_text([fuzz.b_person, fuzz.b_watcher])


@settings(max_examples=max(20, EXAMPLES // 3), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(first=st.one_of(values.map(json.dumps), messages.map(json.dumps), st.text(max_size=200),
                       st.binary(max_size=200)))
def test_a_random_first_frame_is_a_hello_or_a_4400(fuzz: Fuzz, first: str | bytes) -> None:
    """The first frame must be a valid hello of protocol 1; anything else closes with 4400."""
    try:
        data = json.loads(first)
    except (ValueError, UnicodeDecodeError):
        data = None
    valid = (isinstance(data, dict) and data.get("type") == "hello" and data.get("protocol") == 1
             and type(data.get("protocol")) is int and set(data) <= {"type", "protocol",
                                                                     "last_seq", "lang"}
             and (data.get("last_seq") is None or (type(data["last_seq"]) is int
                                                  and 0 <= data["last_seq"] <= 2**63 - 1))
             and data.get("lang", "en") in ("en", "fr", "it"))
    code = close_code(fuzz.server, f"/ws/tables/{fuzz.table_a}", [first],
                      {"Authorization": f"Bearer {fuzz.fuzzer.token}"}, wait=0.3 if valid else 5)
    assert code == (None if valid else 4400), (first, code)
    assert httpx.get(fuzz.server.url + "/api/health", timeout=10).json()["ok"] is True
