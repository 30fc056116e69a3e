"""Chat lines a moderator hid (issue 38: "Moderators cannot hide a troll's chat lines"),
and which line an audit line is about.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    op.create_table(
        "hidden_lines",
        sa.Column("table_id", sa.String(16), primary_key=True),
        sa.Column("place", sa.String(8), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("writer_id", sa.String(32), nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("by_id", sa.String(32), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    with op.batch_alter_table("moderation_log") as batch:
        batch.add_column(sa.Column("line", sa.String(40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("moderation_log") as batch:
        batch.drop_column("line")
    op.drop_table("hidden_lines")
