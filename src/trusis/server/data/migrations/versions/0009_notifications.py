"""Notifications (issue 37): e-mail addresses, push subscriptions, preferences, the outbox.

`notices` is the outbox stored with the game: a row is written in the transaction of the
action that causes it (data/commits.py), so a crash loses none. `deliveries` are the
messages made from them, one per address, claimed before sending and marked once sent.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    op.create_table(
        "mail_addresses",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("address", sa.String(254), nullable=False, index=True),
        sa.Column("added_at", sa.Float, nullable=False),
        sa.Column("confirmed_at", sa.Float, nullable=True),
        sa.Column("wanted", sa.Boolean, nullable=False, server_default=sa.true()),
    )
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False,
                  index=True),
        sa.Column("endpoint", sa.String(1000), nullable=False, unique=True),
        sa.Column("p256dh", sa.String(200), nullable=False),
        sa.Column("auth", sa.String(100), nullable=False),
        sa.Column("added_at", sa.Float, nullable=False),
    )
    op.create_table(
        "notify_prefs",
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), primary_key=True),
        sa.Column("prefs", sa.Text, nullable=False),
    )
    op.create_table(
        "notices",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("table_id", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("phase", sa.String(16), nullable=False),
        sa.Column("facts", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("due_at", sa.Float, nullable=False, index=True),
        sa.Column("state", sa.String(12), nullable=False, index=True),
    )
    op.create_index("notices_seat", "notices", ["table_id", "seat", "kind"])
    op.create_table(
        "deliveries",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("player_id", sa.String(32), nullable=False, index=True),
        sa.Column("channel", sa.String(8), nullable=False),
        sa.Column("address", sa.String(1000), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("lang", sa.String(4), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("digest", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("due_at", sa.Float, nullable=False),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claimed_until", sa.Float, nullable=True),
        sa.Column("sent_at", sa.Float, nullable=True),
        sa.Column("error", sa.String(200), nullable=True),
    )
    op.create_index("deliveries_due", "deliveries", ["state", "due_at"])
    op.create_index("deliveries_address", "deliveries", ["address", "sent_at"])


def downgrade() -> None:
    for name in ("deliveries", "notices", "notify_prefs", "push_subscriptions",
                 "mail_addresses"):
        op.drop_table(name)
