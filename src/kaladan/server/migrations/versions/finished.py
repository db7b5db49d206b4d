"""Finished games: when each ended and who won, so the lobby lists them without replaying
(docs/api.md "Games"). Games finished before this revision keep NULL in both.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("finished", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("result", sa.JSON, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("result")
        batch.drop_column("finished")
