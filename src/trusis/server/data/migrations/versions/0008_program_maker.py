"""Who made each program seat (D41): a program answers for the person who handed it out.

A program's player row now names its maker (`made_by`): that person's mute refuses the
program's chat and their ban ends its tokens (mutes.py, revocation.py). Programs made
before this revision are given the host of the first table they held a seat at, which
is who made them: only a table's host hands out program seats.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("made_by", sa.String(32), nullable=True))
        batch.create_index("players_made_by", ["made_by"])
    op.execute(
        "UPDATE players SET made_by = (SELECT t.host_id FROM seats s JOIN tables t "
        "ON t.id = s.table_id WHERE s.player_id = players.id "
        "ORDER BY t.created_at LIMIT 1) WHERE kind = 'program'")


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_index("players_made_by")
        batch.drop_column("made_by")
