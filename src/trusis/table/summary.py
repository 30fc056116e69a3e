"""The end screen of a finished game: every role, the vote grid, the night timeline.

Read from the table's whole log, internal events included, which is allowed
only once the game has ended (R35: then every role is revealed to everyone);
`summary` refuses a running game, so nothing here can leak a live secret.
"""

from __future__ import annotations

from typing import Any

from trusis.rules.roles import DAY
from trusis.table.table import Table


def summary(table: Table) -> dict[str, Any]:
    """Winner, roles, days (the votes as everyone saw them, and the victim) and nights
    (kill votes, protections, strikes, sweeps, visions, deaths and revivals)."""
    state = table.state
    if state.running:
        raise ValueError("a running game has no end screen")
    days: list[dict[str, Any]] = []
    nights: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    kind, number = DAY, 1

    def start(kind: str, number: int) -> dict[str, Any]:
        entry: dict[str, Any] = {"number": number, "died": [], "revived": []}
        if kind == DAY:
            entry.update(shown={}, votes={}, killed=None)
            days.append(entry)
        else:
            entry.update(trusis_votes={}, target=None, protected_by=[], protects={},
                         kamikaze={}, sweeps=[], visions=[])
            nights.append(entry)
        return entry

    current = start(kind, number)
    for event in table.log:
        code, params = event.code, event.params
        if code == "phase_started":
            kind, number = params["kind"], params["number"]
            current = start(kind, number)
        elif code == "vote_cast" and kind == DAY:
            current["shown"][str(params["voter"])] = params["target"]
        elif code == "vote_withdrawn" and kind == DAY:
            current["shown"].pop(str(params["voter"]), None)
        elif code == "tally":
            # Plain votes only: an illusion's real vote and the extra votes stay invisible
            # even after the end (R23, D17); the grid shows illusions as everyone saw them.
            current["votes"] = {str(k): v for k, v in params["votes"].items()}
        elif code == "vote_killed":
            current["killed"] = params["seat"]
        elif code == "night_kills":
            current["trusis_votes"] = {str(k): v for k, v in params["trusis_votes"].items()}
            current["target"] = params["trusis_target"]
            current["protected_by"] = list(params["protected_by"])
            current["protects"] = {str(k): v for k, v in params["protects"].items()}
            current["kamikaze"] = {str(k): v for k, v in params["kamikaze"].items()}
        elif code == "sweep_result":
            current.setdefault("sweeps", []).append(
                {"seat": event.seats[0], "target": params["target"], "result": params["result"]})
        elif code == "foresee_result":
            current.setdefault("visions", []).append(
                {"seat": event.seats[0], "target": params["target"], "role": params["role"]})
        elif code == "died":
            current["died"].append(params["seat"])
        elif code == "revived":
            current["revived"].append(params["seat"])
    return {
        "winner": state.winner,
        "winners": list(state.winners),
        "roles": {str(s): state.roles[s] for s in range(1, state.n + 1)},
        "names": {str(s): state.names[s] for s in range(1, state.n + 1)},
        "days": days,
        "nights": nights,
    }
