"""Alembic environment: always given an open connection by conformance.history.store."""

from __future__ import annotations

from alembic import context

from conformance.history.models import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
