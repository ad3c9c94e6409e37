"""Alembic migrations of the results store, run programmatically when a store is opened."""
