"""What a seat may do right now, with the targets it may choose.

Bots choose from this list and the browser draws its buttons from it, so it
must agree exactly with what `apply` accepts — a property test checks that
every listed action is accepted and every other one is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from trusis.rules.actions import LEAVE, PASS, SAY, Action
from trusis.rules.frozen import FrozenDict, FrozenList
from trusis.rules.roles import (
    DAY,
    FORESEE,
    ILLUSION,
    POWERS_BY_PHASE,
    PROTECT,
    REVIVE,
    SWEEP,
    VOTE,
)
from trusis.rules.state import GameState


@dataclass(slots=True)
class LegalAction:
    """One kind of action a seat may take now.

    `targets` are the seats it may name (for `say`, the seats it may whisper
    to); `shown` the seats an illusion may show; `withdraw` tells whether
    `target: null` is accepted (R13: a choice can be withdrawn until passing).
    Read-only in spirit; not frozen because frozen dataclasses are slow to make.
    """

    do: str
    targets: tuple[int, ...] = ()
    shown: tuple[int, ...] = ()
    withdraw: bool = False

    client: dict[str, object] | None = field(default=None, compare=False, repr=False)

    # Written out, not generated: mypyc compiles this one (see events.Event).
    def __init__(self, do: str, targets: tuple[int, ...] = (), shown: tuple[int, ...] = (),
                 withdraw: bool = False) -> None:
        self.do = do
        self.targets = targets
        self.shown = shown
        self.withdraw = withdraw
        self.client = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """Copies go through `__init__` (a compiled class has no argument-free one); the
        client form is made again when asked."""
        return (LegalAction, (self.do, self.targets, self.shown, self.withdraw))

    def to_dict(self) -> dict[str, object]:
        """The client form: `{"do", "targets", "shown"?, "withdraw"?}`.

        Made once per LegalAction and shared, like the object itself (by every game
        for `pass`, `leave` and a full table's `say`): read-only (frozen.py).
        """
        client = self.client
        if client is None:  # (keywords: no dict made then copied; the keys in this order)
            do = self.do
            if do in (PASS, LEAVE):
                client = FrozenDict(do=do)
            elif do == ILLUSION:  # always withdrawable (R13, R21)
                client = FrozenDict(do=do, targets=FrozenList(self.targets),
                                    shown=FrozenList(self.shown), withdraw=self.withdraw)
            elif self.withdraw:
                client = FrozenDict(do=do, targets=FrozenList(self.targets), withdraw=True)
            else:
                client = FrozenDict(do=do, targets=FrozenList(self.targets))
            self.client = client
        return client


_PASS: Final = LegalAction(PASS)  # shared: legal actions are read-only
_LEAVE: Final = LegalAction(LEAVE)
# (table size, seat) -> its `say` while everyone is present, shared by every game.
_FULL_TABLE_SAYS: Final[dict[tuple[int, int], LegalAction]] = {}


def _say(state: GameState, seat: int) -> LegalAction:
    """The seat's `say`: whisper to every other present seat (R50, D8); kept in
    `state.says` until someone leaves or is replaced."""
    if len(state.present) == state.n:
        key = (state.n, seat)
        say = _FULL_TABLE_SAYS.get(key)
        if say is None:
            say = _FULL_TABLE_SAYS[key] = LegalAction(SAY, state.recipients_of(seat))
    else:
        say = LegalAction(SAY, state.recipients_of(seat))
    state.says[seat] = say
    return say


def legal_actions(state: GameState, seat: int) -> list[LegalAction]:
    """Every action `seat` may take now: powers and pass (R11–R29), leave, say.

    In this order: the role's powers in the order of its role entry, then `pass`,
    `leave` and `say` (each only when allowed), so callers may rely on it.

    The LegalAction objects are shared between calls until someone dies,
    revives, leaves or is replaced: treat them as read-only.
    """
    if (
        state.running and 0 < seat <= state.n and state.alive[seat] and not state.passed[seat]
        and not state.left[seat]
    ):
        # The common case: a seat that may act. Its whole list is cached by phase kind
        # (valid until someone dies, revives, leaves or is replaced), except after a
        # sweep or a foresee tonight, which drop that power. The key is an int (the
        # seat, negated by night): no tuple to make and hash on every call.
        kind = state.kind
        key = seat if kind == DAY else -seat
        memo = state.memo
        cached = memo.get(key)
        if cached is not None and (
            kind == DAY or (seat not in state.swept and seat not in state.foreseen)
        ):
            return [*cached]
        say = state.says.get(seat)  # kept until someone leaves or is replaced
        if say is None:
            say = _say(state, seat)
        powers = POWERS_BY_PHASE[(state.roles[seat], kind)]
        if not powers:  # most roles by night
            memo[key] = (_PASS, _LEAVE, say)
            return [_PASS, _LEAVE, say]
        # A miss is the usual case in a game: every death or revival drops the cache.
        # Each power is made here, not looked up: the seats it names changed too.
        others = state.others.get(seat)
        if others is None:
            others = state.others_of(seat)
        if len(powers) == 1 and powers[0] == VOTE:  # most roles by day, the TRUSIS by night
            vote = LegalAction(VOTE, others, (), True)
            memo[key] = (vote, _PASS, _LEAVE, say)
            return [vote, _PASS, _LEAVE, say]
        result: list[LegalAction] = []
        complete = True  # no power left out: the list may be cached for this phase kind
        for power in powers:
            if power == VOTE:
                result.append(LegalAction(VOTE, others, (), True))
            elif power == SWEEP or power == FORESEE:
                if seat in (state.swept if power == SWEEP else state.foreseen):
                    complete = False
                    continue
                result.append(LegalAction(power, others))
            else:
                result.append(_make(state, seat, power, others))
        result.extend((_PASS, _LEAVE, say))
        if complete:
            memo[key] = tuple(result)
        return result
    if not 1 <= seat <= state.n or state.left[seat]:
        return []
    say = state.says.get(seat)
    if say is None:
        say = _say(state, seat)
    if not state.running:
        return [say]
    return [_LEAVE, say]  # dead, or passed


def _make(state: GameState, seat: int, power: str, others: tuple[int, ...]) -> LegalAction:
    """The LegalAction of one choice power for one seat, given who is alive (R14)."""
    if power == REVIVE:
        alive = state.alive
        return LegalAction(REVIVE, tuple([s for s in range(1, state.n + 1) if not alive[s]]),
                           (), True)
    if power == PROTECT:
        return LegalAction(PROTECT, state.living, (), True)
    if power == ILLUSION:
        return LegalAction(ILLUSION, others, others, True)
    return LegalAction(power, others, (), True)  # extra_vote, kamikaze


def concrete_actions(state: GameState, seat: int) -> Iterator[Action]:
    """Every distinct game action `seat` may take now (chat left out), one by one."""
    for legal in legal_actions(state, seat):
        if legal.do == SAY:
            continue
        if legal.do in (PASS, LEAVE):
            yield Action(legal.do, seat)
            continue
        if legal.withdraw:
            yield Action(legal.do, seat, None)
        for target in legal.targets:
            if legal.do == ILLUSION:
                for shown in legal.shown:
                    yield Action(ILLUSION, seat, target, shown)
            else:
                yield Action(legal.do, seat, target)
