"""Nightly results history: a store of recorded runs (SQLite or PostgreSQL, one schema kept by
Alembic) and the history page rendered from it."""
