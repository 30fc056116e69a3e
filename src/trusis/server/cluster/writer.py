"""The peers of a game's writer when several processes share the games.

The process that holds a game's lease writes it: its stores carry the lease's
fencing number, what it stores is announced on the game's channel (`Actions`),
its lobby facts too (`TableFacts`), and it counts the seats and spectators
connected on the other processes (their `Presence`) so that nobody's grace
period (R52) starts while they are connected somewhere. The node (node.py) gives
a room these peers when it takes the lease, and a replica's when it loses it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from trusis.server.cluster.messages import (
    Actions,
    KeptSeat,
    Message,
    Removed,
    SeatFact,
    TableFacts,
    WaitingLine,
)
from trusis.server.data.commits import Fence
from trusis.server.tables.peers import Stored
from trusis.server.tables.room import Room


def facts(room: Room) -> TableFacts:
    """What a follower needs to show the table as the owner does."""
    return TableFacts(
        status=room.status, deadline=room.host.deadline if room.host else None,
        seats={n: SeatFact(kind=s.kind, name=s.name, player_id=s.player_id,
                           bot_kind=s.bot_kind) for n, s in room.lobby.seats.items()},
        connected=tuple(n for n in range(1, room.lobby.options.seats + 1) if room.connected(n)),
        spectators=room.spectators(), former=tuple(sorted(room.lobby.former)),
        rematch=room.lobby.rematch, quit=tuple(sorted(room.lobby.quit)),
        reserved={n: KeptSeat(player_id=r.player_id, kind=r.kind, name=r.name, until=r.until)
                  for n, r in room.lobby.reserved.items()},
        waiting=tuple(WaitingLine(seat=line["seat"], name=line["name"], text=line["text"],
                                  t=line["t"], n=line.get("n")) for line in room.waiting_chat),
        waiting_said=room.waiting_said,
        host_name=room.lobby.host_name)


class Writer:
    """Peers of the game's writer: `fence` is (this process's identity, lease number)."""

    def __init__(self, room: Room, fence: tuple[str, int],
                 publish: Callable[[Message], None],
                 lose: Callable[[Room], Awaitable[None]]) -> None:
        self.room = room
        self._fence = fence
        self._publish = publish  # on the game's channel, in order (node.py)
        self._lose = lose
        self.remote: dict[str, tuple[float, frozenset[int], int]] = {}
        """Each other process's connected seats and spectators, and until when they count."""

    @property
    def writes(self) -> bool:
        return True

    @property
    def fence(self) -> Fence:
        return self._fence

    def stored(self, stored: Stored) -> None:
        self._publish(Actions(first=stored[0], entries=stored[1], deadline=stored[2]))

    def table_changed(self) -> None:
        self._publish(facts(self.room))

    def removed(self, player_id: str) -> None:
        """D55, published in order before the facts that free the seat (`table_changed`):
        a follower closes the removed person's connections before it would show them
        the free seat."""
        self._publish(Removed(player=player_id))

    def clients_changed(self) -> None:
        return None  # the writer's own clients are counted where they are: here

    def connected(self, seat: int) -> bool:
        return any(seat in seats for _, seats, _ in self.remote.values())

    def spectators(self, here: int) -> int:
        return here + sum(n for _, _, n in self.remote.values())

    def elsewhere(self) -> bool:
        return bool(self.remote)

    async def lost(self) -> None:
        await self._lose(self.room)
