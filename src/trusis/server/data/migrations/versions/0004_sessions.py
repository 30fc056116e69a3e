"""Sessions (issue 17): the tokens one sign-in handed out share a `family`, revoked together.

A guest's cookie and bearer token are one session: logging out ends both. Tokens
stored before this revision each stand alone (a NULL family: their own hash).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.add_column(sa.Column("family", sa.String(32), nullable=True))
        batch.create_index("ix_tokens_family", ["family"])


def downgrade() -> None:
    with op.batch_alter_table("tokens") as batch:
        batch.drop_index("ix_tokens_family")
        batch.drop_column("family")
