"""`trusis play`: one person plays a whole game of Trusis in the terminal against bots.

`options` (settings and the custom-set parser), `text` (the player's language),
`commands` (what the person types), `table` (the game, its event journal and
the bots' driver), `journal` (news, log and vote grid for one seat), `screen`
and `endgame` (what is drawn, from the seat's view only), `terminal` (where
lines come from), `session` (the loop) and `cli` (the command).
"""

from trusis.play.options import PlayOptions
from trusis.play.session import Session
from trusis.play.terminal import KeyboardTerminal, ScriptedTerminal, Terminal

__all__ = [
    "KeyboardTerminal",
    "PlayOptions",
    "ScriptedTerminal",
    "Session",
    "Terminal",
]
