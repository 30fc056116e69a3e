"""A command says which phase it was made in, and is refused in any other (docs/protocol.md).

A Night 1 `pass` left unanswered by a crash, and sent again with the same id after the
restart, used to be applied in Day 2 — the timer had ended the night while the server
was down (R12). With `action.phase` the server refuses it as `stale_phase`: nothing is
applied, nothing is recorded, and the player chooses again in the phase it now sees.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from serverplay import Conn, people
from serverproc import ServerProcess, drop_database, new_database, running_server

NIGHT_1 = {"kind": "night", "number": 1}
DAY_1 = {"kind": "day", "number": 1}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("stale")) as proc:
        yield proc


def test_a_command_made_in_another_phase_is_refused_as_stale(server: ServerProcess) -> None:
    tab = people(server, 5)
    before = tab.views()
    answer = tab.play(2, do="vote", target=3, phase=NIGHT_1)
    assert answer["type"] == "refused" and answer["code"] == "stale_phase", answer
    assert answer["params"] == NIGHT_1
    assert answer["message"] == ("chosen during Night 1, which has ended: nothing was applied, "
                                 "choose again")
    assert tab.views() == before  # R14: a refusal changes nothing
    assert tab.play(2, do="vote", target=3, phase=DAY_1)["type"] == "ack"
    assert tab.play(2, do="pass")["type"] == "ack"  # no phase: as before (older clients)
    bob = tab.conns[2]
    mark = bob.mark()
    bob.send(do="pass", phase={"kind": "dusk", "number": 1})
    bob.until(lambda c: any(m["type"] == "error" for m in c.since(mark)))
    error = next(m for m in bob.since(mark) if m["type"] == "error")
    assert (error["code"], error["field"]) == ("bad_message", "action.phase.kind")
    tab.close()


def test_a_night_pass_sent_again_after_a_crash_is_not_applied_in_the_next_day(
        tmp_path: Path) -> None:
    """R12: the night's deadline passes while the server is down, so the restart ends
    Night 1; Ann's pass of Night 1, sent again with its id, must not pass her in Day 2."""
    database = new_database("sqlite", tmp_path)
    server = ServerProcess(database)
    try:
        server.start()
        tab = people(server, 5, day_seconds=30, night_seconds=15)
        tab.all_pass()
        ann = tab.conns[1]
        assert ann.view is not None and ann.view["phase"] == NIGHT_1
        deadline = next(m for m in reversed(ann.messages)
                        if m["type"] == "events")["clock"]["deadline"]
        last = ann.seq
        tab.close()
        server.kill()  # Ann's pass goes out as the server dies: no answer comes
        time.sleep(max(0.0, deadline - time.time() + 0.5))
        server.start()
        back = Conn(server, tab.id, tab.guests[1].token, last_seq=last).open()
        back.until(lambda c: c.view is not None and c.view["phase"]["kind"] == "day", 15)
        assert back.view is not None and back.view["phase"] == {"kind": "day", "number": 2}
        sent = back.send("ann-night-pass", do="pass", phase=NIGHT_1)  # resent, same id
        back.until(lambda c: sent in c.answers)
        answer = back.answers[sent]
        assert answer["type"] == "refused" and answer["code"] == "stale_phase", answer
        back.barrier()
        assert back.view["players"][0]["passed"] is False
        again = back.send(sent, do="pass", phase=NIGHT_1)  # once-only: the same answer
        back.answers.pop(again)
        back.until(lambda c: again in c.answers)
        assert back.answers[again]["code"] == "stale_phase"
        day_2 = {"kind": "day", "number": 2}
        assert back.command(do="pass", phase=day_2)["type"] == "ack"
        back.close()
    finally:
        server.stop()
        drop_database(database)
