"""Requests from other sites and behind a proxy (issue 17, "Requests from elsewhere" and
the cookies of "Accounts"), against a real `trusis serve`.

A page of another site cannot change anything with the player's cookie (Origin,
Sec-Fetch-Site, a body without a JSON Content-Type); the WebSocket's Origin check
compares the scheme too; the page's CSP connects to its own origin only; cookies are
`Secure` with `--secure-cookies`, `TRUSIS_SECURE_COOKIES`, or when a trusted proxy says
the request came over https; and a proxy is trusted only when `--forwarded-allow-ips`
names it, for the scheme and for the client address the per-address limits count.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from serverplay import bearer, close_code
from serverproc import Guest, ServerProcess, hello, running_server
from trusis.server.limits.logins import ADDRESS_LOGINS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with running_server("sqlite", tmp_path_factory.mktemp("origins")) as running:
        yield running


def own(server: ServerProcess) -> str:
    return f"http://127.0.0.1:{server.port}"


def test_a_state_change_from_another_site_is_refused(server: ServerProcess) -> None:
    """`SameSite=Lax` alone is not the defence: the Origin is checked on every POST, PUT,
    PATCH and DELETE, and nothing is done for another site."""
    with httpx.Client(base_url=server.url, timeout=10) as http:
        evil = http.post("/api/guest", json={"name": "Eve"},
                         headers={"Origin": "http://evil.example"})
        assert evil.status_code == 403 and evil.json()["code"] == "cross_site"
        assert "set-cookie" not in evil.headers
        # A browser that sends no Origin still says where the request comes from.
        marked = http.post("/api/guest", json={"name": "Eve"},
                           headers={"Sec-Fetch-Site": "cross-site"})
        assert marked.status_code == 403 and marked.json()["code"] == "cross_site"
        # Our own page, and a program (no Origin at all), are served.
        mine = http.post("/api/guest", json={"name": "Ann"}, headers={"Origin": own(server)})
        assert mine.status_code == 200
        table = http.post("/api/tables", json={"name": "t", "seats": 5},
                          headers={"Origin": "https://127.0.0.1:" + str(server.port)})
        assert table.status_code == 403  # the scheme is part of the origin
        gone = http.delete("/api/me", headers={"Origin": "http://evil.example"})
        assert gone.status_code == 403
        assert http.get("/api/me").json()["player"]["name"] == "Ann"  # still there
    program = httpx.post(server.url + "/api/guest", json={"name": "Bot maker"}, timeout=10)
    assert program.status_code == 200


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_without_a_json_content_type_is_never_read_as_json(
        server: ServerProcess, content_type: str | None) -> None:
    """A page of another site may send text/plain (or no type) without asking the server
    first; FastAPI (>= 0.132, strict_content_type) must never read it as JSON."""
    headers = {"Content-Type": content_type} if content_type else {}
    reply = httpx.post(server.url + "/api/guest", content=b'{"name": "Mallory"}',
                       headers=headers, timeout=10)
    assert reply.status_code == 422, reply.text
    assert "set-cookie" not in reply.headers


def test_the_websocket_origin_check_compares_the_scheme(server: ServerProcess) -> None:
    ann = Guest(server.url, "Ann")
    path = f"/ws/tables/{ann.create(seats=5)['id']}"
    port = server.port
    assert close_code(server, path, [hello()],
                      {**bearer(ann), "Origin": f"https://127.0.0.1:{port}"}) == 4403
    assert close_code(server, path, [hello()],
                      {**bearer(ann), "Origin": f"http://127.0.0.1:{port}"}, wait=1) is None
    ann.close()


def test_the_page_connects_to_its_own_origin_only(server: ServerProcess) -> None:
    page = httpx.get(server.url + "/", timeout=10)
    directives = dict(d.strip().split(" ", 1)
                      for d in page.headers["content-security-policy"].split(";"))
    sources = directives["connect-src"].split()
    assert sources == ["'self'", f"ws://127.0.0.1:{server.port}"]
    assert "ws:" not in sources and "wss:" not in sources
    behind_https = httpx.get(server.url + "/", headers={"X-Forwarded-Proto": "https"},
                             timeout=10)
    assert f"wss://127.0.0.1:{server.port}" in behind_https.headers["content-security-policy"]
    odd = httpx.get(server.url + "/", headers={"Host": "x; connect-src *"}, timeout=10)
    assert "connect-src 'self';" in odd.headers["content-security-policy"]  # nothing of it


def test_every_answer_carries_the_safety_headers_once(server: ServerProcess) -> None:
    """The page, an API answer, a refusal and a missing path: each has the CSP, no
    sniffing, no framing and the referrer policy, exactly once; an API answer (a refusal
    too) is never cached."""
    with httpx.Client(base_url=server.url, timeout=10) as http:
        answers = {"page": http.get("/"), "api": http.get("/api/tables"),
                   "refusal": http.get("/api/tables/nosuchtable"),
                   "missing": http.get("/no/such/path")}
    assert answers["refusal"].status_code == 404 and answers["missing"].status_code == 404
    for name, answer in answers.items():
        for header, value in (("x-content-type-options", "nosniff"),
                              ("x-frame-options", "DENY"),
                              ("referrer-policy", "same-origin")):
            assert answer.headers.get_list(header) == [value], (name, header)
        assert len(answer.headers.get_list("content-security-policy")) == 1, name
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"], name
    assert answers["api"].headers.get_list("cache-control") == ["no-store"]
    assert answers["refusal"].headers.get_list("cache-control") == ["no-store"]
    assert "no-store" not in answers["page"].headers.get("cache-control", "")


def _cookie(server: ServerProcess, headers: dict[str, str] | None = None) -> str:
    reply = httpx.post(server.url + "/api/guest", json={"name": "Cookie"},
                       headers=headers or {}, timeout=10)
    assert reply.status_code == 200
    return reply.headers["set-cookie"]


def _secure(cookie: str) -> bool:
    return "secure" in [a.strip().lower() for a in cookie.split(";")[1:]]


def test_cookies_are_secure_when_the_request_came_over_https(server: ServerProcess) -> None:
    assert not _secure(_cookie(server))  # plain http on this machine: a Secure cookie
    # would never come back. A trusted proxy (uvicorn trusts 127.0.0.1 by default)
    # that says https turns it on by itself.
    assert _secure(_cookie(server, {"X-Forwarded-Proto": "https"}))


def test_secure_cookies_by_option_and_environment(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with running_server("sqlite", tmp_path / "a", extra=["--secure-cookies"]) as proc:
        assert _secure(_cookie(proc))
    monkeypatch.setenv("TRUSIS_SECURE_COOKIES", "1")
    with running_server("sqlite", tmp_path / "b") as proc:
        assert _secure(_cookie(proc))


def test_only_a_trusted_proxy_names_the_client(tmp_path: Path) -> None:
    """With `--forwarded-allow-ips` naming another proxy, this machine's forged headers are
    ignored: no https, and every login counts under the real peer's address, whatever
    X-Forwarded-For says (nginx in compose.yaml is trusted the same way, by network)."""
    (tmp_path / "p").mkdir()
    with running_server("sqlite", tmp_path / "p",
                        extra=["--forwarded-allow-ips", "192.0.2.1"]) as proc:
        assert not _secure(_cookie(proc, {"X-Forwarded-Proto": "https"}))
        with httpx.Client(base_url=proc.url, timeout=60) as http:
            codes = [http.post("/api/login", json={"name": f"nobody{i}", "password": "x" * 9},
                               headers={"X-Forwarded-For": f"10.0.0.{i + 1}"}).status_code
                     for i in range(ADDRESS_LOGINS + 1)]
    assert codes == [401] * ADDRESS_LOGINS + [429]


def test_a_trusted_proxy_keeps_its_clients_apart(tmp_path: Path) -> None:
    """Behind a trusted proxy, one client's failures do not spend another's budget."""
    (tmp_path / "q").mkdir()
    with running_server("sqlite", tmp_path / "q",
                        extra=["--forwarded-allow-ips", "127.0.0.1"]) as proc, \
            httpx.Client(base_url=proc.url, timeout=60) as http:
        for i in range(ADDRESS_LOGINS):
            http.post("/api/login", json={"name": f"nobody{i}", "password": "x" * 9},
                      headers={"X-Forwarded-For": "203.0.113.7"})
        last = http.post("/api/login", json={"name": "nobody", "password": "x" * 9},
                         headers={"X-Forwarded-For": "203.0.113.7"})
        assert last.status_code == 429
        other = http.post("/api/login",
                          json={"name": f"n{secrets.token_hex(3)}", "password": "x" * 9},
                          headers={"X-Forwarded-For": "198.51.100.9"})
        assert other.status_code == 401  # checked: this client's budget is whole
