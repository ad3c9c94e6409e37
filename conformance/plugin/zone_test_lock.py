"""Zone-wide state (the phase entry point, the zone's jobs and traffic) is one per zone.

Tests that use it must not interleave, also across xdist workers: each holds a file lock in the
run directory that every worker shares. Fixtures that change the zone for a whole module take
the same `zone_lock` (reentrant within a worker) around their setup and teardown.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from filelock import FileLock

from conformance.plugin.state import get_state

ZONE_WIDE_FIXTURES = frozenset({"rules_api", "edge"})


@pytest.fixture(scope="session")
def zone_lock(pytestconfig: pytest.Config) -> FileLock:
    run_dir = get_state(pytestconfig).run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    return FileLock(str(run_dir / "zone.lock"))


@pytest.fixture(autouse=True)
def _zone_serialised(request: pytest.FixtureRequest) -> Iterator[None]:
    if ZONE_WIDE_FIXTURES.isdisjoint(request.fixturenames):
        yield
        return
    lock: FileLock = request.getfixturevalue("zone_lock")
    with lock:
        yield
