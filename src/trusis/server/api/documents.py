"""What the routes that build their own answer send, described for `/openapi.json` (issue 36).

An end screen and a replay step come from their cache as bytes (tables/endcache.py), a
record and a player's data are downloads (`Content-Disposition`), health answers 503 with
the same body, and a balance estimate is what the lab's pool answered: each route keeps its
`Response` and names one of these in `responses=`, so the schema says what is sent and
nothing re-checks or re-orders the bytes on the way. TypedDicts as in replies.py (OPEN: a
key added later still belongs); the keys in the order the routes send them.
"""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict

from trusis.rules.formats import View
from trusis.server.api.replies import OPEN


@OPEN
class Health(TypedDict):
    """`GET /api/health` (docs/deploy.md), 200 or 503 alike: this process's load, and
    whether it can do its part (`ok`). A cluster's process adds its node's figures."""

    tables: int
    running: int
    clients: int
    loop_lag_ms: float
    commit_queue: int
    send_queue: int
    send_queue_bytes: int
    ok: bool
    cluster: bool
    redis: str  # ok, down, or off (no --redis)
    node: NotRequired[str]
    owned: NotRequired[int]
    followed: NotRequired[int]
    forwarded: NotRequired[int]
    cut_off: NotRequired[str | None]
    taken_over: NotRequired[int]
    redis_dropped: NotRequired[int]
    lease_renewed_s_ago: NotRequired[float]
    database: str  # ok, down, or off


HEALTH_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": Health, "description": "The process is well."},
    503: {"model": Health, "description": "Its database or Redis does not answer, or its "
                                          "leases are not renewed: `ok` is false."},
}


@OPEN
class RecordSet(TypedDict, total=False):
    """The set played: `{"standard": true}` or `{"custom": {role id: count}}` (R3)."""

    standard: bool
    custom: dict[str, int]


@OPEN
class RecordTable(TypedDict):
    id: str
    name: str


@OPEN
class RecordDocument(TypedDict):
    """`GET /api/tables/{id}/record`: a game record (docs/record.md, the contract), each
    action with its time `t`, and where and when it was played."""

    format: str
    players: list[str]
    deal: list[str]
    set: RecordSet
    seed: int
    actions: list[dict[str, Any]]  # docs/record.md, "Actions"
    started_at: NotRequired[float | None]
    table: NotRequired[RecordTable]


@OPEN
class StatRow(TypedDict):
    name: str
    label: str
    value: str


@OPEN
class StatColumn(TypedDict):
    name: str
    label: str


@OPEN
class SeatStats(TypedDict):
    seat: int
    values: list[str]


@OPEN
class PlayersStats(TypedDict):
    columns: list[StatColumn]
    rows: list[SeatStats]


@OPEN
class EndStats(TypedDict):
    """The statistics everyone may see (R63), in the asked language."""

    table: list[StatRow]
    players: PlayersStats


@OPEN
class EndScreen(TypedDict):
    """`GET /api/tables/{id}/summary` (table/summary.py): the winner, each seat's role and
    name, each day's votes as everyone saw them and each night's, and the statistics."""

    winner: str | None
    winners: list[int]
    roles: dict[str, str]
    names: dict[str, str]
    days: list[dict[str, Any]]
    nights: list[dict[str, Any]]
    stats: EndStats


@OPEN
class PhaseStep(TypedDict):
    kind: str
    number: int
    step: int


@OPEN
class ReplayStep(TypedDict):
    """`GET /api/tables/{id}/replay` (table/replayer.py): a seat's screen after its
    `step`-th event (`log`: all it had seen), or, without a seat, the game after `step`
    actions with everything revealed (`roles`, `choices`, `known`)."""

    seat: int | None
    step: int
    steps: int
    events: list[dict[str, Any]]
    log: NotRequired[list[dict[str, Any]]]
    phases: list[PhaseStep]
    view: View
    roles: NotRequired[dict[str, str]]
    choices: NotRequired[dict[str, Any]]
    known: NotRequired[dict[str, dict[str, Any]]]


@OPEN
class Balance(TypedDict):
    """`GET /api/balance`: the lab's estimate for a set and size (heuristic bots), each
    team's win rate with its 95 % interval; `pending` until it is computed."""

    status: str  # ready or pending
    games: int
    win_rate: NotRequired[dict[str, float]]
    ci95: NotRequired[dict[str, list[float]]]
    avg_days: NotRequired[float]


def described(model: Any, what: str) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route answering `model` with 200."""
    return {200: {"model": model, "description": what}}
