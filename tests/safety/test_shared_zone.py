"""The shared-zone pre-flight: a zone with rules or jobs of its own is refused, one line per
thing the run would affect, before anything changes; an empty zone needs no flag."""

from __future__ import annotations

from pathlib import Path

import pytest
from safety.zone import finish, journal_files, start_zone

pytestmark = pytest.mark.slow


def test_shared_zone_is_refused_without_the_flag(tmp_path: Path) -> None:
    zone = start_zone(tmp_path)
    try:
        before = zone.user_state()
        code, out = finish(zone.start(zone.suite_argv("--rule", "logs.rulesets.put")))
        assert code != 0, out[-3000:]
        assert "entry point has 3 rule(s) of its own" in out, out[-3000:]
        assert "log push job 1 'user-job' (enabled) receives the run's test traffic" in out
        assert "--allow-shared-zone" in out
        assert journal_files(zone) == []
        assert zone.user_state() == before
        assert zone.suite_leftovers() == []
    finally:
        zone.stop()


def test_empty_zone_needs_no_flag_and_is_left_empty(tmp_path: Path) -> None:
    zone = start_zone(tmp_path, seed=False)
    try:
        code, out = finish(zone.start(zone.suite_argv("--rule", "logs.rulesets.put")))
        assert code == 0, out[-3000:]
        state = zone.user_state()
        assert state["entry_point"] is None and state["rulesets"] == [], state
        assert zone.suite_leftovers() == [] and journal_files(zone) == []
    finally:
        zone.stop()
