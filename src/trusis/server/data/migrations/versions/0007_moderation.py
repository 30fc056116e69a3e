"""Moderation (issue 18, community half): report states, sanctions, the audit log, blocks,
the tokens of banned players, and who a host removed from a waiting room.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    # The person a report is about, as they held the seat then: seats change hands (R53).
    with op.batch_alter_table("reports") as batch:
        batch.add_column(sa.Column("reported_id", sa.String(32), nullable=True))
    op.create_table(
        "report_states",
        sa.Column("report_id", sa.String(16), sa.ForeignKey("reports.id"), primary_key=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("by_id", sa.String(32), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "sanctions",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False,
                  index=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("by_id", sa.String(32), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("until", sa.Float, nullable=True),
        sa.Column("report_id", sa.String(16), nullable=True),
        sa.Column("seen_at", sa.Float, nullable=True),
        sa.Column("lifted_at", sa.Float, nullable=True),
    )
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("at", sa.Float, nullable=False, index=True),
        sa.Column("actor_id", sa.String(32), nullable=False),
        sa.Column("action", sa.String(24), nullable=False),
        sa.Column("target_id", sa.String(32), nullable=True),
        sa.Column("report_id", sa.String(16), nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("until", sa.Float, nullable=True),
    )
    op.create_table(
        "blocks",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("blocked_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("blocks_blocked", "blocks", ["blocked_id"])
    op.create_table(
        "banned_tokens",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(32), nullable=False, index=True),
        sa.Column("until", sa.Float, nullable=True),
    )
    op.create_table(
        "removals",
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("player_id", sa.String(32), primary_key=True),
        sa.Column("at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    for name in ("removals", "banned_tokens", "blocks", "moderation_log", "sanctions",
                 "report_states"):
        op.drop_table(name)
    with op.batch_alter_table("reports") as batch:
        batch.drop_column("reported_id")
