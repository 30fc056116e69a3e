"""Seats changing hands during a game (R52–R53): to a bot, or to a new person.

A bot takes a seat when its grace period ends (R52: the seat leaves first, its
choices of the phase locked by a pass before, D50) or when the host hands it a
departed seat; a person only ever takes a departed seat (D18), and one whose
player did not leave on purpose only once that player has been away long (D52:
`person_wait`). The `replace` action, played through the game's host (host.py),
hands it over with all the seat knew; the room's seats, the store and every
connected client follow (`Room.reseat`): the one who held it now watches. Every
claim code of the seat dies with it. The seat's holder, its stored row and the
bot driver change together in seat_changes.py.

A seat a bot took over stays its player's (`Seat.player_id`): the same player
takes it back at once when they return (D29), and keeps the game (D32).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Final

from trusis.bots.registry import DEFAULT_BOT
from trusis.rules.actions import BY_SERVER, LEAVE, PASS, REPLACE, Action
from trusis.rules.i18n import seat_label
from trusis.rules.state import GameState
from trusis.rules.views import own_choices
from trusis.server.tables.seats import seat_changes
from trusis.server.tables.seats.seat import SeatKind, departed

if TYPE_CHECKING:
    from trusis.server.tables.room import Room


KEPT_BY_LEAVING: Final = frozenset({"extra_vote_today", "swept", "foreseen"})
"""The seat's `own_choices` (views.py) that a `leave` does not drop (D6): last night's
extra vote, locked when the Wise Woman passed (R22), and a sweep or a vision, answered
at once (R27). A grace period's end passes for none of them alone (D50)."""


def choices_at_stake(state: GameState, seat: int) -> bool:
    """D50: whether `seat` holds a choice of this phase that its `leave` would drop (R52,
    D6) — alive, not passed, not left, with a vote or a power chosen and not locked."""
    if not (state.running and state.alive[seat] and not state.passed[seat]
            and not state.left[seat]):
        return False
    return any(name not in KEPT_BY_LEAVING for name in own_choices(state, seat))


async def grace_over(room: Room, seat: int, since: float) -> None:
    """R52: the grace period of `seat`, away since `since`, ran out while the game runs:
    the seat leaves, and a bot plays it when the table says so (R53). The one path of
    both: its player lost the connection, not chose to leave (D31), so a choice of this
    phase stands (D50): the server passes for the seat first, locking it as the timer
    would (R12), and the `leave` then keeps what was locked (D6). When that pass ends
    the phase, the `leave` falls in the next one, with nothing to drop."""
    host = room.host
    assert host is not None
    state = host.table.state
    if choices_at_stake(state, seat):
        # An ordinary pass of the seat (the record has no actor); `made_in`: never one
        # in a phase its choices were not made in.
        await host.submit(Action(PASS, seat, by=BY_SERVER),
                          made_in=(state.kind, state.number))
        if not host.table.state.running:
            return  # that pass ended the game: nobody leaves a game that is over
        if room.away.get(seat) != since:
            return  # its player came back (or went again) meanwhile: the seat stays theirs
    if room.lobby.options.bots_take_over:
        await hand_to_bot(room, seat)
    elif not host.table.state.left[seat]:  # R52: the seat leaves, and passes by itself
        await host.submit(Action(LEAVE, seat))


async def hand_to_bot(room: Room, seat: int, kind: str = DEFAULT_BOT) -> None:
    """R52–R53: the seat leaves (if it has not), and a bot plays it from now on."""
    host = room.host
    assert host is not None
    table = host.table
    if not table.state.left[seat]:
        await host.submit(Action(LEAVE, seat))
    if not table.state.running:
        return
    lobby = room.lobby
    name = f"{lobby.seats[seat].name} (bot)" if seat in lobby.seats else seat_label(seat)

    async def seated() -> None:  # under the room's lock, before anyone reads the replace
        lobby.drop_claims(seat)
        # A bot plays it now: no grace period runs for it (R52). A ban's hand-over comes
        # before its closed connection's grace would end, which would hand it on again.
        room.away.pop(seat, None)
        await seat_changes.to_bot(room, seat, name, kind)  # still its player's (D29)
        room.reseat()  # the person now watches; the seat is the bot's

    await host.submit(Action(REPLACE, seat, by="bot"), seated=seated)


async def hand_to_person(room: Room, seat: int, player_id: str, name: str,
                         kind: SeatKind = "person") -> bool:
    """R53: a person (or a program) takes a departed seat, with all it knew: a new one
    through the host's link, or its own player coming back (D29). Never a seat that has
    not left (only disconnected: its player may come back; D18): False then."""
    host = room.host
    assert host is not None
    if not departed(host.table, seat):
        return False

    async def seated() -> None:  # under the room's lock, before anyone reads the replace
        room.lobby.drop_claims(seat)
        room.here(seat)  # a new holder (or its player back): no absence carries over (D52)
        await seat_changes.to_person(room, seat, kind, name, player_id)
        room.reseat()
        if not room.connected(seat):  # until its player connects, its grace runs (R52)
            room.not_here(seat, time.time())

    outcome = await host.submit(Action(REPLACE, seat, by=name), player_id,  # its taker's
                                seated=seated)
    return outcome.accepted


def person_wait(room: Room, seat: int, wait: float, now: float) -> float | None:
    """D52: while it is still to come, the moment from which the host may hand departed
    `seat` to a person (None: now). A seat whose player left on purpose (D31) may go at
    once; one that departed because its grace period ran out (R52, D18) — its player did
    not choose to go — only once that player has had no connection anywhere for `wait`
    seconds (`Room.absent`): a person who takes it reads its role and all it knew (R53),
    and a short grace must not make that a host's way to a second identity's view of a
    friend's seat. A bot may take it at once: nobody reads what a bot learns."""
    if wait <= 0 or seat in room.lobby.quit:
        return None
    since = room.absent.setdefault(seat, now)  # not known (never, but safe): from now
    until = since + wait
    return until if now < until else None


def lapse(seconds: float) -> str:
    """A duration as a refusal's English sentence says it: "40 s", "3 min", "2 min 5 s"."""
    whole = max(0, round(seconds))
    minutes, rest = divmod(whole, 60)
    if not minutes:
        return f"{rest} s"
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def returnable(room: Room, player_id: str) -> int | None:
    """The departed seat `player_id` gets back by coming back (D29): theirs, left by its
    grace period running out (not on purpose: D31), while the game runs — and never a
    second seat (D39: one seat a player)."""
    table = room.host.table if room.host else None
    if table is None or not table.state.running:
        return None
    lobby = room.lobby
    mine = lobby.owned_by(player_id)
    if len(mine) != 1:  # no seat here, or (never, D39) two: nothing comes back
        return None
    number = mine[0]
    return number if number not in lobby.quit and departed(table, number) else None
