"""The `random` bot: a uniform choice among the legal game actions, then a pass.

It is the baseline of the balance lab: any bot worth its name must beat it,
and a table of random bots shows what the rules alone give each team.
"""

from __future__ import annotations

from typing import ClassVar

from trusis.bots.base import Bot, concrete
from trusis.rules.actions import Action


class RandomBot(Bot):
    """Takes one uniformly chosen legal action (`pass` among them), then passes."""

    kind: ClassVar[str] = "random"

    _acted_in: object = None

    def act(self) -> Action:
        phase = self.view.get("phase")
        if phase == self._acted_in:
            return self.pass_()
        self._acted_in = phase
        options = list(concrete(self.view, self.seat))
        if not options:
            return self.pass_()
        return options[self.rng.randrange(len(options))]
