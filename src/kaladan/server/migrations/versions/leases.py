"""Leases: which server process owns each live game, with a fencing token (docs/server.md
"Scaling out"). Used only when several processes share the database (``--broker-url``).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "leases",
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("owner", sa.String(100), nullable=False),
        sa.Column("token", sa.BigInteger, nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("leases")
