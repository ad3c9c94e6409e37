"""Helpers shared by the project's tests (import as `helpers.<module>`)."""
