"""The other processes that hold a table, as this process's copy of it sees them.

A room (room.py) knows nothing of clusters: it asks its `Peers` whether this
process writes the table, which fencing number its writes carry, whom to tell
what it stored, and who is connected elsewhere. `LocalPeers` is the answer of a
single process — it writes, with no fence, tells nobody, and nobody is connected
anywhere else. Several processes give a room a writer's or a replica's peers
(cluster/writer.py, cluster/replica.py) and swap them when the lease moves.
"""

from __future__ import annotations

from typing import Any, Protocol

from trusis.server.data.commits import Fence

Stored = tuple[int, tuple[tuple[dict[str, Any], float], ...], float | None]
"""Actions just stored: the record index of the first, each with its time, and the deadline."""


class Peers(Protocol):
    """What a room's copy of a table needs to know of, and tell, the other processes."""

    @property
    def writes(self) -> bool:
        """This process applies, stores and times the game (the owner of its lease)."""

    @property
    def fence(self) -> Fence:
        """The fencing number every store of the writer is checked by (None: unfenced)."""

    def stored(self, stored: Stored) -> None:
        """The writer stored these actions: the processes that follow hear of them."""

    def table_changed(self) -> None:
        """The lobby facts changed (seats, status, who is connected)."""

    def removed(self, player_id: str) -> None:
        """The writer's host removed `player_id` from the waiting room (D34, D55): the
        processes that follow the table close that person's connections to it."""

    def clients_changed(self) -> None:
        """This process's clients of the table came or went."""

    def connected(self, seat: int) -> bool:
        """Whether `seat` is connected on another process."""

    def spectators(self, here: int) -> int:
        """Every process's spectators, given this process's `here`."""

    def elsewhere(self) -> bool:
        """Whether another process told of its clients at the table lately."""

    async def lost(self) -> None:
        """The writer found its lease gone when it stored (under the room's lock)."""


class LocalPeers:
    """No other process. `writes` False for a copy of a table's lobby facts only (the
    lobby's list, with several processes: cluster/owner.py)."""

    def __init__(self, writes: bool = True) -> None:
        self._writes = writes

    @property
    def writes(self) -> bool:
        return self._writes

    @property
    def fence(self) -> Fence:
        return None

    def stored(self, stored: Stored) -> None:
        return None

    def table_changed(self) -> None:
        return None

    def removed(self, player_id: str) -> None:
        return None

    def clients_changed(self) -> None:
        return None

    def connected(self, seat: int) -> bool:
        return False

    def spectators(self, here: int) -> int:
        return here

    def elsewhere(self) -> bool:
        return False

    async def lost(self) -> None:
        raise AssertionError("a single process's lease cannot be lost")
