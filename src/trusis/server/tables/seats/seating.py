"""The lobby's requests on a table this process owns: seats, bots, the start, hand-overs.

Each method checks who may do it (the host, the seat's holder) and when (before
the start, or for a departed seat), changes the room and the store together,
and tells the room's clients (`broadcast_table`). `Hub` routes each request to
the game's owner first (hub.py), whose `run_lobby` calls these: they run on the one
process that writes the game.
"""

from __future__ import annotations

import random
import secrets
import time

from trusis.bots.names import BOT_NAMES
from trusis.bots.registry import available_kinds
from trusis.rules.errors import SetupError
from trusis.server.data.store import Player, Store, new_id
from trusis.server.errors import LobbyError
from trusis.server.limits.settings import Limits, counted
from trusis.server.notifications.facts import stored
from trusis.server.players.names import look_alike, refuse_lookalike, skeletons
from trusis.server.tables.closing import CLOSED, closed_table
from trusis.server.tables.host import GameHost
from trusis.server.tables.rematch.seats import bot_gives_way
from trusis.server.tables.room import Room
from trusis.server.tables.seats import barred, seat_changes
from trusis.server.tables.seats.handover import (
    hand_to_bot,
    hand_to_person,
    lapse,
    person_wait,
    returnable,
)
from trusis.server.tables.seats.seat import Seat, SeatKind, departed, held_for_another
from trusis.server.tables.timers import start_timers
from trusis.table.table import Table


def already_seated(seat: int) -> LobbyError:
    """D39: a player holds one seat at a table, also while a bot plays it for them (D29)."""
    return LobbyError(409, "already_seated", f"you already have seat {seat} at this table: "
                      "one player plays one seat", seat=seat)


def setup_refusal(err: SetupError) -> LobbyError:
    """The engine's R1/R4–R6 refusal as a lobby answer, with its code and parameters."""
    return LobbyError(422, f"setup.{err.code}", str(err), **err.params)


def must_be_open(room: Room) -> None:
    """The waiting room's requests need it open: not closed (D51), not started."""
    if room.status == CLOSED:  # its host closed it meanwhile (D51)
        raise closed_table(room.id)
    if room.status != "open":
        raise LobbyError(409, "already_started", "the game has already started")


def must_be_host(room: Room, player: Player) -> None:
    """Seats, bots, the start and hand-overs are the table's host's to decide."""
    if player.id != room.lobby.host_id:
        raise LobbyError(403, "not_host", "only the table's host can do this")


def free_number(room: Room, seat: int | None, player_id: str | None = None) -> int:
    """A free seat (`seat`, or the first): never one a rematch keeps for someone else."""
    if seat is None:
        for number in range(1, room.lobby.options.seats + 1):
            if number not in room.lobby.seats and not held_for_another(
                    room.lobby.reserved, number, player_id):
                return number
        for number in range(room.lobby.options.seats, 0, -1):  # a rematch's bots give way
            if bot_gives_way(room, number, player_id):
                return number
        raise LobbyError(409, "table_full", "every seat is taken")
    if not 1 <= seat <= room.lobby.options.seats:
        raise LobbyError(422, "no_such_seat", f"there is no seat {seat} at this table",
                         seat=seat, seats=room.lobby.options.seats)
    if seat in room.lobby.seats and not bot_gives_way(room, seat, player_id):
        raise LobbyError(409, "seat_taken", f"seat {seat} is taken", seat=seat)
    if held_for_another(room.lobby.reserved, seat, player_id):
        raise LobbyError(409, "seat_reserved", f"seat {seat} is kept for a player of the "
                         "game before, for a short while", seat=seat)
    return seat


class Seating:
    """The lobby's requests on the tables this process writes: given the store (each
    change is stored with the room's) and the limits (program seats, D52's wait)."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits

    async def sit(self, room: Room, player: Player, seat: int | None) -> int:
        if player.id != room.lobby.host_id:
            await barred.refuse_join(self.store, room, player.id)  # D33, D34
        async with room.lock:
            must_be_open(room)
            current = room.lobby.seat_of(player.id)
            if current is not None and (seat is None or seat == current):
                return current
            number = free_number(room, seat, player.id)
            await self.rename_bots_like(room, player.name)
            refuse_lookalike(player.name, room.lobby.names_beside(current, player.id))  # D20
            if current is not None:
                await seat_changes.free(room, current)
            await seat_changes.sit(room, number, Seat("person", player.name, player.id))
            # One seat a player (D39): a seat a rematch kept for them is given up (D19).
            await seat_changes.let_go(room, room.lobby.kept_seats(player.id))
        room.broadcast_table()
        return number

    async def stand(self, room: Room, player: Player) -> None:
        async with room.lock:
            must_be_open(room)
            current = room.lobby.seat_of(player.id)
            if current is None:
                raise LobbyError(409, "not_seated", "you have no seat at this table")
            await seat_changes.free(room, current)
        room.broadcast_table()

    async def rename_bots_like(self, room: Room, name: str) -> None:
        """A bot whose name looks like a person's who sits down takes another (D20): the
        person keeps their name, bots have no stake in theirs."""
        for number, held in list(room.lobby.seats.items()):
            if held.kind == "bot" and look_alike(held.name, name):
                other = self.bot_name(room, name)
                await seat_changes.sit(room, number, Seat("bot", other, None, held.bot_kind))

    def bot_name(self, room: Room, also: str = "") -> str:
        taken = skeletons(also).union(*map(skeletons, room.lobby.names_beside(None, None)))
        names = [n for n in BOT_NAMES if skeletons(n).isdisjoint(taken)] or \
            [f"Bot {len(room.lobby.seats) + 1}"]
        return random.SystemRandom().choice(names)

    async def add_bot(self, room: Room, player: Player, kind: str, seat: int | None) -> int:
        must_be_host(room, player)
        if kind not in available_kinds():
            raise LobbyError(422, "unknown_bot", f"there is no bot kind {kind!r}", kind=kind,
                             kinds=available_kinds())
        async with room.lock:
            must_be_open(room)
            number = free_number(room, seat)
            await seat_changes.sit(room, number, Seat("bot", self.bot_name(room), None, kind))
        room.broadcast_table()
        return number

    async def free(self, room: Room, player: Player, seat: int) -> None:
        must_be_host(room, player)
        async with room.lock:
            must_be_open(room)
            if seat not in room.lobby.seats and seat in room.lobby.reserved:
                await seat_changes.let_go(room, [seat])  # a kept seat, let go (D19)
            elif seat not in room.lobby.seats:
                raise LobbyError(409, "seat_empty", f"seat {seat} is empty", seat=seat)
            else:
                await seat_changes.free(room, seat)
        room.broadcast_table()

    async def remove(self, room: Room, player: Player, seat: int) -> None:
        """D34: the host removes the person at `seat` from the waiting room: stored first
        (they may not sit here again), the seat freed, and — D55 — their connections to
        the table closed, here and on the processes that follow it, before anyone hears
        of the free seat (barred.py). Under the table's lock, so no start comes between."""
        must_be_host(room, player)
        async with room.lock:
            must_be_open(room)
            held = room.lobby.seats.get(seat)
            if held is None or held.kind != "person" or held.player_id is None:
                raise LobbyError(409, "not_a_person", f"no person holds seat {seat}", seat=seat)
            target = held.player_id
            if target == player.id:
                raise LobbyError(409, "own_seat", "you cannot remove yourself: leave your seat")
            await self.store.blocks.store_removal(room.id, target)
            await seat_changes.free(room, seat)
            barred.removed_here(room, target)
            room.peers.removed(target)
        room.broadcast_table()

    async def program_seat(self, room: Room, player: Player, seat: int | None,
                           name: str) -> tuple[int, str]:
        """The host hands a seat to a program: a player of kind program, and its token.
        Both are kept for good, so a table hands out `program_seats_per_table` at most:
        a host handing a seat to a program and freeing it, in a loop, stored two rows a
        request."""
        must_be_host(room, player)
        refuse_lookalike(name, room.lobby.names_beside(None, None))  # D20, D40
        cap = self.limits.program_seats_per_table
        if cap and room.programs >= cap:
            raise LobbyError(409, "too_many_programs", "this table has handed "
                             f"{counted(cap, 'seat', 'seats')} to programs already: open a new "
                             "table for more", limit=cap)
        room.programs += 1
        program = await self.store.new_player(name, "program", made_by=player.id)  # D41
        async with room.lock:
            must_be_open(room)
            number = free_number(room, seat)
            await seat_changes.sit(room, number, Seat("program", name, program.id))
        token = await self.store.new_token(program.id, "seat", room.id, number)
        room.broadcast_table()
        return number, token

    async def start(self, room: Room, player: Player) -> None:
        """Deal with a seed from `secrets` (never shown before the end) and begin Day 1."""
        must_be_host(room, player)
        async with room.lock:
            must_be_open(room)
            empty = room.lobby.empty()
            if empty:
                raise LobbyError(409, "seats_empty", "every seat needs a person or a bot",
                                 seats=empty)
            seed = secrets.randbits(62)
            names = room.lobby.names()
            now = time.time()
            try:
                table = Table(names, seed, room.lobby.options.custom, started_at=now,
                              bot_seats=[n for n, _kind in room.lobby.bot_seats()])  # D73
            except SetupError as err:
                raise setup_refusal(err) from None
            table.record.extra["table"] = {"id": room.id, "name": room.name}
            deadline = now + room.lobby.options.day_seconds
            notices = room.notices().started(table, deadline, room.lobby.options.day_seconds,
                                             now)
            await self.store.start(room.id, seed, names, list(table.state.roles[1:]), now,
                                   deadline, f"{table.state.kind}:{table.state.number}",
                                   room.fence, notices)  # stored first: a refusal leaves the lobby
            stored(notices)
            host = room.play(table, None)
            room.life.start()
            room.lobby.end_keeping()  # a rematch's kept seats end with its start (D19)
            host.deadline = deadline
            host.seat_bots(secrets.randbits(31), room.pace)
        room.broadcast_table()
        # The deal emits no event (D12): a client connected in the lobby gets its seat's
        # first view as a snapshot (and its seat, if it sat down after connecting).
        room.reseat(everyone=True)
        # A person or program not connected when the game starts is away from its first
        # second: its grace period runs (R52), as if it had dropped, and no phase waits;
        # so does its absence, which a hand-over to a person waits out (D52).
        for number, held in room.lobby.seats.items():
            if held.kind != "bot" and not room.connected(number):
                room.not_here(number, now)
        start_timers(room)

    def _departed(self, room: Room, seat: int) -> GameHost:
        """R53: only a seat that has *left* changes hands — left on purpose, or its grace
        period over (R52). A seat that is only disconnected has not: its player may come
        back, and a hand-over would show its role to whoever takes it (D18)."""
        host = room.host
        if host is None or not host.table.state.running:
            raise LobbyError(409, "not_running", "the game is not running")
        if not 1 <= seat <= room.lobby.options.seats:
            raise LobbyError(422, "no_such_seat", f"there is no seat {seat}", seat=seat)
        if not departed(host.table, seat):
            raise LobbyError(409, "not_left", f"seat {seat} has not left the game", seat=seat)
        return host

    def _person_may_take(self, room: Room, host: GameHost, seat: int) -> None:
        """D52: a departed seat whose player did not leave on purpose goes to a person
        (a claim link, a claim) only once its player has been away long enough
        (`handover_to_person_seconds`); before that the refusal says when it may."""
        wait = self.limits.handover_to_person_seconds
        now = time.time()
        until = person_wait(room, seat, wait, now)
        if until is None:
            return
        since = room.absent[seat]
        name = host.table.state.names[seat]
        raise LobbyError(
            409, "player_may_return",
            f"{name} lost their connection {lapse(now - since)} ago: their seat can go to "
            f"someone else once they have been away {lapse(wait)}, in {lapse(until - now)}; "
            "a bot can play it meanwhile",
            seat=seat, name=name, since=since, until=until, away=round(now - since),
            wait=round(wait))

    async def replace(self, room: Room, player: Player, seat: int, by: str,
                      kind: str) -> str | None:
        """R53: the host hands a departed seat to a bot, or to a new person: then the
        answer is a claim code, for the link the host passes on — at once for a seat
        left on purpose, after a long absence for one whose grace ran out (D52)."""
        must_be_host(room, player)
        host = self._departed(room, seat)
        if by == "person":
            self._person_may_take(room, host, seat)
            code = new_id(16)
            room.lobby.new_claim(seat, code)
            return code
        if kind not in available_kinds():
            raise LobbyError(422, "unknown_bot", f"there is no bot kind {kind!r}", kind=kind)
        if room.lobby.holding(seat, host.table) != "departed":  # a bot plays it already
            raise LobbyError(409, "not_left", f"seat {seat} has not left the game", seat=seat)
        room.away.pop(seat, None)
        await hand_to_bot(room, seat, kind)
        return None

    async def claim(self, room: Room, player: Player, code: str) -> int:
        """A new person takes the departed seat the host's claim link names (R53). The
        code is spent before the first `await`, so two claims of one code cannot both
        pass; every other code of the seat dies when it changes hands (handover.py)."""
        await barred.refuse_join(self.store, room, player.id)  # D33, D34
        seat = room.lobby.claimable(code)
        if seat is None:
            raise LobbyError(404, "no_such_claim", "this link is not (or no longer) valid")
        # Your own departed seat may be claimed (D31); any other seat of yours — one a bot
        # plays while you are away (D29) too — means this would be a second one (D39).
        other = next((n for n in room.lobby.owned_by(player.id) if n != seat), None)
        if other is not None:
            raise already_seated(other)
        host = self._departed(room, seat)
        held = room.lobby.seats.get(seat)
        # D52 again where a person is seated: links are made only once the wait is over
        # (or for a seat left on purpose), but the claim is what reads the seat's role.
        # Its own player claiming it (D31) learns nothing new.
        if held is None or held.player_id != player.id:
            self._person_may_take(room, host, seat)
        refuse_lookalike(player.name, room.lobby.names_beside(seat, player.id,
                                                              host.table))  # D20, D40
        room.lobby.use_claim(code)
        if not await hand_to_person(room, seat, player.id, player.name, _kind_of(player)):
            raise LobbyError(409, "not_left", f"seat {seat} has not left the game", seat=seat)
        return seat

    async def return_seat(self, room: Room, player: Player) -> int:
        """D29: the player whose seat departed when its grace period ran out takes it back
        at once, from its bot or its automatic passes. Only that same player id: nobody
        else learns a role this way (D18); a seat left on purpose needs the host's link
        (D31)."""
        if room.host is None or not room.host.table.state.running:
            raise LobbyError(409, "not_running", "the game is not running")
        # Asked by the WebSocket endpoint only (api/websocket.py), which then simply connects: the
        # refusal never reaches a client, and `yours_away` tells the page why (D31).
        seat = returnable(room, player.id)
        if seat is None or not await hand_to_person(room, seat, player.id, player.name,
                                                    _kind_of(player)):
            raise LobbyError(409, "nothing_to_return", "you have no seat to come back to "
                             "at this table")
        return seat


def _kind_of(player: Player) -> SeatKind:
    """The seat kind a player holds: a program's stays a program's (its token plays it)."""
    return "program" if player.kind == "program" else "person"
