"""A restore that does not hold fails the run loudly, with the journal's path and the one
command that restores it; the journal stays for that command."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from safety.zone import LiveZone, finish, journal_files, start_zone

pytestmark = pytest.mark.slow


@pytest.fixture
def appending_zone(tmp_path: Path) -> Iterator[LiveZone]:
    """A target whose PUT appends rules instead of replacing them: no restore can hold."""
    live = start_zone(tmp_path, "--profile", "deviate_put_appends_rules=true")
    yield live
    live.stop()


def test_failed_restore_is_reported_with_the_journal(appending_zone: LiveZone) -> None:
    zone = appending_zone
    run = zone.start(zone.suite_argv("--allow-shared-zone", "--rule", "logs.rulesets.put"))
    code, out = finish(run)
    assert code != 0, out[-3000:]
    journals = journal_files(zone)
    assert len(journals) == 1, out[-3000:]
    assert "RESTORE FAILED" in out, out[-3000:]
    assert str(journals[0]) in out, out[-3000:]
    assert f"conformance recover --target user --targets-file {zone.targets_file}" in out
