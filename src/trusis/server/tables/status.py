"""A table's life, in one place: open → running → finished, or closed / expired before
its start, and nothing else.

Every change of a room's status goes through a `TableLife` (`Room.life`; `Room.status`
only reads it): the start (seating.py), the stored end (room.py `finished`), the host's
closing (closing.py, D51), the quota's expiry of an abandoned waiting room (quota.py),
and a copy catching up with the truth — the store read back (restore.py) or the writer's
facts on a follower (cluster/replica.py). A move the machine does not know raises
`Forbidden` and changes nothing, so no code path can take a finished game back to its
lobby or start a closed table (tests/test_table_status.py).
"""

from __future__ import annotations

from typing import Literal

from trusis.server.tables.seats.seat import RoomStatus, room_status

Event = Literal["start", "finish", "close", "expire"]
"""What happens to a table: its game starts, its game ends (stored), its host closes it
before the start (D51), or nobody came to its waiting room (quota.py)."""

MOVES: dict[tuple[RoomStatus, Event], RoomStatus] = {
    ("open", "start"): "running",
    ("running", "finish"): "finished",
    ("open", "close"): "closed",
    ("open", "expire"): "expired",
    # Doing it again does nothing: a follower's copy hears of a closing twice (the
    # writer's facts, then its word on the bus), and so may an end.
    ("finished", "finish"): "finished",
    ("closed", "close"): "closed",
    ("expired", "expire"): "expired",
}
"""Every allowed move: (from, event) → to. Any other is `Forbidden`."""

AFTER: dict[RoomStatus, frozenset[RoomStatus]] = {
    "open": frozenset({"running", "finished", "closed", "expired"}),
    "running": frozenset({"finished"}),
    "finished": frozenset(),
    "closed": frozenset(),
    "expired": frozenset(),
}
"""The statuses reachable from each by one move or more: what a copy may catch up to."""


class Forbidden(ValueError):
    """A move the table's life does not allow (a bug, never a player's request: their
    refusals are checked before, as `LobbyError`s)."""


class TableLife:
    """One table's status and the only code that changes it."""

    __slots__ = ("_status",)

    def __init__(self, status: RoomStatus = "open") -> None:
        self._status: RoomStatus = status

    @classmethod
    def stored(cls, value: object) -> TableLife:
        """A table read back from the store (or another process's list) at its status."""
        return cls(room_status(value))

    @property
    def status(self) -> RoomStatus:
        return self._status

    def __repr__(self) -> str:
        return f"TableLife({self._status!r})"

    def move(self, event: Event) -> RoomStatus:
        """Apply `event`: the new status, or `Forbidden` (and no change)."""
        after = MOVES.get((self._status, event))
        if after is None:
            raise Forbidden(f"a {self._status} table cannot {event}")
        self._status = after
        return after

    def start(self) -> None:
        self.move("start")

    def finish(self) -> None:
        self.move("finish")

    def close(self) -> None:
        self.move("close")

    def expire(self) -> None:
        self.move("expire")

    def follow(self, status: RoomStatus) -> bool:
        """A copy catches up with the truth (the store, or the writer's facts): to
        `status` when it is ahead of this one; a status behind it (a late word) is left
        as it is, since a table's life never goes back. Whether it moved."""
        if status == self._status or status not in AFTER[self._status]:
            return False
        self._status = status
        return True
