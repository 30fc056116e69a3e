"""Chat lines keep their writer's name (issue 38), through a real `trusis serve`: a page
named each line by its seat's holder now, so once a new person took Bob's departed seat
(R53) Bob's own lines read as theirs. A view's chat line says who wrote it then (`name`,
and `bot` while a bot played the seat), and the page names it so."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from serverplay import Conn, command, people
from serverproc import Guest, ServerProcess, running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("names")) as running:
        yield running


def test_R53_a_line_keeps_its_writers_name_after_a_new_person_takes_the_seat(
        server: ServerProcess) -> None:
    table = people(server, 5)
    zed = Guest(server.url, "Zed")
    try:
        assert command(table.conns[2], do="say", text="B-line")["type"] == "ack"
        assert command(table.conns[2], do="leave")["type"] == "ack"  # on purpose (D31)
        table.conns.pop(2).close()
        handed = table.host.http.post(f"/api/tables/{table.id}/seats/2/replace",
                                      json={"by": "person"})
        assert handed.status_code == 200, handed.text
        claimed = zed.http.post(f"/api/tables/{table.id}/claim",
                                json={"code": handed.json()["claim"]})
        assert claimed.status_code == 200, claimed.text
        table.conns[2] = table.connect(zed)
        assert command(table.conns[2], do="say", text="Z-line")["type"] == "ack"
        table.barrier()
        fresh: Conn = table.connect(table.guests[3])  # a snapshot, read now
        assert fresh.view is not None
        assert fresh.view["players"][1]["name"] == "Zed"
        lines = {line["text"]: line for line in fresh.view["chat"]}
        assert (lines["B-line"]["from"], lines["B-line"]["name"]) == (2, "Bob")
        assert (lines["Z-line"]["from"], lines["Z-line"]["name"]) == (2, "Zed")
        assert "bot" not in lines["B-line"]
        fresh.close()
    finally:
        table.close()
        zed.close()
