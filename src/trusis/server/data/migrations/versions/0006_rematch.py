"""Play again (issue 21): which game a table is the rematch of, and the seats it keeps
for the people of the game before.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_table(
        "series_games",
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("series_id", sa.String(16), nullable=False, index=True),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("previous_id", sa.String(16), nullable=True),
        sa.Column("next_id", sa.String(16), nullable=True),
    )
    op.create_table(
        "reservations",
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("until", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("reservations")
    op.drop_table("series_games")
