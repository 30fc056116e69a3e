"""Roles for accounts (issue 18): admin (the operator) and moderator, granted by `trusis admin`.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_table(
        "staff_roles",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("role", sa.String(16), primary_key=True),
        sa.Column("granted_at", sa.Float, nullable=False),
        sa.Column("granted_by", sa.String(64), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("staff_roles")
