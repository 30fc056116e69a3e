"""Who holds each seat of a table: the one place that says it.

A seat is held by a person, a program or a bot (`seat.Seat`), and a departed
seat stays its player's while a bot plays it (D29). The store's seat rows, the
room's lobby facts and the bot driver all follow from this book: every change
goes through one of its methods, which writes the store first — fenced, so a
process that lost the game's lease changes nothing — and only then changes
memory. A failed write therefore leaves the book as the store has it; callers
hold the room's lock, so no reader sees a change half made. The engine's names
and bots change through the game's record (a `replace`, handover.py), never here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace

from trusis.server.commits import Fence
from trusis.server.seat import Seat, SeatKind
from trusis.server.store import Store


class SeatBook(Mapping[int, Seat]):
    """The seats of table `table_id`, by number; read as a mapping, changed by its methods."""

    def __init__(self, table_id: str, store: Store, fence: Callable[[], Fence]) -> None:
        self.table_id = table_id
        self.store = store
        self._fence = fence  # the room's, at the moment of the write (peers.py)
        self._held: dict[int, Seat] = {}

    def __getitem__(self, number: int) -> Seat:
        return self._held[number]

    def __iter__(self) -> Iterator[int]:
        return iter(self._held)

    def __len__(self) -> int:
        return len(self._held)

    def __repr__(self) -> str:
        return f"SeatBook({self._held!r})"

    def as_dict(self) -> dict[int, Seat]:
        return dict(self._held)

    def load(self, held: Mapping[int, Seat]) -> None:
        """The seats as read back from the store, or as the game's writer says (a replica)."""
        self._held = dict(held)

    def of(self, player_id: str | None) -> int | None:
        """The seat `player_id` plays (a bot's seat is not played by its player)."""
        for number, seat in self._held.items():
            if seat.player_id == player_id and seat.kind != "bot":
                return number
        return None

    async def hold(self, number: int, seat: Seat) -> None:
        """`seat` holds seat `number` from now on (in the lobby, or a rematch's table)."""
        await self.store.set_seat(self.table_id, number, seat.kind, seat.name, seat.player_id,
                                  seat.bot_kind, self._fence())
        self._held[number] = seat

    async def free(self, number: int) -> None:
        await self.store.free_seat(self.table_id, number, self._fence())
        self._held.pop(number, None)

    async def to_bot(self, number: int, kind: str, name: str) -> Seat:
        """A bot plays the seat from now on (R53); it stays its player's (D29, D32)."""
        await self.store.set_bot_seat(self.table_id, number, kind, name, self._fence())
        held = self._held.get(number)
        seat = Seat("bot", name, held.player_id if held is not None else None, kind)
        self._held[number] = seat
        return seat

    async def to_person(self, number: int, player_id: str, name: str,
                        kind: SeatKind = "person") -> None:
        """A person (or a program) takes the departed seat (R53)."""
        await self.store.set_person_seat(self.table_id, number, player_id, name, self._fence(),
                                         kind)
        self._held[number] = Seat(kind, name, player_id)

    def renamed(self, player_id: str, name: str) -> None:
        """Show `player_id`'s seats under `name` (an account deleted: the store already
        replaced the name in every stored game, people.py)."""
        for number, seat in self._held.items():
            if seat.player_id == player_id:
                self._held[number] = replace(seat, name=name)
