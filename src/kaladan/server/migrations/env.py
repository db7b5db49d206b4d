"""Alembic environment: migrations run on the connection ``Store.upgrade`` passes in."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from kaladan.server.storage import metadata

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection):
    raise RuntimeError("run migrations through kaladan.server.storage.Store.upgrade")
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
