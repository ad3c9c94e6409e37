"""Account safety tests: real suite runs against a reference seeded with a user's state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from safety.zone import LiveZone, start_zone


@pytest.fixture
def zone(tmp_path: Path) -> Iterator[LiveZone]:
    """A live zone with the user's rules, job and buckets; stopped after the test."""
    live = start_zone(tmp_path)
    yield live
    live.stop()
