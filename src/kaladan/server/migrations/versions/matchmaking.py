"""Quick match and turn notifications: the one queue of every server process, whose turn it
is in each game of signed-in players, and the turn mails sent (docs/server.md "Open games and
quick match", "Notifications").

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_queue",
        # one place in the queue per player
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                  primary_key=True),
        # the queue: mode, players and time control as one text (matchmaking.queue_key)
        sa.Column("queue", sa.String(400), nullable=False, index=True),
        sa.Column("mode", sa.String(40), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("time_control", sa.JSON, nullable=True),  # opaque: handed to the game
        sa.Column("bots", sa.String(100), nullable=False),  # the empty seats' bots
        sa.Column("wait", sa.Integer, nullable=False),  # seconds before bots fill in
        sa.Column("joined", sa.DateTime(timezone=True), nullable=False),
        # set when matched ("pending" while the game is being made), with the player's seat
        sa.Column("game_id", sa.String(40), nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("matched", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "game_turns",
        # whose decision it is in a game with signed-in players, and since when
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),  # -1: the game is over
        sa.Column("turn", sa.Integer, nullable=False),  # the version the turn began at
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "turn_mails",
        # one mail per player, game and turn at most: the key is inserted before sending
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("turn", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent", sa.DateTime(timezone=True), nullable=True, index=True),
    )
    op.create_table(
        "unsubscribe_tokens",
        # the SHA-256 of the secret of one mail's unsubscribe link (a new one per mail,
        # so every mail's link keeps working; no expiry: a mail may be read late)
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id", ondelete="CASCADE"),
                  nullable=False, index=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("unsubscribe_tokens")
    op.drop_table("turn_mails")
    op.drop_table("game_turns")
    op.drop_table("match_queue")
