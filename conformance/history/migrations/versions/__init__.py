"""Alembic revision scripts (shipped as package data)."""
