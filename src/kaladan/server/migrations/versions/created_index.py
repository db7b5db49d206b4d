"""An index on ``games.created``: the lobby reads the newest games by walking it, instead
of sorting every stored game on each request.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-05
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_games_created", "games", ["created"])


def downgrade() -> None:
    op.drop_index("ix_games_created", table_name="games")
