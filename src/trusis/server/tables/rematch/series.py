"""A series: a game and its rematches (D19), and who won which (GET .../series).

Counted from what the store already keeps of each finished game — its winning
team (`tables.winner`), its deal, and who held each seat at the end — so the
series needs no numbers of its own and always agrees with the end screens. A
player is followed across the games by their identity (never shown: only
`you`), a bot by its name (a bot keeps its seat and its name in a rematch).
"""

from __future__ import annotations

import json

from typing_extensions import TypedDict

from trusis.rules.victory import winning_seats
from trusis.server.data.store import Store
from trusis.server.tables.rematch.seats import link_of, series_tables

SERIES_SHOWN = 100
"""The most recent games of a series that are listed and counted."""


class SeriesGame(TypedDict, total=False):
    number: int
    table: str
    status: str
    current: bool
    winner: str | None
    winners: list[str]  # the names of the winning seats' holders at the end


class SeriesPlayer(TypedDict):
    name: str
    kind: str  # person, program, bot
    games: int
    wins: int
    you: bool


class Series(TypedDict):
    games: list[SeriesGame]
    teams: dict[str, int]  # wins per team (and DRAW), over the finished games
    players: list[SeriesPlayer]  # most wins first


async def series_of(store: Store, table_id: str, viewer: str | None) -> Series:
    """The series `table_id` belongs to, as `viewer` sees it (`you` marks their line)."""
    link = await link_of(store, table_id)
    ids = [table_id] if link is None else await series_tables(store, link.series_id)
    first = max(0, len(ids) - SERIES_SHOWN)
    games: list[SeriesGame] = []
    teams: dict[str, int] = {}
    players: dict[str, SeriesPlayer] = {}
    for number, tid in enumerate(ids[first:], first + 1):
        row = await store.table_row(tid)
        if row is None:
            continue
        game: SeriesGame = {"number": number, "table": tid, "status": row["status"],
                            "current": tid == table_id, "winner": row["winner"]}
        if row["status"] == "finished" and row["winner"] and row["deal"]:
            winners = set(winning_seats(["", *json.loads(row["deal"])], row["winner"]))
            teams[row["winner"]] = teams.get(row["winner"], 0) + 1
            names = []
            for held in await store.seat_rows(tid):
                key = held["player_id"] or f"bot:{held['name']}"
                entry = players.setdefault(key, {
                    "name": held["name"], "kind": held["kind"], "games": 0, "wins": 0,
                    "you": viewer is not None and held["player_id"] == viewer})
                entry["name"] = held["name"]  # the latest name
                entry["games"] += 1
                if held["seat"] in winners:
                    entry["wins"] += 1
                    names.append(held["name"])
            game["winners"] = names
        games.append(game)
    ranked = sorted(players.values(), key=lambda p: (-p["wins"], p["games"], p["name"]))
    return {"games": games, "teams": teams, "players": ranked}

