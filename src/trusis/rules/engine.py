"""The rules engine: start a game, and apply one action to it.

`apply(state, action)` checks the action against the rules and either raises
`IllegalAction` (a reason a player understands, the state untouched) or changes
the state and returns the events that happened, each with its audience; the
powers' handlers and the checks they share are in `powers`. It is
pure: no I/O, no clock (time arrives as a `timeout` action), no randomness
after the seeded deal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from trusis.rules.actions import (
    LEAVE,
    PASS,
    REPLACE,
    SAY,
    STAFF_DRAW,
    TIMEOUT,
    Action,
    clean_line,
    clean_name,
)
from trusis.rules.errors import IllegalAction, SetupError
from trusis.rules.events import Event
from trusis.rules.frozen import FrozenList
from trusis.rules.powers import (
    CHOICES,
    check_actor,
    check_seat,
    choice,
    foresee,
    illusion,
    sweep,
    vote,
)
from trusis.rules.resolution import end_phase, finish
from trusis.rules.roles import (
    DAY,
    EXTRA_VOTE,
    FORESEE,
    GRAVEDIGGER,
    ILLUSION,
    KAMIKAZE_STRIKE,
    NIGHT,
    PROTECT,
    REVIVE,
    ROLES,
    SWEEP,
    TRUSIS,
    VOTE,
)
from trusis.rules.setup import check_explicit_deal, check_player_count, deal_roles
from trusis.rules.state import GameState
from trusis.rules.victory import DRAW

MAX_MESSAGE: Final = 500  # characters in one chat message (decision, docs/rules.md)
MAX_SEED_DIGITS = 4300  # Python's default limit for int <-> str: a record must hold the seed
_SEED_BOUND = 10 ** MAX_SEED_DIGITS  # not Final: mypyc would fold 10**4300 (and crash)


def new_game(
    players: Sequence[str],
    seed: int = 0,
    custom: Mapping[str, int] | None = None,
    deal: Sequence[str] | None = None,
) -> GameState:
    """Seat `players` and deal: the standard set, a custom set, or an explicit deal.

    Raises `SetupError` for a table that cannot start (R1, R4–R6) or for bad
    input: `players` not a list of names, a name empty once cleaned (D9: names are
    cleaned as chat is), a seed that is not a plain `int`. The game starts at Day 1
    (R10) with the knowledge of R7 already given.
    """
    if isinstance(players, str | bytes) or not isinstance(players, Sequence):
        raise SetupError("bad_players")
    check_player_count(len(players))
    names = []
    for seat, raw in enumerate(players, 1):
        if (  # clean_name's own fast path, inlined: a name that is already clean
            type(raw) is str and raw and raw.isprintable() and raw[0] != " " != raw[-1]
            and "  " not in raw
        ):
            names.append(raw)
            continue
        name = clean_name(raw)
        if name is None:
            raise SetupError("bad_name", seat=seat)
        names.append(name)
    # A bool is an int to Python but no seed to a record; None would deal at random.
    if type(seed) is not int or not -_SEED_BOUND < seed < _SEED_BOUND:
        raise SetupError("bad_seed", digits=MAX_SEED_DIGITS)
    if custom is not None and not isinstance(custom, Mapping):
        raise SetupError("bad_set")
    if deal is None:
        roles = deal_roles(len(players), seed, custom)
    else:
        if isinstance(deal, str | bytes) or not isinstance(deal, Sequence):
            raise SetupError("bad_deal")
        roles = list(deal)
        check_explicit_deal(len(players), roles)
    table_set: dict[str, Any] = {"standard": True} if custom is None else {
        "custom": {r: c for r, c in custom.items() if c}
    }
    state = GameState(names, roles, seed, table_set)
    seats = state.roles
    known = state.known
    trusis = state.trusis_seats
    for seat in trusis:  # R7: each TRUSIS knows every TRUSIS
        facts = known[seat]
        for other in trusis:
            facts[other] = TRUSIS
    if GRAVEDIGGER in seats:  # and each GRAVEDIGGER every TRUSIS and every GRAVEDIGGER
        for seat in range(1, state.n + 1):
            if seats[seat] == GRAVEDIGGER:
                facts = known[seat]
                for other in range(1, state.n + 1):
                    role = seats[other]
                    if role == TRUSIS or role == GRAVEDIGGER:
                        facts[other] = role
    return state


def apply(state: GameState, action: Action) -> list[Event]:
    """Apply `action`; return its events, or raise `IllegalAction` changing nothing."""
    do = action.do
    out: list[Event] = []
    if do is PASS:  # the most frequent action: _pass, inlined (an equal str goes below)
        seat = action.seat
        if not (  # _check_actor's common case, inlined
            state.running and type(seat) is int and 0 < seat <= state.n
            and state.alive[seat] and not state.passed[seat] and not state.left[seat]
        ):
            seat = check_actor(state, seat)
        state.passed[seat] = True
        state.waiting -= 1
        state.seq += 1
        state.public_count += 1
        out.append(Event(state.seq, "passed", {"seat": seat}))
        if state.waiting == 0:
            end_phase(state, out)
        return out
    handler = _HANDLERS.get(do) if type(do) is str else None
    if handler is None:
        raise IllegalAction("unknown_action", do=do)
    handler(state, action, out)
    return out


def _pass(state: GameState, action: Action, out: list[Event]) -> None:
    """R11/R12: done for this phase; the last pass ends it."""
    seat = action.seat
    if not (  # _check_actor's common case, inlined
        state.running and type(seat) is int and 0 < seat <= state.n
        and state.alive[seat] and not state.passed[seat] and not state.left[seat]
    ):
        seat = check_actor(state, seat)
    state.passed[seat] = True
    state.waiting -= 1
    state.seq += 1  # state.emit, inlined: passing is the most frequent action
    state.public_count += 1
    out.append(Event(state.seq, "passed", {"seat": seat}))
    if state.waiting == 0:
        end_phase(state, out)


def _timeout(state: GameState, action: Action, out: list[Event]) -> None:
    """R12: the timer ran out; everyone still deciding passes with their choices."""
    if not state.running:
        raise IllegalAction("timeout_finished")
    if action.seat is not None:  # a timeout needs no seat; one that names none is refused
        check_seat(state, action.seat)
    late = [s for s in range(1, state.n + 1) if state.alive[s] and not state.passed[s]]
    for seat in late:
        state.passed[seat] = True
    state.waiting = 0
    state.emit(out, "timed_out", {"seats": FrozenList(late)})  # read-only: every seat reads it
    end_phase(state, out)


def _draw(state: GameState, action: Action, out: list[Event]) -> None:
    """D38: the server's staff end a stuck game as a draw; nobody wins, every role shows."""
    if not state.running:
        raise IllegalAction("game_over")
    if action.seat is not None:  # no seat sends it; one that names none is refused
        check_seat(state, action.seat)
    state.emit(out, "operator_draw", {})
    finish(state, out, DRAW)


# -- presence and talk ---------------------------------------------------------


def _leave(state: GameState, action: Action, out: list[Event]) -> None:
    """R52: the seat stays, passes from now on, and drops an unpassed choice."""
    if not state.running:
        raise IllegalAction("game_over")
    seat = check_seat(state, action.seat)
    if state.left[seat]:
        raise IllegalAction("already_left", seat=seat)
    state.left[seat] = True
    state.bots[seat] = False
    state.derive_present()
    state.emit(out, "left", {"seat": seat})
    if not state.alive[seat] or state.passed[seat]:
        return
    if state.kind == DAY:
        had_vote = state.votes.pop(seat, None) is not None
        had_illusion = state.illusions.pop(seat, None) is not None
        if had_vote or had_illusion:
            state.emit(out, "vote_withdrawn", {"voter": seat})
    elif state.votes.pop(seat, None) is not None:
        state.tell(out, state.trusis_seats, "trusis_vote_withdrawn", {"voter": seat})
    for attr in CHOICES.values():
        getattr(state, attr).pop(seat, None)
    state.passed[seat] = True
    state.waiting -= 1
    state.emit(out, "passed", {"seat": seat, "auto": True})
    if state.waiting == 0:
        end_phase(state, out)


def _replace(state: GameState, action: Action, out: list[Event]) -> None:
    """R53: a departed seat is taken over, keeping its role and knowledge."""
    if not state.running:
        raise IllegalAction("game_over")
    seat = check_seat(state, action.seat)
    by = "bot" if action.by is None else clean_name(action.by)  # D9, as chat
    # D29: a seat a bot took over after it departed goes back to a person at once; who
    # that may be (the same player, or whom the host's link names) is the server's check.
    if not state.left[seat] and not (state.bots[seat] and by not in (None, "bot")):
        raise IllegalAction("not_left", seat=seat)
    if by is None:
        raise IllegalAction("bad_name")
    back = by != "bot" and by == state.names[seat]  # the seat's own name: its player is back (D29)
    state.left[seat] = False
    state.derive_present()
    state.bots[seat] = by == "bot"
    if by != "bot":
        state.names[seat] = by
    state.emit(out, "returned" if back else "replaced", {"seat": seat, "by": by})


def message_text(raw: object) -> str:
    """A chat message's text as D9 cleans it, or IllegalAction: the game's chat and the
    waiting room's (the server's, before the start) are cleaned and bounded alike."""
    # D9: line breaks, tabs and control characters become single spaces, so that a
    # message can never pass for a system announcement on its own line. The length
    # is checked while cleaning, so a huge text is given up without being copied.
    if raw is None:
        raw = ""
    elif type(raw) is not str:
        raise IllegalAction("not_text")
    text = clean_line(raw, MAX_MESSAGE)
    if text is None:
        raise IllegalAction("message_too_long", limit=MAX_MESSAGE)
    if not text:
        raise IllegalAction("empty_message")
    return text


def _say(state: GameState, action: Action, out: list[Event]) -> None:
    """R50: public or private chat, open to the living and the dead, at any time."""
    seat = check_seat(state, action.seat)
    if state.left[seat]:
        raise IllegalAction("actor_left", seat=seat)
    text = message_text(action.text)
    to = action.to
    if to is None:
        state.chat.append((state.seq + 1, state.kind, state.number, seat, 0, text,
                           state.names[seat], state.bots[seat]))
        state.emit(out, "said", {"seat": seat, "text": text})
        return
    if type(to) is not int or not 1 <= to <= state.n:
        raise IllegalAction("no_such_seat", number=to)
    if to == seat:
        raise IllegalAction("whisper_self")
    if state.left[to]:
        raise IllegalAction("recipient_left", to=to)
    state.chat.append((state.seq + 1, state.kind, state.number, seat, to, text,
                       state.names[seat], state.bots[seat]))
    state.tell(out, (seat, to), "whispered", {"seat": seat, "to": to, "text": text})


_HANDLERS: Final[dict[str, Callable[[GameState, Action, list[Event]], None]]] = {
    VOTE: vote,
    ILLUSION: illusion,
    PROTECT: choice,
    EXTRA_VOTE: choice,
    KAMIKAZE_STRIKE: choice,
    REVIVE: choice,
    SWEEP: sweep,
    FORESEE: foresee,
    PASS: _pass,
    TIMEOUT: _timeout,
    STAFF_DRAW: _draw,
    LEAVE: _leave,
    REPLACE: _replace,
    SAY: _say,
}

__all__ = ["DAY", "NIGHT", "ROLES", "apply", "message_text", "new_game"]
