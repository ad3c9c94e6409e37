"""The logs area changes the zone's shared state only under the run's zone lock (issue 22).

A fixture that creates or deletes the log custom fields entry point outside `zone_lock` races
the test another xdist worker runs under it: "ruleset already exists" (20217) or a 404 there,
depending on the scheduling. The spy plugin records every zone-changing call made while the
lock is free, so a run without xdist shows the race on every run, not one in a few.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.suite_runner import run_suite
from helpers.zone_lock_spy import REPORT

pytestmark = pytest.mark.slow
SPY = Path(__file__).parents[1] / "helpers" / "zone_lock_spy.py"


def test_logs_area_changes_the_zone_only_under_the_zone_lock(tmp_path: Path) -> None:
    shutil.copy(SPY, tmp_path / SPY.name)
    document = run_suite(tmp_path, rules=["logs."], extra_args=["-p", "zone_lock_spy"])
    report = tmp_path / REPORT
    unlocked = (
        [json.loads(line) for line in report.read_text().splitlines()] if report.is_file() else []
    )
    assert not unlocked, f"zone changed without the zone lock: {unlocked}"
    bad = [r["id"] for r in document["rules"] if r["status"] in ("FAIL", "ERROR")]
    assert document["_exit_code"] == 0 and not bad, (bad, document["_output"])
