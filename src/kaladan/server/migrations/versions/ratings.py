"""Ratings: every account's OpenSkill rating per category and its history, one row per rated
game (docs/server.md "Ratings").

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                  primary_key=True),
        # "all", "free_for_all-<players>", "team_2v2", "team_3v3" (ratings.category)
        sa.Column("category", sa.String(32), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ratings_category", "ratings", ["category"])
    op.create_table(
        "rating_history",
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("category", sa.String(32), primary_key=True),
        # a game is rated once: a second try finds its rows (rating_store.record)
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),  # after the game
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("realm", sa.String(16), nullable=True),  # the seat's realm (R2.1)
    )
    op.create_index("rating_history_game", "rating_history", ["game_id"])
    op.create_index("rating_history_account_at", "rating_history", ["account_id", "at"])


def downgrade() -> None:
    op.drop_table("rating_history")
    op.drop_table("ratings")
