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

A black-holed Redis sends no error: a subscription just hears nothing, and a publish
waits for ever. So every command to Redis is bounded (`timeout`), and Redis is pinged
on both connections: the subscription's by its reader, a few times in `down_after`,
its answer read among the messages; a publisher's at each of the node's beats
(`beat`). Redis is down once either has gone unanswered (or the subscription unmade)
for `down_after` seconds, counted from the first question left unanswered, so that a
process too busy to ask never takes its own slowness for Redis's; a subscription whose
pings go unanswered is dropped and made again (issue 41).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.exceptions import (
    AuthenticationError,
    AuthenticationWrongNumberOfArgsError,
    RedisError,
    ResponseError,
)

from trusis.server.cluster.messages import Message, decode, encode

log = logging.getLogger("trusis.server")

FAILURES = (RedisError, OSError, RuntimeError)
"""What a command to Redis raises when the link fails: its own errors, the network's
(timeouts included), and uvloop's on a connection a failure closed under redis-py."""

PREFIX = "trusis:"
RETRY_SECONDS = 0.5
PING = b"trusis-heartbeat"
READ_SECONDS = 0.25
"""How long the reader waits for a message before it looks at the heartbeat again."""


def channel(kind: str, name: str) -> str:
    return f"{PREFIX}{kind}:{name}"


class Bus:
    """One process's connection to Redis: it publishes, and listens on its channels."""

    def __init__(self, url: str, own: str,
                 on_message: Callable[[str, Message], None],
                 on_reconnect: Callable[[], Awaitable[None]],
                 timeout: float = 2.0, down_after: float = 3.0) -> None:
        self.redis: Redis = Redis.from_url(url, socket_connect_timeout=timeout,
                                           socket_timeout=timeout)
        self.own = own  # always listened to, so the subscription is never empty
        self.channels: set[str] = set()
        self.on_message = on_message
        self.on_reconnect = on_reconnect
        self.timeout = timeout
        self.down_after = down_after
        self.subscribed = False
        self._pubsub: PubSub | None = None
        self._reader: asyncio.Task[None] | None = None
        self.dropped = 0  # publications lost while Redis was down
        self.unsubscribed_since: float | None = time.monotonic()
        """Since when no subscription is made (monotonic): None while one is."""
        self.unheard_since: float | None = None
        """When the oldest ping the subscription has not answered was sent."""
        self.failing_since: float | None = None
        """When the first publisher's command that failed since the last success began."""
        self._pinging: asyncio.Task[None] | None = None

    @property
    def up(self) -> bool:
        """Nothing has gone unanswered, nor the subscription unmade, for `down_after`."""
        now = time.monotonic()
        return all(since is None or now - since < self.down_after for since in (
            self.unsubscribed_since, self.unheard_since, self.failing_since))

    def beat(self) -> None:
        """Ping Redis on a publisher's connection (at each of the node's beats), on a task
        of its own: the beat, which renews the leases, never waits for Redis."""
        if self._pinging is None or self._pinging.done():
            self._pinging = asyncio.create_task(self._ping(), name="redis ping")

    async def _ping(self) -> None:
        began = time.monotonic()
        try:
            await asyncio.wait_for(self.redis.ping(), self.timeout)
        except FAILURES:
            await self._failed(began)
            return
        self.failing_since = None

    async def _failed(self, began: float) -> None:
        """A publisher's command failed: its connections are dropped, so that the next
        command makes a new one rather than reuse one the failure left half closed."""
        self.failing_since = self.failing_since or began
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.redis.connection_pool.disconnect(inuse_connections=False),
                                   self.timeout)

    async def publish_all(self, batch: list[tuple[str, Any]]) -> None:
        """Publish `batch` in order, pipelined on one connection; lost when Redis fails
        (counted: followers catch up from the store)."""
        began = time.monotonic()
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for name, message in batch:
                    pipe.publish(name, encode(message))
                await asyncio.wait_for(pipe.execute(), self.timeout)
        except FAILURES:
            self.dropped += len(batch)
            await self._failed(began)
            return
        self.failing_since = None

    async def start(self) -> None:
        await self._check_credentials()
        self._reader = asyncio.create_task(self._read(), name="redis reader")

    async def _check_credentials(self) -> None:
        """A Redis that refuses this process's password or user is a setting to fix, not an
        outage to wait out: the process stops at start with a sentence (never the URL,
        which holds the password). An unreachable Redis is an outage (cluster/aside.py)."""
        try:
            await asyncio.wait_for(self.redis.ping(), self.timeout)
        except (AuthenticationError, AuthenticationWrongNumberOfArgsError) as refused:
            raise RuntimeError("Redis refused this server's credentials: check the user and "
                               "password in --redis") from refused
        except ResponseError as error:
            if "NOAUTH" in str(error) or "WRONGPASS" in str(error):
                raise RuntimeError("Redis asks for a password that --redis does not "
                                   "give") from error
        except FAILURES:
            return  # unreachable for now: the heartbeats say so and the process steps aside

    async def close(self) -> None:
        for task in (self._reader, self._pinging):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def publish(self, name: str, message: Any) -> int:
        """How many processes got `message` (messages.py); -1 when Redis could not be
        reached."""
        began = time.monotonic()
        try:
            heard = int(await asyncio.wait_for(self.redis.publish(name, encode(message)),
                                               self.timeout))
        except FAILURES:
            self.dropped += 1
            await self._failed(began)
            return -1
        self.failing_since = None
        return heard

    async def subscribe(self, name: str) -> None:
        if name in self.channels:
            return
        self.channels.add(name)
        if self._pubsub is not None:
            with contextlib.suppress(*FAILURES):
                await asyncio.wait_for(self._pubsub.subscribe(name), self.timeout)

    async def unsubscribe(self, name: str) -> None:
        if name not in self.channels:
            return
        self.channels.discard(name)
        if self._pubsub is not None:
            with contextlib.suppress(*FAILURES):
                await asyncio.wait_for(self._pubsub.unsubscribe(name), self.timeout)

    async def _read(self) -> None:
        """Listen, and after a lost connection listen again on every channel; each
        reconnection is followed by a catch-up (`on_reconnect`), since what was
        published meanwhile is gone. A subscription whose pings go unanswered for
        `down_after` seconds is lost too, though no error said so (a black hole)."""
        first = True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                self._pubsub = pubsub  # first: a channel added meanwhile is sent on it
                await asyncio.wait_for(pubsub.subscribe(self.own, *self.channels),
                                       self.timeout)
                self.unheard_since = self.unsubscribed_since = None
                self.subscribed = True
                if not first:
                    log.warning("redis: connected again; catching up from the database")
                    await self.on_reconnect()
                first = False
                await self._listen(pubsub)
            except asyncio.CancelledError:
                raise
            except FAILURES as err:
                if self.subscribed:
                    log.warning("redis: connection lost (%s); retrying", err or type(err))
            finally:
                if self.subscribed:
                    self.unsubscribed_since = time.monotonic()
                self.subscribed = False
                self.unheard_since = None
                self._pubsub = None
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(pubsub.aclose(), self.timeout)  # type: ignore[no-untyped-call]
            await asyncio.sleep(RETRY_SECONDS)

    async def _listen(self, pubsub: PubSub) -> None:
        """Hand on every message; ping a few times in `down_after`, and give the
        subscription up when its oldest unanswered ping is that old. What arrived is read
        before the age is judged: a process too busy to read has its answers waiting."""
        pinged = 0.0
        while True:
            message = await pubsub.get_message(timeout=READ_SECONDS)
            now = time.monotonic()
            if message is not None and message.get("type") == "pong":
                self.unheard_since = None
            elif message is not None and message.get("type") == "message":
                name = message["channel"]
                try:
                    heard = decode(message["data"])  # None: a newer kind, skipped (logged)
                    if heard is not None:
                        self.on_message(name.decode() if isinstance(name, bytes) else name,
                                        heard)
                except Exception:
                    log.exception("redis: a message on %s could not be handled", name)
            if message is not None:
                continue  # read all that waits first
            if self.unheard_since is not None and now - self.unheard_since > self.down_after:
                raise TimeoutError(f"no answer to a ping for {self.down_after:.1f} s")
            if now - pinged > self.down_after / 3:
                pinged = now
                if self.unheard_since is None:
                    self.unheard_since = now
                await asyncio.wait_for(pubsub.ping(PING), self.timeout)
