"""The lobby's requests as values: what the game's writer is asked to do, by whom.

Every request that changes a table's seats or starts its game (`seating.py`) or
its rematch (`rematch.py`) is run by the one process that writes that game
(`owner.py`). Here, or forwarded to another process, it is the same value: a
method named from a fixed list and its arguments by name, never a method looked
up from a string with a list of positional arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

from trusis.server.store import Player

LobbyMethod = Literal["sit", "stand", "add_bot", "free", "program_seat", "start", "replace",
                      "claim", "return", "rematch", "rematch_accept", "rematch_decline",
                      "draw", "rename_check", "rename", "close", "remove"]

LobbyResult = int | str | tuple[int, str] | None
"""A seat number (sit, add_bot, claim, return, rematch_accept), a claim code (replace), a
table id (rematch), a seat and its token (program_seat), the record's length after an
admin's draw (draw, D38), or nothing (close, D51; remove, D34, D55; among others)."""


class Revoked(TypedDict):
    """Tokens just revoked (sessions.py): one sign-in's (`family`), or all of a player's
    but `keep`'s, or all of them. The connections they opened are closed, everywhere
    (here by the hub; on the other processes from cluster/messages.py's `Revoked`)."""

    player: str
    family: str | None
    keep: str | None
    ban: NotRequired[bool]  # a ban (moderation.py): the player's seats go too (banning.py)
    until: NotRequired[float | None]  # a ban's end (None: never), said before the close
    reason: NotRequired[str]  # a ban's reason, said as its end is (D53)
    deleted: NotRequired[bool]  # a deleted account: its seats go as a ban's do (D53)


@dataclass(frozen=True)
class LobbyRequest:
    """One lobby request: `player` asks for `method`; the other fields are its arguments
    (`seat` for sit/add_bot/free/remove/program_seat/replace, `kind` a bot kind, `by` who takes
    a departed seat, `name` a program's or the player's new one (rename_check, rename:
    D46), `code` a claim code)."""

    method: LobbyMethod
    player: Player
    seat: int | None = None
    kind: str = ""
    by: str = ""
    name: str = ""
    code: str = ""


def seat_number(result: LobbyResult) -> int:
    if not isinstance(result, int):
        raise TypeError(f"a seat number was expected, not {result!r}")
    return result


def text(result: LobbyResult) -> str:
    if not isinstance(result, str):
        raise TypeError(f"a string was expected, not {result!r}")
    return result
