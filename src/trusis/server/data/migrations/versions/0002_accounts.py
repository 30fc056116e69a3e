"""Accounts, game history, ratings, reports and login throttling (issue 10).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("login", sa.String(64), nullable=True))
        batch.add_column(sa.Column("rating_mu", sa.Float, nullable=True))
        batch.add_column(sa.Column("rating_sigma", sa.Float, nullable=True))
        batch.add_column(sa.Column("rated_games", sa.Integer, nullable=False,
                                   server_default="0"))
        batch.add_column(sa.Column("deleted", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        batch.create_unique_constraint("uq_players_login", ["login"])
    op.create_table(
        "game_players",
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=True),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("team", sa.String(16), nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
        sa.Column("stats", sa.Text, nullable=False),
        sa.Column("table_stats", sa.Text, nullable=False),
    )
    op.create_index("ix_game_players_player_id", "game_players", ["player_id"])
    op.create_table(
        "reports",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("reporter_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("reporter_seat", sa.Integer, nullable=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("chat", sa.Text, nullable=False),
        sa.Column("phase", sa.String(16), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_reports_table_id", "reports", ["table_id"])
    op.create_table(
        "login_failures",
        sa.Column("key", sa.String(128), primary_key=True),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("first_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for name in ("login_failures", "reports", "game_players"):
        op.drop_table(name)
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint("uq_players_login", type_="unique")
        for column in ("deleted", "rated_games", "rating_sigma", "rating_mu", "login"):
            batch.drop_column(column)
