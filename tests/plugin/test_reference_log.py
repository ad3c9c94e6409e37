"""The launched reference's stderr outlives the run dir: it lands beside results.json.

tests/test_main_job.py reads it after a whole run and fails on any traceback (issue 16: the
server's log of a full CI run holds no traceback from client input).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from conformance import launcher
from conformance.plugin.lifecycle import keep_reference_log


def _state(run_dir: Path, results: Path | None) -> Any:
    return cast(Any, SimpleNamespace(run_dir=run_dir, options=SimpleNamespace(results=results)))


def test_non_empty_log_is_kept_beside_results(tmp_path: Path) -> None:
    run_dir, report = tmp_path / "run", tmp_path / "report"
    run_dir.mkdir()
    launcher.stderr_path(run_dir).write_text("Traceback (most recent call last):\n", "utf-8")
    keep_reference_log(_state(run_dir, report / "results.json"))
    assert (report / "reference.stderr").read_text("utf-8").startswith("Traceback")


def test_empty_or_missing_log_and_no_results_leave_nothing(tmp_path: Path) -> None:
    run_dir, report = tmp_path / "run", tmp_path / "report"
    run_dir.mkdir()
    keep_reference_log(_state(run_dir, report / "results.json"))  # no log at all
    launcher.stderr_path(run_dir).write_bytes(b"")
    keep_reference_log(_state(run_dir, report / "results.json"))  # empty log
    launcher.stderr_path(run_dir).write_text("warning\n", "utf-8")
    keep_reference_log(_state(run_dir, None))  # no results file: nowhere to keep it
    assert not report.exists()
