"""Time controls: a game's clock (its time control and state, JSON) and its running deadline,
indexed, so a process finds the games whose time runs out with one query (docs/server.md
"Time controls"). Both are NULL for untimed games.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("clock", sa.JSON, nullable=True))
        batch.add_column(sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_games_deadline", "games", ["deadline"])


def downgrade() -> None:
    op.drop_index("ix_games_deadline", table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("deadline")
        batch.drop_column("clock")
