"""The Redis channels between server processes: pub/sub, and nothing kept in Redis.

Three kinds of channel (names in `channel`):

- `t:<table>` — from a game's owner to every process following it: the actions
  it stored, the table's lobby facts, and whom its host removed from the waiting
  room (D55: their connections there close);
- `o:<table>` — to a game's owner, whichever process that is: forwarded
  commands and lobby requests, and which seats each follower has connected;
- `r:<node>` — answers to one process's forwarded requests;
- `s:revoked` — sessions ended on one process (sessions.py), whose open
  connections every process closes, and warnings given there, which every
  process tells its connections of the player at once.

Pub/sub delivers to whoever listens at that moment and keeps nothing, so
nothing relies on it alone: a follower checks the database by stream number
(node.py), and a forwarded request that gets no answer is tried again. A
`PUBLISH` says how many processes received it: zero means no owner is
listening right now (it died, or is being taken over).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from trusis.server.cluster.messages import Message, decode, encode

log = logging.getLogger("trusis.server")

PREFIX = "trusis:"
RETRY_SECONDS = 0.5


def channel(kind: str, name: str) -> str:
    return f"{PREFIX}{kind}:{name}"


class Bus:
    """One process's connection to Redis: it publishes, and listens on its channels."""

    def __init__(self, url: str, own: str,
                 on_message: Callable[[str, Message], None],
                 on_reconnect: Callable[[], Awaitable[None]]) -> None:
        self.redis: Redis = Redis.from_url(url, socket_connect_timeout=2, socket_timeout=None,
                                           health_check_interval=5)
        self.own = own  # always listened to, so the subscription is never empty
        self.channels: set[str] = set()
        self.on_message = on_message
        self.on_reconnect = on_reconnect
        self.up = False
        self._pubsub: PubSub | None = None
        self._reader: asyncio.Task[None] | None = None
        self.dropped = 0  # publications lost while Redis was down

    async def start(self) -> None:
        self._reader = asyncio.create_task(self._read(), name="redis reader")

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def publish(self, name: str, message: Any) -> int:
        """How many processes got `message` (messages.py); -1 when Redis could not be
        reached."""
        try:
            return int(await self.redis.publish(name, encode(message)))
        except (RedisError, OSError):
            self.dropped += 1
            return -1

    async def subscribe(self, name: str) -> None:
        if name in self.channels:
            return
        self.channels.add(name)
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.subscribe(name)

    async def unsubscribe(self, name: str) -> None:
        if name not in self.channels:
            return
        self.channels.discard(name)
        if self._pubsub is not None:
            with contextlib.suppress(RedisError, OSError):
                await self._pubsub.unsubscribe(name)

    async def _read(self) -> None:
        """Listen, and after a lost connection listen again on every channel; each
        reconnection is followed by a catch-up (`on_reconnect`), since what was
        published meanwhile is gone."""
        first = True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                self._pubsub = pubsub  # first: a channel added meanwhile is sent on it
                await pubsub.subscribe(self.own, *self.channels)
                self.up = True
                if not first:
                    log.warning("redis: connected again; catching up from the database")
                    await self.on_reconnect()
                first = False
                async for message in pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    name = message["channel"]
                    try:
                        self.on_message(name.decode() if isinstance(name, bytes) else name,
                                        decode(message["data"]))
                    except Exception:
                        log.exception("redis: a message on %s could not be handled", name)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as err:
                if self.up:
                    log.warning("redis: connection lost (%s); retrying", err)
            finally:
                self.up = False
                self._pubsub = None
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]
            await asyncio.sleep(RETRY_SECONDS)
