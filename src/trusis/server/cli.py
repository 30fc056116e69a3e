"""`trusis serve`: the game server, on embedded SQLite unless told otherwise."""

from __future__ import annotations

from typing import Annotated, NoReturn

import typer

from trusis.bots.expert import ROLLOUTS
from trusis.rules.errors import escaped
from trusis.server.config import Settings, default_database_url
from trusis.server.connections.transport import DEFAULT_COMPRESSION, Compression
from trusis.server.data import onefile
from trusis.server.data.urls import shown, sqlite_file
from trusis.server.limits.settings import LimitError, Limits
from trusis.server.monitoring.logs import LogFormat
from trusis.server.notifications.mail import MailSettings, MailSettingsError
from trusis.server.tables.thinking import THREADS


def fail(message: str) -> NoReturn:
    """A one-line error on standard error, exit 2, as the other commands' (cli/common.py,
    which this layer may not import: tests/test_imports.py)."""
    typer.echo(f"error: {escaped(message)}", err=True)
    raise typer.Exit(2)


def serve_command(
    ctx: typer.Context,
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8000,
    database: Annotated[str | None, typer.Option(
        "--database", help="Database URL: sqlite:///path or postgresql://user@host/db. "
                           "Default: an SQLite file in your data folder.")] = None,
    origin: Annotated[list[str] | None, typer.Option(
        "--origin", help="Another origin allowed to open WebSockets (e.g. behind a proxy).")
    ] = None,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", envvar="TRUSIS_ALLOWED_HOSTS",
        help="A host name this server answers to (the name players open, behind a proxy), "
             "besides addresses, localhost and the hosts of --public-url and --origin; "
             "'.example.org' for every name under it, '*' for any (docs/deploy.md).")
    ] = None,
    bot_pace: Annotated[float, typer.Option(
        "--bot-pace", help="Bots' thinking time: 1 is a human pace, 0 instant.")] = 1.0,
    bot_rollouts: Annotated[int, typer.Option(
        "--bot-rollouts", min=0, max=200, envvar="TRUSIS_BOT_ROLLOUTS",
        help="An expert bot's CPU budget: plays of the engine per decision "
             "(docs/bots.md).")] = ROLLOUTS,
    bot_threads: Annotated[int, typer.Option(
        "--bot-threads", min=0, max=16, envvar="TRUSIS_BOT_THREADS",
        help="Threads thinking for expert bots off the event loop; 0: they play "
             "as normal.")] = THREADS,
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning")] = "info",
    access_log: Annotated[bool, typer.Option(
        "--access-log", help="Log every HTTP request (their URLs may hold invite codes).")
    ] = False,
    token_days: Annotated[float, typer.Option(
        "--token-days", min=0.00001, max=400, envvar="TRUSIS_TOKEN_DAYS",
        help="How long a sign-in (cookie or token) lasts, in days (docs/deploy.md).")
    ] = 30.0,
    secure_cookies: Annotated[bool, typer.Option(
        "--secure-cookies", envvar="TRUSIS_SECURE_COOKIES",
        help="Mark cookies Secure (behind HTTPS). On by itself for a request a trusted "
             "proxy says came over https.")] = False,
    forwarded_allow_ips: Annotated[str | None, typer.Option(
        "--forwarded-allow-ips", envvar="FORWARDED_ALLOW_IPS",
        help="The proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: "
             "addresses or networks, comma-separated (default 127.0.0.1). The per-address "
             "limits count the client they name (docs/deploy.md, \"Behind a proxy\").")
    ] = None,
    redis: Annotated[str | None, typer.Option(
        "--redis", help="Run as one of several processes: redis://host:6379/0, shared by "
                        "all of them with one PostgreSQL --database (docs/deploy.md).")
    ] = None,
    node: Annotated[str | None, typer.Option(
        "--node", help="This process's name among several (default: host-pid-random).")
    ] = None,
    lease_seconds: Annotated[float, typer.Option(
        "--lease-seconds", min=0.5, max=120,
        help="With --redis: how soon another process takes over a game whose process "
             "stopped answering.")] = 5.0,
    metrics_port: Annotated[int | None, typer.Option(
        "--metrics-port", min=1, max=65535,
        help="Serve Prometheus metrics at /metrics on this port of its own (on "
             "--metrics-host), and nothing else there. Default: no metrics.")] = None,
    metrics_host: Annotated[str, typer.Option(
        "--metrics-host", help="The address the metrics port listens on.")] = "127.0.0.1",
    metrics_token: Annotated[str | None, typer.Option(
        "--metrics-token", envvar="TRUSIS_METRICS_TOKEN",
        help="Serve /metrics on the main port too, to requests with the header "
             "'Authorization: Bearer TOKEN' (better given as TRUSIS_METRICS_TOKEN).")
    ] = None,
    log_format: Annotated[LogFormat, typer.Option(
        "--log-format", help="text: lines for people (default); json: one JSON object a "
                             "line, with the request, table and seat ids.")] = "text",
    limit: Annotated[list[str] | None, typer.Option(
        "--limit", help="A limit per player or per address, NAME=VALUE (0: off), e.g. "
                        "guests_per_address_hour=60; also TRUSIS_LIMIT_NAME. Every limit "
                        "is in docs/deploy.md, \"Running in public\".")] = None,
    public_url: Annotated[str | None, typer.Option(
        "--public-url", envvar="TRUSIS_PUBLIC_URL",
        help="The address players open (https://trusis.example.org): the links in "
             "notification mails and pushes. Mail is sent when TRUSIS_SMTP_HOST is set "
             "(docs/deploy.md, \"Notifications\").")] = None,
    ws_compression: Annotated[Compression, typer.Option(
        "--ws-compression", envvar="TRUSIS_WS_COMPRESSION",
        help="WebSocket per-message deflate: deflate (the default), off (20 times the "
             "bytes, a little less CPU), wide (uvicorn's own, more memory); docs/deploy.md.")
    ] = DEFAULT_COMPRESSION,
) -> None:
    """Start the game server: play Trusis together in the browser."""
    try:
        limits = Limits.from_env()
    except LimitError as err:
        fail(str(err))
    url = database or default_database_url()
    settings = Settings(database_url=url, host=host, port=port, origins=tuple(origin or ()),
                        allowed_hosts=tuple(allowed_host or ()),
                        bot_pace=max(0.0, bot_pace), redis_url=redis,
                        bot_rollouts=bot_rollouts, bot_threads=bot_threads,
                        lease_seconds=lease_seconds, token_days=token_days,
                        secure_cookies=secure_cookies, limits=limits)
    if node:
        settings.node = node[:64]
    for item in limit or ():
        name, equals, value = item.partition("=")
        if not equals:
            fail(f"--limit {item}: give NAME=VALUE, such as guests_per_address_hour=60")
        try:
            settings.limits.set(name.strip(), value)
        except LimitError as err:
            fail(str(err))
    if redis and not settings.database_url.startswith("postgresql"):
        fail("--redis: several processes share one PostgreSQL database: give --database "
             "postgresql://user@host/dbname with --redis")
    if metrics_token is not None and len(metrics_token.strip()) < 16:
        fail(f"{_given(ctx, 'metrics_token', '--metrics-token', 'TRUSIS_METRICS_TOKEN')}: give a "
             "metrics token of 16 characters or more")
    if metrics_port is not None and metrics_port == port:
        fail("--metrics-port: the metrics port must differ from --port")
    settings.metrics_port = metrics_port
    if public_url:
        if not public_url.startswith(("http://", "https://")):
            fail("--public-url: give the address players open, such as "
                 "https://trusis.example.org")
        settings.public_url = public_url.rstrip("/")
    try:
        MailSettings.from_env()
    except MailSettingsError as err:
        fail(str(err))
    settings.metrics_token = (metrics_token or "").strip()
    settings.log_json = log_format == "json"
    kept = shown(settings.database_url)
    settings.ready_message = (f"Trusis is ready: {_where(host, port, redis is not None)} "
                              "Games are kept in "
                              f"{kept}. Ctrl+C stops the server.")
    if (path := sqlite_file(settings.database_url)) is not None:
        try:
            held = onefile.hold(path)  # noqa: F841 - kept open while the server runs
        except onefile.FileInUse as err:
            typer.echo(f"trusis serve: {err.sentence()}", err=True)
            raise typer.Exit(2) from None
    run(settings, log_level, log_format, access_log, metrics_host, forwarded_allow_ips,
        ws_compression)


def _given(ctx: typer.Context, param: str, option: str, variable: str) -> str:
    """The option's name, or its environment variable's when the value came from there:
    an error names the setting the operator actually gave."""
    source = ctx.get_parameter_source(param)
    return variable if getattr(source, "name", "") == "ENVIRONMENT" else option


def _where(host: str, port: int, clustered: bool = False) -> str:
    """Where to open the game, and for a server every address reaches, the address to
    send friends: a table's link copied from a page at localhost opens on no one else's
    computer. One of several processes (`--redis`) is not where anyone plays: it sits
    behind a load balancer, whose public address the players open; it says where it
    listens, for the proxy (and `/api/health`)."""
    if clustered:
        listens = f"http://{_bracketed(host)}:{port}/"
        if host in ("0.0.0.0", "::"):
            found = network_address()
            listens = f"port {port} of every address of this machine" + (
                f" (on its network: http://{found}:{port}/)" if found else "")
        return (f"this process listens on {listens}, for the load balancer in front of the "
                "processes (and /api/health); players open the proxy's public address, "
                "not this process's.")
    if host in ("127.0.0.1", "::1", "localhost"):
        return (f"open http://localhost:{port}/ in your browser to play (only this computer "
                "can: --host 0.0.0.0 lets the others on your network in).")
    if host not in ("0.0.0.0", "::"):
        return f"open http://{host}:{port}/ in your browser to play."
    found = network_address()
    shared = (f" Friends on your network open http://{found}:{port}/ (open it there too, "
              "so that the tables' links you send them work).") if found else ""
    return f"open http://localhost:{port}/ in your browser to play.{shared}"


def _bracketed(host: str) -> str:
    """An IPv6 address as a URL holds it."""
    return f"[{host}]" if ":" in host else host


def network_address() -> str | None:
    """This machine's address on its network: the one it would send from (a UDP socket
    sends nothing when it connects), or None without a network."""
    import socket

    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached
            found: str = probe.getsockname()[0]
    except OSError:
        return None
    return None if found.startswith("127.") or found == "0.0.0.0" else found


KEEP_ALIVE_SECONDS = 20
"""An idle HTTP connection closes after this long: longer than the clients' own expiry (httpx
5 s, the proxies in `deploy/` 10 s), so a client never sends on a connection the server is
closing at the same moment (uvicorn's 5 s equalled httpx's, and a request after 5 s of quiet
could meet 'server disconnected')."""


FEW_FILES = 4096
"""Below this many open files the server says at start-up that its system limits it."""


def run(settings: Settings, log_level: str, log_format: LogFormat, access_log: bool,
        metrics_host: str, forwarded_allow_ips: str | None,
        compression: Compression = DEFAULT_COMPRESSION) -> None:
    """uvicorn on the main port, and on the metrics port when there is one (the same app
    and event loop: the metrics are read where the game runs, nothing is shared across
    threads; `metrics.MetricsPortOnly` keeps the game off that port)."""
    import logging

    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from trusis.server.app import create_app
    from trusis.server.connections.transport import protocol
    from trusis.server.limits.connections import http_protocol, raise_open_files
    from trusis.server.monitoring import logs, logsafe

    config = uvicorn.Config(
        create_app(settings), host=settings.host, port=settings.port,
        log_level=log_level.lower(), ws=protocol(compression, settings.limits),
        ws_max_size=settings.max_frame,
        ws_ping_interval=settings.limits.silent_socket_seconds,
        ws_ping_timeout=settings.limits.silent_socket_seconds,
        access_log=access_log, proxy_headers=True, forwarded_allow_ips=forwarded_allow_ips,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        log_config=logs.uvicorn_config(log_level) if log_format == "json" else LOGGING_CONFIG)
    config.http = http_protocol(settings.limits.connections_per_address,
                                settings.limits.request_seconds, config.forwarded_allow_ips)
    logs.configure(log_format, log_level)  # after uvicorn's own set-up, which it replaces
    if log_format == "text":  # uvicorn keeps its own lines; invite codes blanked in them
        for name in ("uvicorn.error", "uvicorn.access"):
            logging.getLogger(name).addFilter(logs.ContextFilter())
    logsafe.install()  # credentials in URLs blanked on every logger that writes paths
    if (files := raise_open_files()) < FEW_FILES:
        logging.getLogger("trusis.server").warning(
            "this process may open only %d files, one per connection: raise its hard limit "
            "(LimitNOFILE= under systemd, ulimit -Hn) to carry more players", files)
    server = uvicorn.Server(config)
    if settings.metrics_port is None:
        server.run()
        return
    sockets = [config.bind_socket(),
               uvicorn.Config(config.app, host=metrics_host, port=settings.metrics_port,
                              log_config=None, log_level=None).bind_socket()]
    server.run(sockets=sockets)
