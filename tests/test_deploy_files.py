"""The deployment files agree with each other and with `trusis serve` (docs/deploy.md).

compose.yaml runs PostgreSQL, Redis, two `trusis serve` processes built from the
Dockerfile, and nginx (HAProxy as an option); deploy/nginx.conf and deploy/haproxy.cfg
route to exactly those processes, round-robin, without sticky sessions, WebSockets
included. The command lines of the compose file and of docs/deploy.md use only options
that the real CLI lists; the cluster's options (--redis, --node) are checked once
`trusis serve --help` has them. When nginx, HAProxy or Docker Compose are installed,
their own checkers read the files too; otherwise those tests are skipped.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "compose.yaml"
NGINX = ROOT / "deploy" / "nginx.conf"
HAPROXY = ROOT / "deploy" / "haproxy.cfg"
DOCKERFILE = ROOT / "Dockerfile"
DEPLOY_DOC = ROOT / "docs/deploy.md"
PORT = 8000  # where the trusis processes listen inside their containers
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z-]*")


@functools.cache
def serve_options() -> frozenset[str]:
    """The options the real `trusis serve --help` lists."""
    env = dict(os.environ, COLUMNS="200", TERM="dumb", NO_COLOR="1")
    out = subprocess.run([sys.executable, "-m", "trusis", "serve", "--help"], env=env,
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return frozenset(OPTION.findall(out))


def cluster_cli() -> bool:
    return "--redis" in serve_options()


needs_cluster = pytest.mark.skipif(
    not cluster_cli(), reason="`trusis serve` has no --redis yet (issue 13's cluster)")


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text("utf-8"))
    return data


def services() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = compose()["services"]
    return found


def trusis_services() -> dict[str, dict[str, Any]]:
    return {name: service for name, service in services().items()
            if command_of(service)[:2] == ["trusis", "serve"]}


def command_of(service: dict[str, Any]) -> list[str]:
    command = service.get("command", [])
    return shlex.split(command) if isinstance(command, str) else [str(c) for c in command]


def option_values(command: list[str]) -> dict[str, str]:
    """`--name value` pairs of a command line (every option of these takes a value)."""
    values = {}
    for index, word in enumerate(command):
        if word.startswith("--"):
            assert index + 1 < len(command), f"{word} has no value in {command}"
            values[word] = command[index + 1]
    return values


def nginx_upstream_servers(text: str) -> list[str]:
    block = re.search(r"upstream\s+\w+\s*\{(.*?)\}", text, re.S)
    assert block, "deploy/nginx.conf has no upstream block"
    return re.findall(r"^\s*server\s+([\w.-]+:\d+)", block.group(1), re.M)


def uncommented(text: str) -> str:
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


# -- compose.yaml ---------------------------------------------------------------------


def test_compose_has_the_stores_two_servers_and_a_proxy() -> None:
    found = services()
    assert {"postgres", "redis", "nginx"} <= set(found)
    assert found["postgres"]["image"].startswith("postgres:")
    assert found["redis"]["image"].startswith("redis:")
    assert found["nginx"]["image"].startswith("nginx:")
    assert len(trusis_services()) >= 2, "two `trusis serve` processes at least"
    for service in (found["postgres"], found["redis"]):
        assert "healthcheck" in service, "the servers wait for their stores to be healthy"


def test_each_server_is_built_here_and_shares_the_secret() -> None:
    assert DOCKERFILE.exists()
    for name, service in trusis_services().items():
        assert service.get("build") in (".", {"context": "."}), name
        environment = service["environment"]
        assert "TRUSIS_SECRET" in environment, f"{name}: every process signs with one secret"
        assert environment["TRUSIS_SECRET"].startswith("${TRUSIS_SECRET"), \
            f"{name}: the secret comes from the environment or .env, never from the file"
        depends = service["depends_on"]
        for store in ("postgres", "redis"):
            assert depends[store]["condition"] == "service_healthy", name
        health = " ".join(service["healthcheck"]["test"])
        assert f"127.0.0.1:{PORT}/api/health" in health, name


def test_the_servers_listen_everywhere_on_the_shared_stores() -> None:
    nodes = set()
    for name, service in trusis_services().items():
        values = option_values(command_of(service)[2:])
        assert values["--host"] == "0.0.0.0", name
        assert values.get("--port", str(PORT)) == str(PORT), name
        assert re.fullmatch(r"postgresql://[^@]+@postgres:5432/\w+", values["--database"]), name
        # Redis asks for a password (issue 17), which comes from .env like the others.
        assert re.fullmatch(r"redis://:\$\{REDIS_PASSWORD[^}]*\}@redis:6379/\d+",
                            values["--redis"]), name
        nodes.add(values.get("--node", name))
    assert len(nodes) == len(trusis_services()), "each process has a node name of its own"
    databases = {option_values(command_of(s)[2:])["--database"]
                 for s in trusis_services().values()}
    assert len(databases) == 1, "one database for every process"


def test_the_proxies_wait_for_the_servers() -> None:
    found = services()
    for proxy in ("nginx", "haproxy"):
        if proxy not in found:
            continue
        depends = found[proxy]["depends_on"]
        assert set(trusis_services()) <= set(depends), proxy
    mounts = " ".join(found["nginx"]["volumes"])
    assert "./deploy/nginx.conf:/etc/nginx/nginx.conf" in mounts
    if "haproxy" in found:
        assert "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg" in \
            " ".join(found["haproxy"]["volumes"])


@needs_cluster
def test_compose_command_lines_use_only_options_the_cli_accepts() -> None:
    for name, service in trusis_services().items():
        unknown = set(option_values(command_of(service)[2:])) - serve_options()
        assert not unknown, f"{name} passes options `trusis serve --help` lacks: {unknown}"


def test_the_cli_options_check_reads_the_real_help() -> None:
    assert {"--host", "--port", "--database", "--origin"} <= serve_options()


# -- Dockerfile ---------------------------------------------------------------------


def test_the_image_installs_the_package_and_serves() -> None:
    text = DOCKERFILE.read_text("utf-8")
    assert re.search(r"^FROM python:3\.11-slim\b", text, re.M)
    assert re.search(r"pip install -c requirements\.lock (\.|/wheels/trusis-)", text), \
        "the image installs the versions the tests ran with"
    assert re.search(r"^COPY [^\n]*requirements\.lock", text, re.M)
    cmd = re.search(r"^CMD\s+(\[.*\])", text, re.M)
    assert cmd, "the image's command"
    words = yaml.safe_load(cmd.group(1))
    assert words[:2] == ["trusis", "serve"]
    assert option_values(words[2:])["--host"] == "0.0.0.0"
    assert set(option_values(words[2:])) <= serve_options()
    ignored = [line.strip() for line in (ROOT / ".dockerignore").read_text("utf-8").splitlines()
               if line.strip() and not line.startswith("#")]
    for needed in ("src", "pyproject.toml", "README.md", "LICENSE", "requirements.lock"):
        assert needed not in ignored, f"the image needs {needed}"


def test_the_lock_file_pins_the_versions_the_tests_run_with() -> None:
    """Issue 17: a compose build installs what was tested, not the newest of the day.
    When this fails, run `.venv/bin/python tools/lock.py > requirements.lock`."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import lock
    finally:
        sys.path.pop(0)
    assert (ROOT / "requirements.lock").read_text("utf-8") == lock.render()
    pins = dict(line.split("==") for line in lock.render().splitlines()
                if line and not line.startswith("#"))
    for requirement in tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))[
            "project"]["dependencies"]:
        name = re.split(r"[\[<>=!~ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        assert name in pins, f"{name} is pinned"


def test_fastapi_never_reads_a_body_without_a_json_content_type() -> None:
    """FastAPI reads a body as JSON only with a JSON Content-Type from 0.132 on
    (strict_content_type): the lower bound keeps an older one out (issue 17)."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))[
        "project"]["dependencies"]
    bound = next(d for d in dependencies if d.startswith("fastapi"))
    found = re.fullmatch(r"fastapi>=0\.(\d+)(\.\d+)?", bound)
    assert found and int(found.group(1)) >= 132, bound


# -- deploy/nginx.conf and deploy/haproxy.cfg ---------------------------------------------


def test_the_proxies_name_the_client_and_the_servers_believe_only_them() -> None:
    """Issue 17: behind the proxy every client would share its address, and 30 logins
    would stop logins for everyone. The proxies overwrite X-Forwarded-For and
    X-Forwarded-Proto (a client cannot write them), and the servers believe them."""
    nginx = uncommented(NGINX.read_text("utf-8"))
    assert re.search(r"proxy_set_header\s+X-Forwarded-For\s+\$remote_addr;", nginx)
    assert "$proxy_add_x_forwarded_for" not in nginx, "appending lets a client forge it"
    assert re.search(r"proxy_set_header\s+X-Forwarded-Proto\s+\$scheme;", nginx)
    haproxy = uncommented(HAPROXY.read_text("utf-8"))
    assert re.search(r"http-request\s+set-header\s+X-Forwarded-For\s+%\[src\]", haproxy)
    assert re.search(r"http-request\s+set-header\s+X-Forwarded-Proto\s+https", haproxy)
    for name, service in trusis_services().items():
        trusted = service["environment"]["FORWARDED_ALLOW_IPS"]
        assert trusted, name
        if trusted == "*":
            assert "ports" not in service, f"{name}: trusting every peer needs no port open"
        assert "TRUSIS_SECURE_COOKIES" in service["environment"], name


def test_redis_has_a_password_and_no_open_port() -> None:
    redis = services()["redis"]
    command = [str(word) for word in redis["command"]]
    assert "--requirepass" in command
    assert command[command.index("--requirepass") + 1].startswith("${REDIS_PASSWORD")
    assert "ports" not in redis and "ports" not in services()["postgres"]
    assert "REDIS_PASSWORD=" in (ROOT / "deploy/env.example").read_text("utf-8")



def test_nginx_passes_websockets_round_robin() -> None:
    text = uncommented(NGINX.read_text("utf-8"))
    assert re.search(r"proxy_http_version\s+1\.1;", text)
    assert re.search(r"proxy_set_header\s+Upgrade\s+\$http_upgrade;", text)
    assert re.search(r"proxy_set_header\s+Connection\s+\$connection_upgrade;", text)
    assert re.search(r"map\s+\$http_upgrade\s+\$connection_upgrade\s*\{[^}]*default\s+upgrade;",
                     text)
    # The server compares a WebSocket's Origin with Host: Host must keep its port.
    assert re.search(r"proxy_set_header\s+Host\s+\$http_host;", text)
    assert not re.search(r"proxy_set_header\s+Host\s+\$host;", text)
    timeout = re.search(r"proxy_read_timeout\s+(\d+)s;", text)
    assert timeout and int(timeout.group(1)) >= 600, "WebSockets stay open for long"
    for sticky in ("ip_hash", "sticky", "hash ", "least_conn"):
        assert sticky not in text, f"no {sticky}: round-robin, no sticky sessions"


def test_nginx_and_haproxy_route_to_exactly_the_compose_servers() -> None:
    expected = sorted(f"{name}:{PORT}" for name in trusis_services())
    assert sorted(nginx_upstream_servers(NGINX.read_text("utf-8"))) == expected
    text = uncommented(HAPROXY.read_text("utf-8"))
    assert sorted(re.findall(r"^\s*server\s+\S+\s+([\w.-]+:\d+)", text, re.M)) == expected
    assert re.search(r"^\s*balance\s+roundrobin\b", text, re.M)
    assert re.search(r"^\s*option\s+httpchk\s+GET\s+/api/health\b", text, re.M)
    assert re.search(r"^\s*timeout\s+tunnel\s+\d+[hm]\b", text, re.M)
    for sticky in ("stick-table", "stick on", "cookie "):
        assert sticky not in text, f"no {sticky}: round-robin, no sticky sessions"


def _local_copy(text: str, tmp_path: Path, name: str) -> Path:
    """The file with the compose services' host names replaced by the loopback, so that
    a checker on this machine can resolve them."""
    for service in trusis_services():
        text = text.replace(f"{service}:{PORT}", f"127.0.0.1:{PORT}")
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return path


@pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed")
def test_nginx_reads_the_file(tmp_path: Path) -> None:
    config = _local_copy(NGINX.read_text("utf-8"), tmp_path, "nginx.conf")
    (tmp_path / "logs").mkdir()
    out = subprocess.run(["nginx", "-t", "-q", "-p", str(tmp_path), "-c", str(config),
                          "-g", f"pid {tmp_path / 'nginx.pid'}; error_log stderr;"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr


@pytest.mark.skipif(shutil.which("haproxy") is None, reason="HAProxy is not installed")
def test_haproxy_reads_the_file() -> None:
    out = subprocess.run(["haproxy", "-c", "-f", str(HAPROXY)], capture_output=True,
                         text=True, timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr


def compose_command() -> list[str] | None:
    """`docker compose` when the plugin is there, else Debian's `docker-compose`."""
    if shutil.which("docker") and subprocess.run(
            ["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    return None


@pytest.mark.skipif(compose_command() is None, reason="Docker Compose is not installed")
def test_docker_compose_reads_the_file() -> None:
    command = compose_command()
    assert command is not None
    env = dict(os.environ, TRUSIS_SECRET="a-secret-for-the-check",
               REDIS_PASSWORD="a-password-for-the-check")
    out = subprocess.run([*command, "-f", str(COMPOSE), "--profile", "haproxy", "config",
                          "--quiet"], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


# -- docs/deploy.md ---------------------------------------------------------------------


def documented_commands() -> list[list[str]]:
    """Every `trusis serve …` command line in docs/deploy.md's code blocks."""
    text = DEPLOY_DOC.read_text("utf-8")
    commands = []
    # Every fence is read with its language (a closing fence is never taken for an opening
    # one), then only the shell blocks are kept.
    for language, block in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        if language not in ("", "sh", "bash", "console"):
            continue
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line.split(" #", 1)[0])
            if "serve" in words and any(w.endswith("trusis") for w in words[:words.index(
                    "serve")]):
                commands.append(words[words.index("serve") + 1:])
    return commands


def test_the_deploy_doc_shows_commands() -> None:
    assert documented_commands(), "docs/deploy.md shows how to run `trusis serve`"


@needs_cluster
def test_the_deploy_doc_uses_only_options_the_cli_accepts() -> None:
    for words in documented_commands():
        unknown = {w.split("=", 1)[0] for w in words if w.startswith("--")} - serve_options()
        assert not unknown, f"docs/deploy.md: `trusis serve {' '.join(words)}`: {unknown}"


def test_the_health_table_says_which_fields_only_several_processes_have(
        tmp_path: Path) -> None:
    """An operator's trial: on one process `/api/health` has no `node`, `owned`,
    `followed` or `forwarded`, while docs/deploy.md's table listed them for every process.
    The fields marked *cluster* are exactly those one process lacks."""
    from serverproc import running_server

    text = DEPLOY_DOC.read_text("utf-8")
    table = text[text.index("`GET /api/health` on each process"):
                 text.index("A process is overloaded when")]
    rows = re.findall(r"^\| `(\w+)` \| (.*?) \|$", table, re.M)
    documented = {name for name, _ in rows}
    cluster_only = {name for name, meaning in rows if meaning.startswith("*cluster*")}
    with running_server("sqlite", tmp_path) as server:
        import httpx

        one = set(httpx.get(server.url + "/api/health", timeout=10).json())
    assert one == documented - cluster_only, (one, documented, cluster_only)
    assert {"node", "owned", "followed", "forwarded"} <= cluster_only
