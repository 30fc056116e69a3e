"""What a seat may do right now, with the targets it may choose.

Bots choose from this list and the browser draws its buttons from it, so it
must agree exactly with what `apply` accepts — a property test checks that
every listed action is accepted and every other one is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from trusis.actions import LEAVE, PASS, SAY, Action
from trusis.roles import (
    CHOICE_POWERS,
    FORESEE,
    ILLUSION,
    POWERS_BY_PHASE,
    PROTECT,
    REVIVE,
    SWEEP,
)
from trusis.state import GameState


@dataclass(frozen=True, slots=True)
class LegalAction:
    """One kind of action a seat may take now.

    `targets` are the seats it may name (for `say`, the seats it may whisper
    to); `shown` the seats an illusion may show; `withdraw` tells whether
    `target: null` is accepted (R13: a choice can be withdrawn until passing).
    """

    do: str
    targets: tuple[int, ...] = ()
    shown: tuple[int, ...] = ()
    withdraw: bool = False

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"do": self.do}
        if self.do not in (PASS, LEAVE):
            data["targets"] = list(self.targets)
        if self.do == ILLUSION:
            data["shown"] = list(self.shown)
        if self.withdraw:
            data["withdraw"] = True
        return data


def legal_actions(state: GameState, seat: int) -> list[LegalAction]:
    """Every action `seat` may take now: powers and pass (R11–R29), leave, say."""
    if not 1 <= seat <= state.n or state.left[seat]:
        return []
    n = state.n
    left = state.left
    recipients = tuple(s for s in range(1, n + 1) if s != seat and not left[s])
    if not state.running:
        return [LegalAction(SAY, recipients)]
    result: list[LegalAction] = []
    if state.alive[seat] and not state.passed[seat]:
        alive = state.alive
        others = tuple(s for s in range(1, n + 1) if alive[s] and s != seat)
        for power in POWERS_BY_PHASE[(state.roles[seat], state.kind)]:
            if power == REVIVE:
                dead = tuple(s for s in range(1, n + 1) if not alive[s])
                result.append(LegalAction(REVIVE, dead, withdraw=True))
            elif power == PROTECT:
                everyone = tuple(s for s in range(1, n + 1) if alive[s])
                result.append(LegalAction(PROTECT, everyone, withdraw=True))
            elif power == ILLUSION:
                result.append(LegalAction(ILLUSION, others, others, withdraw=True))
            elif power == SWEEP:
                if seat not in state.swept:
                    result.append(LegalAction(SWEEP, others))
            elif power == FORESEE:
                if seat not in state.foreseen:
                    result.append(LegalAction(FORESEE, others))
            else:
                result.append(LegalAction(power, others, withdraw=power in CHOICE_POWERS))
        result.append(LegalAction(PASS))
    result.append(LegalAction(LEAVE))
    result.append(LegalAction(SAY, recipients))
    return result


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
