"""The lobby of one table: its host, options, invite and who holds each seat.

`Room` (room.py) holds one `LobbyState` as `room.lobby`, apart from the live game it
writes (table, deadline, lock, bots, timers) and its connections. This is the one
place that says who holds each seat — a person, a program, a bot, or nobody since it
departed (R52–R53) — and every change of a seat's holder in memory goes through one
of its methods (`sit`, `free`, `to_bot`, `to_person`, `replace_all`, `rename`). It
does no I/O: a lobby request or a hand-over changes a seat through seat_changes.py,
which stores the seat's row first (under the room's lock and its lease's fence), so a
failed write changes nothing here, and then tells the bot driver; the engine's names
are `names()` at the start (seating.py) and change by its `replace` action afterwards
(handover.py), and the bot driver (botplay.py) plays `bot_seats()` from the start or a
restore (`GameHost.seat_bots`, host.py). The claim codes (R53) and the seats a
rematch keeps (D19) change only through its methods too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from trusis.bots.registry import DEFAULT_BOT
from trusis.server.tables.options import TableOptions
from trusis.server.tables.seats.seat import (
    Reservation,
    Seat,
    SeatKind,
    hand_facts,
    handed_over,
    live,
    reserved_entry,
)
from trusis.table.table import Table

Holding = Literal["person", "program", "bot", "departed"]
"""Who plays a seat now: its holder's kind, or `departed` — its `leave` is in the
record and no bot took it over, so it passes by itself (R52) until someone takes it (R53)."""


@dataclass
class LobbyState:
    """A table's lobby facts and seats (the invite is for its host only: `Room.info`)."""

    host_id: str
    host_name: str
    options: TableOptions
    invite: str
    seats: dict[int, Seat] = field(default_factory=dict)
    claims: dict[str, int] = field(default_factory=dict)  # claim code -> departed seat
    reserved: dict[int, Reservation] = field(default_factory=dict)  # kept for a rematch
    quit: set[int] = field(default_factory=set)  # seats whose player left on purpose (D31)
    former: set[str] = field(default_factory=set)  # players whose seat went to a bot
    rematch: str | None = None  # the table proposed to play this game again (rematch/)
    previous: str | None = None  # the game this table is the rematch of: its bots give way

    # -- who holds a seat -------------------------------------------------------

    def seat_of(self, player_id: str | None) -> int | None:
        """The seat `player_id` plays: never one a bot plays for them (D29: they watch)."""
        for number, seat in self.seats.items():
            if seat.player_id == player_id and seat.kind != "bot":
                return number
        return None

    def owned_by(self, player_id: str | None) -> list[int]:
        """Every seat that is `player_id`'s: the one they play and the one a bot plays for
        them (D29). One at most (D39): each way to a seat checks it."""
        return [n for n, s in sorted(self.seats.items())
                if player_id is not None and s.player_id == player_id]

    def holding(self, seat: int, table: Table | None) -> Holding | None:
        """Who plays `seat` now (None: nobody sits there, before the start)."""
        held = self.seats.get(seat)
        if table is not None and table.state.running and table.state.left[seat]:
            return "departed"
        return None if held is None else held.kind

    def names_beside(self, seat: int | None, player_id: str | None,
                     table: Table | None = None) -> list[str]:
        """The names a player taking `seat` must not look like (D20, D40): every other
        seat's — one a bot plays for its player also under the player's name, as the game
        shows it (`table`'s names, D29) — and the name of every seat a rematch still keeps
        for someone else (D19)."""
        names = [held.name for n, held in self.seats.items() if n != seat]
        if table is not None:
            names += [name for n, name in enumerate(table.state.names) if 0 < n != seat]
        names += [r.name for n, r in self.reserved.items()
                  if live(r) and r.player_id != player_id and n != seat]
        return names

    def empty(self) -> list[int]:
        """The seats nobody holds (before the start: R1 needs every seat held)."""
        return [n for n in range(1, self.options.seats + 1) if n not in self.seats]

    def names(self) -> list[str]:
        """The engine's names for the seats at the start, seat 1 first (seating.py)."""
        return [self.seats[n].name for n in range(1, self.options.seats + 1)]

    def bot_seats(self) -> list[tuple[int, str]]:
        """The seats a bot plays, with its kind: what the bot driver plays (botplay.py)."""
        return [(n, held.bot_kind or DEFAULT_BOT) for n, held in sorted(self.seats.items())
                if held.kind == "bot"]

    def entries(self, player_id: str | None, table: Table | None, finished: bool,
                connected: Callable[[int], bool]) -> list[dict[str, Any]]:
        """Every seat as the lobby shows it to `player_id`; `connected(seat)` says whether
        the seat's player is connected (anywhere)."""
        seats = []
        taken_over = handed_over(table) if finished else set()
        for number in range(1, self.options.seats + 1):
            held = self.seats.get(number)
            entry: dict[str, Any] = {"seat": number, "kind": None, "name": None}
            if held is not None:
                mine = held.player_id is not None and held.player_id == player_id
                entry.update(kind=held.kind, name=held.name, bot_kind=held.bot_kind,
                             you=mine and held.kind != "bot",
                             connected=held.kind == "bot" or connected(number))
                entry.update(hand_facts(table, held, number, self.quit, mine, taken_over))
            elif number in self.reserved:
                entry.update(reserved_entry(self.reserved[number], player_id))
            seats.append(entry)
        return seats

    # -- seats changing hands (their rows are stored first, by the caller) ---------

    def sit(self, seat: int, held: Seat) -> None:
        """Before the start: `held` takes the seat (a person, a program, a bot)."""
        self.seats[seat] = held

    def free(self, seat: int) -> None:
        """Before the start: the seat is empty again."""
        del self.seats[seat]

    def kept_for_player(self, seat: int) -> bool:
        """`seat` is kept for a player who may come back to it (D29) — a bot plays it for
        them, or (the table's bots not taking seats over) it passes by itself since their
        grace period ran out (R52) —: not one who left on purpose (D31), nor a seat a bot
        has played from the start. Asked of departed or bot seats (botplay.py, D43)."""
        held = self.seats.get(seat)
        return held is not None and held.player_id is not None and seat not in self.quit

    def to_bot(self, seat: int, name: str, kind: str) -> Seat:
        """R53: a bot plays the seat from now on; it stays its player's (D29), who now
        watches (`former`). Every claim code for it dies (D18)."""
        self.drop_claims(seat)
        held = self.seats.get(seat)
        owner = held.player_id if held is not None else None
        if owner is not None:
            self.former.add(owner)
        self.seats[seat] = Seat("bot", name, owner, kind)
        return self.seats[seat]

    def to_person(self, seat: int, kind: SeatKind, name: str, player_id: str) -> None:
        """R53: a person (or a program) takes a departed seat: a new one, or its own
        player back (D29). Its claim codes die (D18); it has not left on purpose (D31)."""
        self.drop_claims(seat)
        self.seats[seat] = Seat(kind, name, player_id)
        self.quit.discard(seat)
        self.former.discard(player_id)

    def replace_all(self, seats: dict[int, Seat]) -> bool:
        """The seats as stored or as the writer says (restore.py, cluster/replica.py), or
        none at all once its host closed the table (closing.py, D51): True when any changed
        hands."""
        changed = seats != self.seats
        self.seats = seats
        return changed

    def rename(self, player_id: str, name: str) -> None:
        """A deleted account (people.py): its seats show `name`, as its stored rows do."""
        for held in self.seats.values():
            if held.player_id == player_id:
                held.name = name

    def rename_host(self, player_id: str, name: str) -> None:
        """The host changed their name (D46, renaming.py): the table shows the new one."""
        if self.host_id == player_id:
            self.host_name = name

    def left_on_purpose(self, seat: int) -> None:
        """Its player's own `leave` (not R52's): back only through the host's link (D31)."""
        self.quit.add(seat)

    def drop_claims(self, seat: int) -> None:
        """The seat changed hands: every claim code for it dies (R53, D18)."""
        for code in [c for c, s in self.claims.items() if s == seat]:
            del self.claims[code]

    # -- claim codes (R53) and kept seats (D19) ------------------------------------

    def new_claim(self, seat: int, code: str) -> None:
        """The host's link for a departed seat (R53): `code` names it until used."""
        self.claims[code] = seat

    def use_claim(self, code: str) -> int | None:
        """Spend `code`: the seat it named, or None (unknown, used, or dead)."""
        return self.claims.pop(code, None)

    def claimable(self, code: str) -> int | None:
        """The seat `code` names, without spending it."""
        return self.claims.get(code)

    def forget_claims(self) -> None:
        """The seats may change hands elsewhere (a lost lease): no code lives (D18)."""
        self.claims.clear()

    def keep(self, kept: dict[int, Reservation]) -> None:
        """The seats a rematch keeps for the players of the game before (D19), as stored
        or as the writer says."""
        self.reserved = kept

    def unkeep(self, seat: int) -> None:
        """A kept seat is free for anyone now (accepted, declined, or let go)."""
        self.reserved.pop(seat, None)

    def end_keeping(self) -> None:
        """The game started: a rematch's kept seats end with it (D19)."""
        self.reserved.clear()

    def kept_seats(self, player_id: str) -> list[int]:
        """The seats a rematch keeps here for `player_id`, lowest first."""
        return sorted(n for n, r in self.reserved.items() if r.player_id == player_id)

    def kept_for(self, player_id: str) -> bool:
        """Whether a rematch keeps a seat here for `player_id` (tables/rematch/offers.py)."""
        return any(r.player_id == player_id for r in self.reserved.values())
