"""The `trusis-result/1` document of `trusis replay`, whole or as one seat sees it.

The seat's version is built from `views.view` — the same code the server sends
to that seat — so `--as` shows exactly what that seat's client would know.
"""

from __future__ import annotations

from typing import Any

from trusis.rules.i18n import seat_label
from trusis.rules.roles import ROLES
from trusis.rules.views import composition, view
from trusis.table.game import Replay

RESULT_FORMAT = "trusis-result/1"


def result_document(played: Replay, as_seat: int | None = None) -> dict[str, Any]:
    """The replay result (docs/record.md); with `as_seat`, only what that seat may see."""
    state = played.state
    n = state.n
    if as_seat is None:
        public = view(state, None)
        roles = {str(s): state.roles[s] for s in range(1, n + 1)}
        views = {str(s): {"role": state.roles[s],
                          "known": {str(k): v for k, v in sorted(state.known[s].items())}}
                 for s in range(1, n + 1)}
        refused = played.refused
    else:
        public = view(state, as_seat)
        roles = {s: f for s, f in public["known"].items() if f in ROLES}
        views = {str(as_seat): {"role": public["role"], "known": public["known"]}}
        refused = [r for r in played.refused if r.seat in (None, as_seat)]
    return {
        "format": RESULT_FORMAT,
        "status": state.status,
        "phase": public["phase"],
        "winner": state.winner,
        "winners": list(state.winners),
        "composition": composition(state),
        "roles": roles,
        "alive": public["alive"],
        "passed": public["passed"],
        "votes": public["votes"],
        "history": public["history"],
        "refused": [{"index": r.index, "reason": r.error.message(),
                     "code": r.error.code, "params": r.error.params} for r in refused],
        "views": views,
    }


def result_text(doc: dict[str, Any], names: list[str]) -> str:
    """The same facts as `result_document`, laid out for a person to read."""

    def who(seat: int | str) -> str:
        s = int(seat)
        return f"{names[s - 1]} ({seat_label(s)})"

    def role_name(role: str) -> str:
        return ROLES[role].en if role in ROLES else role.replace("_", " ").lower()

    phase = doc["phase"]
    lines = []
    if doc["status"] == "finished":
        winner = doc["winner"]
        outcome = "a draw" if winner == "DRAW" else f"the {winner.title()} team wins"
        lines.append(f"Game over after {phase['kind'].title()} {phase['number']}: {outcome}.")
        if doc["winners"]:
            lines.append("Winners: " + ", ".join(who(s) for s in doc["winners"]))
    else:
        lines.append(f"Game running: {phase['kind'].title()} {phase['number']}.")
    comp = ", ".join(f"{c} {role_name(r)}" for r, c in doc["composition"].items())
    lines.append(f"Composition: {comp}.")
    lines.append("")
    lines.append("Seats:")
    alive = set(doc["alive"])
    passed = set(doc["passed"])
    for seat in range(1, len(names) + 1):
        key = str(seat)
        role = role_name(doc["roles"][key]) if key in doc["roles"] else "?"
        state = "alive" if seat in alive else "dead"
        if seat in passed:
            state += ", passed"
        vote = doc["votes"].get(key)
        voting = f", votes for {who(vote)}" if vote is not None else ""
        lines.append(f"  {seat:>2}. {names[seat - 1]:<16} {role:<14} {state}{voting}")
    if doc["history"]:
        lines.append("")
        lines.append("History:")
    for entry in doc["history"]:
        p = entry["phase"]
        facts = []
        if p["kind"] == "day":
            killed = entry["vote_killed"]
            facts.append(
                f"{who(killed)} killed by the vote" if killed else "nobody killed by the vote"
            )
        others = [s for s in entry["died"] if s != entry["vote_killed"]]
        if others:
            facts.append("died: " + ", ".join(who(s) for s in others))
        if entry["revived"]:
            facts.append("revived: " + ", ".join(who(s) for s in entry["revived"]))
        if p["kind"] == "night" and not entry["died"]:
            facts.append("nobody died")
        lines.append(f"  {p['kind'].title()} {p['number']}: " + "; ".join(facts) + ".")
    if doc["refused"]:
        lines.append("")
        lines.append("Refused actions:")
        for r in doc["refused"]:
            lines.append(f"  action {r['index']}: {r['reason']}")
    lines.append("")
    lines.append("What each seat knows:")
    for key, seat_view in doc["views"].items():
        facts = [f"{who(s)}: {role_name(f)}" for s, f in seat_view["known"].items() if s != key]
        own = f"{who(key)} is {role_name(seat_view['role'])}"
        lines.append(f"  {own}" + ("; knows " + ", ".join(facts) if facts else "") + ".")
    return "\n".join(lines)
