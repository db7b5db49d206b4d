"""Chat and rematch: each game's chat messages, who muted whom in it, and the rematch of a
finished game (docs/server.md "Chat" and "Rematch").

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),  # players | spectators
        sa.Column("seat", sa.Integer, nullable=True),  # the author's seat (players)
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("author", sa.String(60), nullable=False),  # the name shown at the time
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("chat_messages_game", "chat_messages", ["game_id", "id"])
    op.create_table(  # a reader (a seat or an account) who hides an author in one game
        "chat_mutes",
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("reader", sa.String(60), primary_key=True),  # seat:N | account:ID
        sa.Column("author", sa.String(60), primary_key=True),  # seat:N | account:ID
    )
    op.create_table(  # one per finished game whose rematch was offered
        "rematches",
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        # drawn at the offer; the new game is stored under this id (its primary key makes
        # the rematch one game however many processes start it at once)
        sa.Column("new_game_id", sa.String(40), nullable=False, unique=True),
        # {old seat: hash of its new seat's token}, compared-and-set as text
        sa.Column("accepted", sa.Text, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rematches")
    op.drop_table("chat_mutes")
    op.drop_index("chat_messages_game", "chat_messages")
    op.drop_table("chat_messages")
