"""What follows a player from game to game: finished games, statistics, ratings.

When a game ends, every seat held by a person or a program gets a row in
`game_players` with its role, team, result and statistics by id (R63), and
the registered players are rated with OpenSkill (Plackett–Luce, teams as
teams; bots and guests are not rated). A game the server's staff ended as a
draw (D38) is kept as a draw and rated for nobody: how it ended says nothing
about how anyone played; a draw the rules reached (R33, R34, D15) is rated as a
tie between the teams. A profile shows a draw as a draw, never a loss (D49).
Profiles aggregate those rows with the
same code as `trusis stats` (stats.aggregate), so the two always agree.
"""

from __future__ import annotations

import json
import time
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import Connection, insert, select, update
from typing_extensions import TypedDict

from trusis.rules.actions import STAFF_DRAW
from trusis.rules.roles import TEAM_OF
from trusis.rules.victory import DRAW
from trusis.server.data import schema
from trusis.server.data.store import Store
from trusis.stats.aggregate import Aggregate
from trusis.stats.declaration import PLAYER, shipped_declaration
from trusis.stats.scoring import score
from trusis.table.record import Record

MODEL = PlackettLuce()


def ordinal(mu: float | None, sigma: float | None) -> float | None:
    """The displayed rating: a conservative estimate (mu − 3σ), as OpenSkill advises."""
    if mu is None or sigma is None:
        return None
    return round(mu - 3 * sigma, 2)


async def record_finished(store: Store, table_id: str, record: Record,
                          holders: dict[int, str]) -> None:
    """Keep the finished game for each seat's player (`holders`: seat -> player id)."""
    stats = score(record)
    stored = stats.stored()
    roles = record.roles()
    winners: set[int] = set()
    for entry in stored["players"]:
        sheet = stats.players[entry["seat"]]
        if sheet.get("won"):
            winners.add(entry["seat"])
    now = time.time()
    rows = []
    for seat, player_id in sorted(holders.items()):
        entry = stored["players"][seat - 1]
        rows.append({"table_id": table_id, "seat": seat, "player_id": player_id,
                     "role": roles[seat - 1], "team": TEAM_OF[roles[seat - 1]],
                     "won": seat in winners, "finished_at": now,
                     "stats": json.dumps(entry["stats"]),
                     "table_stats": json.dumps(stored["table"])})
    rated = not (record.actions and record.actions[-1].do == STAFF_DRAW)  # D38: its last word

    def job(conn: Connection) -> None:
        if rows:
            conn.execute(insert(schema.game_players), rows)
        if rated:
            rate(conn, rows)
    await store.write(job)


def rate(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """OpenSkill after a game between registered players: the winning team first (within
    the transaction that keeps the finished game)."""
    p = schema.players
    ids = [r["player_id"] for r in rows]
    found = conn.execute(
        select(p.c.id, p.c.rating_mu, p.c.rating_sigma, p.c.rated_games)
        .where(p.c.id.in_(ids), p.c.kind == "account")).all()
    accounts = {row[0]: row for row in found}
    rated = [r for r in rows if r["player_id"] in accounts]
    teams: dict[str, list[dict[str, Any]]] = {}
    for r in rated:
        teams.setdefault(r["team"], []).append(r)
    if len(teams) < 2:
        return  # nobody to be measured against
    order = sorted(teams, key=lambda team: not any(r["won"] for r in teams[team]))
    ratings = [[MODEL.rating(mu=accounts[r["player_id"]][1],
                             sigma=accounts[r["player_id"]][2], name=r["player_id"])
                for r in teams[team]] for team in order]
    ranks: list[float] = [0.0 if any(r["won"] for r in teams[team]) else 1.0
                          for team in order]
    for team_ratings in MODEL.rate(ratings, ranks=ranks):
        for rating in team_ratings:
            games = accounts[rating.name][3] or 0
            conn.execute(update(p).where(p.c.id == rating.name).values(
                rating_mu=rating.mu, rating_sigma=rating.sigma, rated_games=games + 1))


def result_of(won: bool, winner: str | None) -> str:
    """A finished game for one seat (D49): `won`, `lost`, or `draw` when nobody won (R33,
    R34, D15, or the staff's draw, D38): a draw is no loss."""
    if winner == DRAW:
        return "draw"
    return "won" if won else "lost"


class ProfilePlayer(TypedDict):
    id: str
    name: str
    kind: str


class Profile(TypedDict):
    """A player's finished games, wins by team and role, statistics (R63) and rating."""

    player: ProfilePlayer
    rating: float | None
    rated_games: int | None
    games: list[dict[str, Any]]
    wins: dict[str, Any]
    averages: list[Any]
    private_games_hidden: int  # private tables' games the viewer did not sit at (D68)


class Leader(TypedDict):
    """A line of the leaderboard: an account's rating (its ordinal) and rated games."""

    id: str
    name: str
    rating: float | None
    games: int | None


async def profile(store: Store, player_id: str, lang: str = "en",
                  viewer: str | None = None) -> Profile | None:
    """A player's finished games, wins by team and role, statistics and rating, as `viewer`
    (None: a visitor) may read it: a private table's game is listed only to those who sat
    at it (D68); the totals count it without saying where (`private_games_hidden`)."""
    p, g, t = schema.players, schema.game_players, schema.tables
    async with store.engine.connect() as conn:
        row = (await conn.execute(select(p).where(p.c.id == player_id,
                                                  p.c.deleted.is_(False)))).mappings().first()
        if row is None:
            return None
        games = (await conn.execute(
            select(g, t.c.name, t.c.winner, t.c.private).join(t, t.c.id == g.c.table_id)
            .where(g.c.player_id == player_id).order_by(g.c.finished_at.desc())
        )).mappings().all()
        private = {game["table_id"] for game in games if game["private"]}
        sat: set[str] = set()
        if private and viewer is not None:
            sat = set((await conn.execute(select(g.c.table_id).where(
                g.c.player_id == viewer, g.c.table_id.in_(private)))).scalars().all())
    listed = [game for game in games if not game["private"] or game["table_id"] in sat]
    aggregate = Aggregate(shipped_declaration())
    for game in games:
        aggregate.add({"table": json.loads(game["table_stats"]),
                       "players": [{"seat": game["seat"], "name": player_id,
                                    "stats": json.loads(game["stats"])}]})
    summary = aggregate.as_json(lang)["players"].get(player_id)
    history = aggregate.players.get(player_id)
    averages = [] if history is None else [
        r.as_json() for r in aggregate.mean_rows(PLAYER, history.means, lang, limited=False)]
    return {
        "player": {"id": row["id"], "name": row["name"], "kind": row["kind"]},
        "rating": ordinal(row["rating_mu"], row["rating_sigma"]),
        "rated_games": row["rated_games"],
        "games": [{"table_id": game["table_id"], "table": game["name"], "seat": game["seat"],
                   "role": game["role"], "team": game["team"], "won": game["won"],
                   "result": result_of(game["won"], game["winner"]),
                   "finished_at": game["finished_at"]} for game in listed],
        "private_games_hidden": len(games) - len(listed),
        "wins": {"games": len(games), "won": sum(1 for game in games if game["won"]),
                 "drawn": sum(1 for game in games if game["winner"] == DRAW),
                 "by_team": summary["by_team"] if summary else [],
                 "by_role": summary["by_role"] if summary else []},
        "averages": averages,
    }


async def leaderboard(store: Store, limit: int = 100) -> list[Leader]:
    p = schema.players
    async with store.engine.connect() as conn:
        rows = (await conn.execute(
            select(p.c.id, p.c.name, p.c.rating_mu, p.c.rating_sigma, p.c.rated_games)
            .where(p.c.kind == "account", p.c.deleted.is_(False), p.c.rating_mu.is_not(None))
        )).all()
    board = [Leader(id=r[0], name=r[1], rating=ordinal(r[2], r[3]), games=r[4]) for r in rows]
    board.sort(key=lambda entry: -(entry["rating"] or 0.0))
    return board[:limit]
