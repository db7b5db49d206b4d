"""Accounts: players with a name and a password, their sessions, one-time e-mail links, and
which account sits at which seat (docs/server.md "Accounts").

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        # rated games: every human seat signed in; open seats: taken without a code
        batch.add_column(sa.Column("rated", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("open_seats", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),  # as typed; "deleted player" once deleted
        # the name folded for uniqueness ("Anna" and "anna" are one name); NULL once deleted
        sa.Column("name_key", sa.String(100), nullable=True, unique=True),
        sa.Column("password", sa.Text, nullable=True),  # Argon2id hash; NULL once deleted
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("email_confirmed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("notify_email", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("chat", sa.Boolean, nullable=False, server_default=sa.true()),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("deleted", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),  # SHA-256 of the cookie's secret
        sa.Column("account_id", sa.String(40),
                  sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "email_tokens",
        sa.Column("id", sa.String(64), primary_key=True),  # SHA-256 of the link's secret
        sa.Column("account_id", sa.String(40),
                  sa.ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False, index=True),
        sa.Column("purpose", sa.String(16), nullable=False),  # confirm | reset
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "game_players",
        sa.Column("game_id", sa.String(40), sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False,
                  index=True),
    )


def downgrade() -> None:
    op.drop_table("game_players")
    op.drop_table("email_tokens")
    op.drop_table("sessions")
    op.drop_table("accounts")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("open_seats")
        batch.drop_column("rated")
