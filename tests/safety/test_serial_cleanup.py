"""A serial run (`-n 0`) deletes every bucket it created by its end, even after one cleanup
request of it timed out in the middle of the run (conformance/plugin/lifecycle.py).

The cleanup latch (conformance/plugin/cleanup.py) makes a process stop calling a target once a
cleanup request to it timed out. Under xdist the controller, which sweeps the run's buckets at
the end, is a process of its own and never latched; in a serial run it is the process that
latched, so the end-of-run sweep was skipped too: every bucket after the timeout was left on
the account until `conformance recover`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from safety.zone import LiveZone, finish, start_zone

pytestmark = pytest.mark.slow

# four quick cases, each with a bucket of its own (the model and the 1000-key page cost most)
SELECTION = ("--rule", "storage.list-objects.max-keys", "-k", "not store_model and not page_capped")


def test_a_timeout_mid_run_leaves_no_bucket_of_a_serial_run(tmp_path: Path) -> None:
    zone: LiveZone = start_zone(tmp_path, seed=False)
    try:
        helpers = str(Path(__file__).parents[1] / "helpers")
        zone.env["PYTHONPATH"] = os.pathsep.join(
            p for p in (helpers, zone.env.get("PYTHONPATH")) if p
        )
        argv = zone.suite_argv(*SELECTION, "-p", "cleanup_timeout_once", workers="0")
        code, out = finish(zone.start(argv))
        assert code == 0, out[-3000:]
        assert "not deleted: Read timeout" in out, out[-3000:]  # the hiccup came
        assert zone.suite_leftovers() == [], out[-3000:]
        assert list((zone.state_dir / "runs").glob("*.json")) == [], "the run stayed registered"
    finally:
        zone.stop()
