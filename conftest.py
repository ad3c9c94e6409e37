"""Root conftest: intentionally empty; the suite's fixtures live in conformance.plugin."""
