"""The database schema (SQLAlchemy Core): players, their tokens, tables, seats, actions.

A game *is* its record: the table row holds the deal and the seats' names at
the start, and `actions` holds every recorded action in order, each with its
time. Nothing else about a game's course is stored, so a restart replays the
actions and finds exactly the game that was running. `password_hash` waits for
registered accounts (a later issue): a guest is a player without one.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()

players = Table(
    "players", metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("kind", String(16), nullable=False),  # guest, program (accounts later)
    Column("created_at", Float, nullable=False),
    Column("password_hash", String(256), nullable=True),
    # Registered accounts (migration 0002): a unique login name, a rating.
    Column("login", String(64), nullable=True, unique=True),  # casefolded name
    Column("rating_mu", Float, nullable=True),
    Column("rating_sigma", Float, nullable=True),
    Column("rated_games", Integer, nullable=False, default=0),
    Column("deleted", Boolean, nullable=False, default=False),
    # Migration 0008: a program seat's maker, for whom it answers (D41: mutes, bans).
    Column("made_by", String(32), nullable=True),
)

Index("players_made_by", players.c.made_by)

# -- migration 0005: roles of the people who run the server (staff.py) -------------

staff_roles = Table(
    "staff_roles", metadata,
    # A player's roles on this server, one row each: "admin" or "moderator". Not a game
    # role (docs/rules.md): who may act on reports, sanctions and the server itself.
    Column("player_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("role", String(16), primary_key=True),
    Column("granted_at", Float, nullable=False),
    Column("granted_by", String(64), nullable=False),  # "cli", or the granting admin's id
)

# -- migration 0007: moderation (moderation.py, sanctions.py, blocks.py) ---------------

report_states = Table(
    "report_states", metadata,
    # What a moderator did with a report (R51): no row is an open report.
    Column("report_id", String(16), ForeignKey("reports.id"), primary_key=True),
    Column("state", String(16), nullable=False),  # acted, dismissed
    Column("by_id", String(32), nullable=False),
    Column("at", Float, nullable=False),
)

sanctions = Table(
    "sanctions", metadata,
    Column("id", String(16), primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=False, index=True),
    Column("kind", String(16), nullable=False),  # warning, mute, ban
    Column("reason", Text, nullable=False),
    Column("by_id", String(32), nullable=False),  # the moderator's player id
    Column("at", Float, nullable=False),
    Column("until", Float, nullable=True),  # a mute's or a ban's end; None: no end
    Column("report_id", String(16), nullable=True),
    Column("seen_at", Float, nullable=True),  # a warning, once its player has read it
    Column("lifted_at", Float, nullable=True),  # a moderator ended it early
)

moderation_log = Table(
    "moderation_log", metadata,
    # The audit log: every act of a moderator or an admin, never rewritten.
    Column("id", String(16), primary_key=True),
    Column("at", Float, nullable=False, index=True),
    Column("actor_id", String(32), nullable=False),
    Column("action", String(24), nullable=False),
    Column("target_id", String(32), nullable=True),
    Column("report_id", String(16), nullable=True),
    Column("reason", Text, nullable=False),
    Column("until", Float, nullable=True),
)

blocks = Table(
    "blocks", metadata,
    Column("player_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("blocked_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("at", Float, nullable=False),
)

Index("blocks_blocked", blocks.c.blocked_id)

banned_tokens = Table(
    "banned_tokens", metadata,
    # The token hashes a banned player held: a browser that held one gets no new guest.
    Column("hash", String(64), primary_key=True),
    Column("player_id", String(32), nullable=False, index=True),
    Column("until", Float, nullable=True),
)

removals = Table(
    "removals", metadata,
    # Who a host removed from a waiting room: they cannot sit there again (D34).
    Column("table_id", String(16), ForeignKey("tables.id"), primary_key=True),
    Column("player_id", String(32), primary_key=True),
    Column("at", Float, nullable=False),
)

tokens = Table(
    "tokens", metadata,
    Column("hash", String(64), primary_key=True),  # sha256 of the token: never the token
    Column("player_id", String(32), ForeignKey("players.id"), nullable=False, index=True),
    Column("kind", String(16), nullable=False),  # session (cookie), bearer, seat (a program)
    Column("table_id", String(16), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("created_at", Float, nullable=False),
    Column("family", String(32), nullable=True, index=True),  # one sign-in's tokens (0004)
)

tables = Table(
    "tables", metadata,
    Column("id", String(16), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("host_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("options", Text, nullable=False),  # JSON: seats, set, timers, private, ...
    Column("status", String(16), nullable=False, index=True),  # open, running, finished
    Column("invite", String(32), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("started_at", Float, nullable=True),
    Column("finished_at", Float, nullable=True),
    Column("seed", BigInteger, nullable=True),  # secret until the game has ended
    Column("players", Text, nullable=True),  # JSON: the seats' names at the start
    Column("deal", Text, nullable=True),  # JSON: each seat's role
    Column("winner", String(16), nullable=True),
    Column("deadline", Float, nullable=True),  # when the current phase's timer fires
    Column("deadline_phase", String(16), nullable=True),  # which phase it is for
    Column("private", Boolean, nullable=False, default=False),
)

seats = Table(
    "seats", metadata,
    Column("table_id", String(16), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(16), nullable=False),  # person, program, bot
    Column("player_id", String(32), ForeignKey("players.id"), nullable=True),
    Column("bot_kind", String(32), nullable=True),
    Column("name", String(64), nullable=False),
)

actions = Table(
    "actions", metadata,
    Column("table_id", String(16), ForeignKey("tables.id"), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("data", Text, nullable=False),  # the record form of the action (docs/record.md)
    Column("t", Float, nullable=True),
    Column("player_id", String(32), nullable=True),
    Column("client_id", String(64), nullable=True),
    # Migration 0003: the owner's fencing number when it was stored (several processes).
    Column("fence", BigInteger, nullable=True),
)

Index("actions_client", actions.c.table_id, actions.c.player_id, actions.c.client_id,
      unique=True)

# -- migration 0002: history, ratings, reports, login throttling -------------

game_players = Table(
    "game_players", metadata,
    Column("table_id", String(16), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=True, index=True),
    Column("role", String(16), nullable=False),
    Column("team", String(16), nullable=False),
    Column("won", Boolean, nullable=False),
    Column("finished_at", Float, nullable=False),
    Column("stats", Text, nullable=False),  # JSON: this seat's statistics by id (R63)
    Column("table_stats", Text, nullable=False),  # JSON: the table's statistics by id
)

reports = Table(
    "reports", metadata,
    Column("id", String(16), primary_key=True),
    Column("table_id", String(16), ForeignKey("tables.id"), nullable=False, index=True),
    Column("reporter_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("reporter_seat", Integer, nullable=True),
    Column("seat", Integer, nullable=False),  # the seat reported
    Column("reason", Text, nullable=False),
    Column("chat", Text, nullable=False),  # JSON: the chat lines the reporter saw around it
    Column("phase", String(16), nullable=False),
    Column("at", Float, nullable=False),
    # Migration 0007: the person who held the seat when it was reported (seats change hands).
    Column("reported_id", String(32), nullable=True),
)

login_failures = Table(
    "login_failures", metadata,
    Column("key", String(128), primary_key=True),  # "account:<login>" or "address:<ip>"
    Column("failures", Integer, nullable=False),
    Column("first_at", Float, nullable=False),
)

# -- migration 0003: several server processes ---------------------------------

leases = Table(
    "leases", metadata,
    # Which process owns a running game, until when, and under which fencing number: a
    # process that lost its lease (stalled, cut off) can no longer store an action, since
    # every store checks the number in the same transaction (cluster/lease.py).
    Column("table_id", String(16), ForeignKey("tables.id"), primary_key=True),
    Column("node", String(64), nullable=False),
    Column("fence", BigInteger, nullable=False),
    Column("expires_at", Float, nullable=False),  # seconds since the epoch, the database's clock
)
