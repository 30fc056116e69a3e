"""The first schema: players, tokens, tables, seats and actions.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("password_hash", sa.String(256), nullable=True),
    )
    op.create_table(
        "tokens",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(16), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("ix_tokens_player_id", "tokens", ["player_id"])
    op.create_table(
        "tables",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("host_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("options", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("invite", sa.String(32), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("started_at", sa.Float, nullable=True),
        sa.Column("finished_at", sa.Float, nullable=True),
        sa.Column("seed", sa.BigInteger, nullable=True),
        sa.Column("players", sa.Text, nullable=True),
        sa.Column("deal", sa.Text, nullable=True),
        sa.Column("winner", sa.String(16), nullable=True),
        sa.Column("deadline", sa.Float, nullable=True),
        sa.Column("deadline_phase", sa.String(16), nullable=True),
        sa.Column("private", sa.Boolean, nullable=False),
    )
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_table(
        "seats",
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("bot_kind", sa.String(32), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
    )
    op.create_table(
        "actions",
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("t", sa.Float, nullable=True),
        sa.Column("player_id", sa.String(32), nullable=True),
        sa.Column("client_id", sa.String(64), nullable=True),
    )
    op.create_index("actions_client", "actions", ["table_id", "player_id", "client_id"],
                    unique=True)


def downgrade() -> None:
    for name in ("actions", "seats", "tables", "tokens", "players"):
        op.drop_table(name)
