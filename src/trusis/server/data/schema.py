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
    # Migration 0011: the chat line a hide or an unhide is about, "<table>/<place>/<number>".
    Column("line", String(40), nullable=True),
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
    # every store checks the number in the same transaction (data/leases.py).
    Column("table_id", String(16), ForeignKey("tables.id"), primary_key=True),
    Column("node", String(64), nullable=False),
    Column("fence", BigInteger, nullable=False),
    Column("expires_at", Float, nullable=False),  # seconds since the epoch, the database's clock
)

# -- migration 0009: notifications (issue 37: server/notifications/) ------------------

mail_addresses = Table(
    "mail_addresses", metadata,
    # An account's e-mail address: nothing but its confirmation is sent to it until it is
    # confirmed (`confirmed_at`). One address a player; unsubscribing clears `wanted`.
    Column("player_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("address", String(254), nullable=False, index=True),
    Column("added_at", Float, nullable=False),
    Column("confirmed_at", Float, nullable=True),
    Column("wanted", Boolean, nullable=False, default=True),
)

push_subscriptions = Table(
    "push_subscriptions", metadata,
    # A browser's Web Push subscription (RFC 8030): where to post, and its keys (RFC 8291).
    Column("id", String(16), primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=False, index=True),
    Column("endpoint", String(1000), nullable=False, unique=True),
    Column("p256dh", String(200), nullable=False),
    Column("auth", String(100), nullable=False),
    Column("added_at", Float, nullable=False),
)

notify_prefs = Table(
    "notify_prefs", metadata,
    # What a player wants, by channel and kind, in which language and time zone (JSON:
    # notifications/prefs.py); no row is the defaults.
    Column("player_id", String(32), ForeignKey("players.id"), primary_key=True),
    Column("prefs", Text, nullable=False),
)

notices = Table(
    "notices", metadata,
    # The outbox: one fact worth telling one seat's player, written in the transaction of
    # the action (or start) that caused it, built from that seat's view and events only.
    Column("id", String(24), primary_key=True),
    Column("player_id", String(32), nullable=False),
    Column("table_id", String(16), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("kind", String(16), nullable=False),  # started, phase, reminder, whisper, ended
    Column("phase", String(16), nullable=False),  # the phase it is about ("day:2")
    Column("facts", Text, nullable=False),  # JSON (notifications/facts.py)
    Column("created_at", Float, nullable=False),
    Column("due_at", Float, nullable=False, index=True),  # a reminder waits for its hour
    Column("state", String(12), nullable=False, index=True),  # new, done, cancelled
)

Index("notices_seat", notices.c.table_id, notices.c.seat, notices.c.kind)

deliveries = Table(
    "deliveries", metadata,
    # One message to one address (an e-mail or a push subscription): claimed before it is
    # sent, marked once sent, retried with back-off in between (notifications/outbox.py).
    Column("id", String(24), primary_key=True),  # also the e-mail's Message-ID
    Column("player_id", String(32), nullable=False, index=True),
    Column("channel", String(8), nullable=False),  # email, push
    Column("address", String(1000), nullable=False),  # the e-mail, or the subscription id
    Column("kind", String(16), nullable=False),  # a notice's kind, confirm, or digest
    Column("lang", String(4), nullable=False),
    Column("content", Text, nullable=False),  # JSON: the words, rendered when queued
    Column("digest", Boolean, nullable=False, default=False),  # waits for the daily mail
    Column("created_at", Float, nullable=False),
    Column("due_at", Float, nullable=False),
    Column("state", String(12), nullable=False),  # queued, claimed, sent, failed, dropped
    Column("attempts", Integer, nullable=False, default=0),
    Column("claimed_by", String(64), nullable=True),
    Column("claimed_until", Float, nullable=True),
    Column("sent_at", Float, nullable=True),
    Column("error", String(200), nullable=True),
)

Index("deliveries_due", deliveries.c.state, deliveries.c.due_at)
Index("deliveries_address", deliveries.c.address, deliveries.c.sent_at)

# -- migration 0010: what each player last read at each table (issue 37: "Your games") --

reads = Table(
    "reads", metadata,
    # How far a player's own stream at a table had been delivered to a page of theirs when
    # their last page of it closed: the unread lines of "Your games" are counted after it.
    Column("table_id", String(16), primary_key=True),
    Column("player_id", String(32), primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("at", Float, nullable=False),
)

# -- migration 0011: chat lines a moderator hid (issue 38, D71) --

hidden_lines = Table(
    "hidden_lines", metadata,
    # A row is a line hidden now; an unhide deletes it (the audit log keeps both acts).
    # `place` "game": `number` is the record's step just after the line (its say action's
    # index + 1, as a report's excerpt says); "waiting": the waiting room's nth line (D45).
    Column("table_id", String(16), primary_key=True),
    Column("place", String(8), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("writer_id", String(32), nullable=True),  # the player who wrote it, if a person
    Column("reason", Text, nullable=False),
    Column("by_id", String(32), nullable=False),
    Column("at", Float, nullable=False),
)

# What a rematch stores (migration 0006; tables/rematch/seats.py): the games of a series,
# and the seats a new table keeps for the people of the game before (D19).
series_games = Table(
    "series_games", metadata,
    Column("table_id", String(16), ForeignKey("tables.id"), primary_key=True),
    Column("series_id", String(16), nullable=False, index=True),  # the first game's table
    Column("number", Integer, nullable=False),  # 1 for the first game
    Column("previous_id", String(16), nullable=True),
    Column("next_id", String(16), nullable=True),  # its rematch, once proposed
)

reservations = Table(
    "reservations", metadata,
    Column("table_id", String(16), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("player_id", String(32), ForeignKey("players.id"), nullable=False),
    Column("kind", String(16), nullable=False),  # person or program
    Column("name", String(64), nullable=False),
    Column("until", Float, nullable=False),  # seconds since the epoch
)
