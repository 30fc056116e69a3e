"""What one seat may see: the only code that turns game state into client data.

Built as an allow-list — every field is chosen for this seat on purpose; no
field is ever copied from the state and then stripped (docs/architecture.md). The server's
snapshots, `trusis replay --as`, bots and the end screen all read this view.
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from trusis.rules.formats import View
from trusis.rules.frozen import FrozenDict, FrozenList
from trusis.rules.legal import legal_actions
from trusis.rules.roles import DAY, NIGHT, TEAM_OF, TRUSIS
from trusis.rules.state import GameState

VIEW_FORMAT: Final = "trusis-view/1"
_NONE: Final[FrozenDict[str, int]] = FrozenDict()  # no votes shown: shared, read-only
_EMPTY: Final[FrozenList[int]] = FrozenList()  # no seats: shared, read-only


def composition(state: GameState) -> dict[str, int]:
    """How many of each role are in the game: public (roles not dealt are left out).

    Read-only, and shared by every game dealt the same roles (state.py)."""
    return state.composition


def visible_votes(state: GameState, seat: int | None) -> dict[int, int]:
    """R20/R21/R24: public day votes (an illusion shows its shown vote); at night the
    TRUSIS kill votes, for the TRUSIS only (alive or dead)."""
    if not state.running:
        return {}
    if state.kind == DAY:
        votes = dict(state.votes)
        for voter, (shown, _target) in state.illusions.items():
            votes[voter] = shown
        return dict(sorted(votes.items()))
    if seat is not None and state.roles[seat] == TRUSIS:
        return dict(sorted(state.votes.items()))
    return {}


def own_choices(state: GameState, seat: int) -> dict[str, Any]:
    """The seat's own pending choices this phase (R13), never anyone else's."""
    choices: dict[str, Any] = {}
    if not state.running:
        return choices
    if seat in state.votes:
        choices["vote"] = state.votes[seat]
    if seat in state.illusions:
        shown, target = state.illusions[seat]
        choices["illusion"] = {"shown": shown, "target": target}
    # (Written out, not looped over a table of tables: views are built for every seat.)
    if seat in state.protects:
        choices["protect"] = state.protects[seat]
    if seat in state.kamikazes:
        choices["kamikaze"] = state.kamikazes[seat]
    if seat in state.revives:
        choices["revive"] = state.revives[seat]
    if seat in state.extra_votes:
        choices["extra_vote"] = state.extra_votes[seat]
    if state.kind == DAY:
        if seat in state.pending_extra:
            choices["extra_vote_today"] = state.pending_extra[seat]
    else:
        if seat in state.swept:
            choices["swept"] = True
        if seat in state.foreseen:
            choices["foreseen"] = True
    return choices


def readable_chat(state: GameState, seat: int | None) -> list[dict[str, Any]]:
    """R50: public messages, and private ones this seat sent or received.

    Each message becomes a client line once (kept in `state.chat_lines`) and is
    shared by every view that may show it: the lines are read-only (frozen.py).
    """
    lines = state.chat_lines
    for _seq, kind, number, sender, to, text, name, bot in state.chat[len(lines):]:
        # Its writer as they were then (`name`; `bot` while a bot played the seat): the seat
        # may be someone else's now (R53), and the line is still theirs (issue 38).
        line: dict[str, Any] = {
            "phase": FrozenDict({"kind": kind, "number": number}), "from": sender, "text": text,
            "name": name,
        }
        if bot:
            line["bot"] = True
        if to:
            line["to"] = to
        lines.append((sender, to, FrozenDict(line)))
    return [line for sender, to, line in lines if not to or seat == sender or seat == to]


def _public_part(state: GameState) -> dict[str, Any]:
    """The fields every seat sees alike (R11, R20, R30, R40): built once, shared,
    so every container in it is read-only (frozen.py)."""
    n = state.n
    alive = state.alive
    passed = state.passed
    left = state.left
    bots = state.bots
    names = state.names
    running = state.running
    public: dict[str, Any] = {
        "format": VIEW_FORMAT,
        "status": state.status,
        # (Keywords: FrozenDict({…}) would make a dict and then copy it.)
        "phase": FrozenDict(kind=state.kind, number=state.number),
        "winner": state.winner,
        "winners": FrozenList(state.winners) if state.winners else _EMPTY,
        "players": _players(state, n, names, alive, passed, left, bots, running),
        "composition": composition(state),
        "alive": _alive(state),
        "passed": FrozenList([s for s in state.living if passed[s]]) if running else _EMPTY,
        "history": _history(state),
        "quiet_phases": state.quiet,
        # Day votes are public (R20): one map and one tally for every seat.
        "votes": _NONE,
        "vote_counts": _NONE,
    }
    if state.kind == DAY:
        public["votes"], public["vote_counts"] = _tallied(visible_votes(state, None))
    if state.bot_seats:  # D73: whom the table's seats show as bots from the start
        public["bot_seats"] = FrozenList(state.bot_seats)
    return public


def _alive(state: GameState) -> list[int]:
    """The living seats, made once until someone dies or revives (the memo is reset then)."""
    alive = state.memo.get("alive")
    if alive is None:
        alive = state.memo["alive"] = FrozenList(state.living)
    return alive


def _players(state: GameState, n: int, names: list[str], alive: list[bool],
             passed: list[bool], left: list[bool], bots: list[bool],
             running: bool) -> list[dict[str, Any]]:
    """The `players` list: each seat's entry made once for each of its values and kept
    (`state.player_lines`): an event changes one entry at most, and a frozen dict costs
    more to make than to find."""
    lines = state.player_lines
    out = []
    for s in range(1, n + 1):
        name, here, done, gone, bot = names[s], alive[s], running and alive[s] and passed[s], \
            left[s], bots[s]
        key = (s, name, here, done, gone, bot)
        entry = lines.get(key)
        if entry is None:
            entry = lines[key] = FrozenDict(seat=s, name=name, alive=here, passed=done,
                                            left=gone, bot=bot)
        out.append(entry)
    return FrozenList(out)


def _history(state: GameState) -> list[dict[str, Any]]:
    """The ended phases as client data: each made once (kept in `state.history_lines`,
    as an ended phase never changes) and shared by every view: read-only. The list
    itself is kept too until a phase ends (public parts are rebuilt at every event)."""
    lines = state.history_lines
    cached = state.memo.get("history")
    if cached is not None and len(cached) == len(state.history):
        return cached  # type: ignore[no-any-return]
    for h in state.history[len(lines):]:
        lines.append(FrozenDict({
            "phase": FrozenDict(h["phase"]), "vote_killed": h["vote_killed"],
            "died": FrozenList(h["died"]), "revived": FrozenList(h["revived"]),
        }))
    history = state.memo["history"] = FrozenList(lines)
    return history


def _tallied(votes: dict[int, int]) -> tuple[dict[str, int], dict[str, int]]:
    """Votes as client data, with the tally of those votes made here so no client
    counts (docs/ux.md); invisible votes (an Illusionist's real vote, extra votes) are
    never among them."""
    counts: dict[str, int] = {}
    for target in votes.values():
        counts[str(target)] = counts.get(str(target), 0) + 1
    return FrozenDict({str(k): v for k, v in votes.items()}), FrozenDict(counts)


def _seat_part(state: GameState, seat: int | None, public: dict[str, Any],
               chat: bool = True) -> View:
    """Add to the shared fields what this one seat may see, field by field."""
    data: Any = dict(public)  # a View once complete (typed as Any: no cast to pay for)
    data.update(_seat_fields(state, seat, chat))  # a key of both keeps its place (votes)
    return data  # type: ignore[no-any-return]  # (complete: every key of View is set)


def _seat_fields(state: GameState, seat: int | None, chat: bool) -> dict[str, Any]:
    """What this one seat may see beyond the shared fields (and, for the TRUSIS at night,
    the votes and tally that replace the shared ones: R24), field by field."""
    data: dict[str, Any] = {}
    data["seat"] = seat
    data["seq"] = state.stream_position(seat)  # this seat's own numbering (events.py)
    if state.kind == NIGHT and seat is not None and state.roles[seat] == TRUSIS:
        data["votes"], data["vote_counts"] = _tallied(visible_votes(state, seat))  # R24
    if chat:
        data["chat"] = readable_chat(state, seat)
    if seat is None:
        data["known"] = (
            {} if state.running else {str(s): state.roles[s] for s in range(1, state.n + 1)}
        )
        data["legal"] = []
        return data  # (a spectator's: every key it has)
    role = state.roles[seat]
    data["role"] = role
    data["team"] = TEAM_OF[role]
    known = state.known_views.get(seat)
    if known is None:  # rebuilt only after the seat learns something (resolution.learn)
        known = state.known_views[seat] = FrozenDict({
            str(s): f for s, f in sorted(state.known[seat].items())
        })
    data["known"] = known
    data["choices"] = own_choices(state, seat)
    # The state's own results, read-only since the engine made them (R27, R28: the
    # Gravekeepers of one nightfall share a phase dict).
    data["results"] = list(state.results[seat])
    data["legal"] = [  # each LegalAction keeps its client form once made
        legal.client if legal.client is not None else legal.to_dict()
        for legal in legal_actions(state, seat)
    ]
    return data


def view(state: GameState, seat: int | None, chat: bool = True) -> View:
    """Everything `seat` may know now; `None` gives the public (spectator) view.

    `chat=False` leaves out the chat lines, for a client that already has them from
    the `said` and `whispered` events of its stream (the server's live updates).

    A value (docs/architecture.md, "Views are values"): the top-level dict and the
    `legal`, `chat` and `choices` containers are made for this call; everything else
    is shared — the public part is reused while no event has happened (bots ask for
    a view every turn), lines and results are made once — and read-only, a
    `FrozenDict` or `FrozenList` (frozen.py) that raises TypeError on any edit.
    Raises ValueError for a seat that is not at the table: a wrong number must
    never reach another seat's lists (a negative index would).
    """
    _check_seat(state, seat)
    return _seat_part(state, seat, _public(state), chat)


def view_json(state: GameState, seat: int | None, chat: bool = True) -> bytes:
    """`view(state, seat, chat)` as JSON: the same bytes as `orjson.dumps` of it.

    The fields every seat shares are serialised once per change of the game (kept
    beside the public part), and each seat's own fields joined to them: the server
    sends a view to every seat after every event, and the shared part is most of it.
    The same view code builds both halves: only where the bytes are made changes.
    """
    _check_seat(state, seat)
    public = _public(state)
    fields = _seat_fields(state, seat, chat)
    if "votes" in fields:  # the TRUSIS at night (R24): their own votes replace the shared
        return orjson.dumps(_seat_part(state, seat, public, chat))
    cached = state.memo.get("public json")
    if cached is None or cached[0] is not public:  # the bytes of this very dict, no other
        cached = state.memo["public json"] = (public, orjson.dumps(public)[:-1])
    return cached[1] + b"," + orjson.dumps(fields)[1:]


def _check_seat(state: GameState, seat: int | None) -> None:
    """Raises ValueError for a seat that is not at the table (see `view`)."""
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= state.n
    ):
        raise ValueError(f"there is no seat {seat!r} at this table (seats 1 to {state.n})")


def _public(state: GameState) -> dict[str, Any]:
    """The shared fields of the state as it is now: rebuilt once per event."""
    cached = state.memo.get("public view")
    if cached is None or cached[0] != state.seq:
        cached = state.memo["public view"] = (state.seq, _public_part(state))
    return cached[1]


def all_views(state: GameState) -> dict[int, View]:
    """`view` for every seat at once (the benchmark's model of a phase change).

    The public fields are built once and shared between the seats' views,
    read-only as in `view`.
    """
    public = _public_part(state)
    return {seat: _seat_part(state, seat, public) for seat in range(1, state.n + 1)}
