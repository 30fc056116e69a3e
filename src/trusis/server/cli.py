"""`trusis serve`: the game server, on embedded SQLite unless told otherwise."""

from __future__ import annotations

import logging
from typing import Annotated

import typer
from sqlalchemy.engine import make_url

from trusis.server.config import Settings, default_database_url


def serve_command(
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8000,
    database: Annotated[str | None, typer.Option(
        "--database", help="Database URL: sqlite:///path or postgresql://user@host/db. "
                           "Default: an SQLite file in your data folder.")] = None,
    origin: Annotated[list[str] | None, typer.Option(
        "--origin", help="Another origin allowed to open WebSockets (e.g. behind a proxy).")
    ] = None,
    bot_pace: Annotated[float, typer.Option(
        "--bot-pace", help="Bots' thinking time: 1 is a human pace, 0 instant.")] = 1.0,
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning")] = "info",
    access_log: Annotated[bool, typer.Option(
        "--access-log", help="Log every HTTP request (their URLs may hold invite codes).")
    ] = False,
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
    limit: Annotated[list[str] | None, typer.Option(
        "--limit", help="A limit per player or per address, NAME=VALUE (0: off), e.g. "
                        "guests_per_address_hour=60; also TRUSIS_LIMIT_NAME. Every limit "
                        "is in docs/deploy.md, \"Running in public\".")] = None,
) -> None:
    """Start the game server: play Trusis together in the browser."""
    import uvicorn

    from trusis.server.app import create_app

    url = database or default_database_url()
    settings = Settings(database_url=url, host=host, port=port, origins=tuple(origin or ()),
                        bot_pace=max(0.0, bot_pace), redis_url=redis,
                        lease_seconds=lease_seconds)
    if node:
        settings.node = node[:64]
    for item in limit or ():
        name, _, value = item.partition("=")
        try:
            settings.limits.set(name.strip(), value.strip())
        except ValueError as err:
            raise typer.BadParameter(str(err), param_hint="--limit") from None
    if redis and not settings.database_url.startswith("postgresql"):
        raise typer.BadParameter(
            "several processes share one PostgreSQL database: give --database "
            "postgresql://user@host/dbname with --redis", param_hint="--redis")
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)  # migrations: only if they fail
    shown = "localhost" if host in ("127.0.0.1", "0.0.0.0", "::") else host
    kept = make_url(settings.database_url).render_as_string(hide_password=True)
    settings.ready_message = (f"Trusis is ready: open http://{shown}:{port}/ in your browser "
                              f"to play. Games are kept in {kept}. Ctrl+C stops the server.")
    uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level.lower(),
                ws="websockets-sansio", ws_max_size=settings.max_frame, access_log=access_log)
