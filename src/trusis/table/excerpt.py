"""The chat lines of a game as a seat could read them, each with who wrote it then, when,
and where it falls in the record: a report's excerpt (R51, docs/protocol.md).

A view's chat line names only its seat, and a page names a seat by whoever holds it now:
after a hand-over, Bob's own lines read "Bob (bot)" or the new player's name (issue 38).
An excerpt is kept for good and read by people who were not there (the host, moderators),
so each line carries the name of its writer when it was written (`name`; a whisper's
recipient's too, `to_name`) — the seat's player, or "<name> (bot)" while a bot played it
(R53) —, its time (`t`), and the replay's step just after it
(`step`: how many of the record's actions were played then, the replay with everything
revealed, /t/{id}/replay?step=K).
"""

from __future__ import annotations

from typing import Any

from trusis.table.record import Record
from trusis.table.table import Table

BOT_SUFFIX = " (bot)"
"""How a seat a bot plays is named (the lobby's name for it: seats/handover.py)."""


def chat_excerpt(record: Record, seat: int | None, last: int) -> list[dict[str, Any]]:
    """The last `last` chat lines `seat` (None: a spectator) could read in `record` (R50:
    public lines, and the whispers it sent or received), oldest first."""
    table = Table(record.players, record.seed, record.custom, record.roles())
    holder = ["", *record.players]
    bot = [False] * (len(record.players) + 1)
    lines: list[dict[str, Any]] = []
    for index, action in enumerate(record.actions):
        t = record.times[index] if index < len(record.times) else None
        outcome = table.submit(action, t)
        state = table.state
        for event in outcome.events:
            params = event.params
            if event.code in ("replaced", "returned"):  # R53, D29: the seat's new holder
                number, by = int(params["seat"]), str(params["by"])
                bot[number] = by == "bot"
                if by != "bot":
                    holder[number] = by
            elif event.code in ("said", "whispered"):
                sender = int(params["seat"])
                to = params.get("to")
                if to is not None and seat not in (sender, to):
                    continue  # another seat's whisper (R50)
                line: dict[str, Any] = {
                    "phase": {"kind": state.kind, "number": state.number}, "from": sender,
                    "text": params["text"],
                    "name": holder[sender] + (BOT_SUFFIX if bot[sender] else ""),
                    "step": index + 1}
                if to is not None:
                    line["to"] = int(to)
                    line["to_name"] = holder[int(to)] + (BOT_SUFFIX if bot[int(to)] else "")
                if t is not None:
                    line["t"] = t
                lines.append(line)
    return lines[-last:] if last > 0 else []
