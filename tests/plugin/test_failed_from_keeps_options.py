"""Fixed defect (a review of 9788910), kept as a regression test:
`--failed-from` claims to re-run what failed "with its target, date, areas and
options", and `conformance run` prints it as "re-run exactly these"; but the run's `--rerun N`
and the pytest options given after `--` (README: `conformance run -- --model-steps 1000`) are
not in results.json `run.flags`, so the re-run drops them: a model divergence found at step 700
of 1000 is re-run with the default budget and reads "FAIL -> PASS" (fixed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance.cli import build_parser, run_options
from conformance.cli_run import build_pytest_argv

RULES = [{"id": "storage.must.kept"}]
TESTS = """
import pytest

@pytest.mark.rule("storage.must.kept")
def test_breaks():
    assert False, "MUST broken"
"""


def test_failed_from_repeats_the_runs_options(pytester: pytest.Pytester) -> None:
    _, doc = run_with_results(
        pytester, "--rerun", "2", "--model-steps", "1000",
        source=TESTS, conftest=conftest_source(RULES),
    )  # fmt: skip
    out = pytester.path / "results.json"
    assert doc["rules"][0]["status"] == "FAIL"
    ns = build_parser().parse_args(["run", "--failed-from", str(out)])
    argv = build_pytest_argv(run_options(ns, []), pytester.path, "again")
    assert "--rerun" in argv and "--model-steps" in argv, argv


def test_failed_from_never_writes_into_the_earlier_runs_folder(pytester: pytest.Pytester) -> None:
    """Fixed defect (found reading a FAIL as an implementer would): the run recorded where it
    wrote (`--results`, `--report-dir`) among its options, `--failed-from` repeated them after
    the new run's own, and pytest kept the last: the re-run overwrote the earlier run's
    results.json (the record the implementer was reading) and wrote none of its own."""
    elsewhere = pytester.path / "elsewhere"
    _, doc = run_with_results(
        pytester, "--report-dir", str(elsewhere), "--model-steps", "1000",
        source=TESTS, conftest=conftest_source(RULES),
    )  # fmt: skip
    earlier = pytester.path / "results.json"  # where run_with_results had it written
    assert doc["rules"][0]["status"] == "FAIL"
    ns = build_parser().parse_args(["run", "--failed-from", str(earlier)])
    new_dir = pytester.path / "again"
    argv = build_pytest_argv(run_options(ns, []), new_dir, "again")
    assert str(earlier) not in argv and str(elsewhere) not in argv, argv
    assert argv[argv.index("--results") + 1] == str(new_dir / "results.json"), argv
    assert argv.count("--results") == 1 and "--report-dir" not in argv, argv
    assert "--model-steps" in argv, argv  # what shapes the check is still repeated


def test_an_older_results_file_that_recorded_where_it_wrote_is_not_repeated(tmp_path: Path) -> None:
    """Results files written before the fix hold `--results` among their options."""
    old = tmp_path / "old" / "results.json"
    old.parent.mkdir()
    doc = {
        "run": {"run_id": "old", "target": "reference", "as_of": "2024-01-01",
                "flags": {"pytest_args": ["--results", str(old), "--model-steps", "9"]}},
        "rules": [{"id": "storage.must.kept", "status": "FAIL"}],
    }  # fmt: skip
    old.write_text(json.dumps(doc), "utf-8")
    ns = build_parser().parse_args(["run", "--failed-from", str(old)])
    argv = build_pytest_argv(run_options(ns, []), tmp_path / "new", "new")
    assert str(old) not in argv and argv.count("--results") == 1, argv
    assert argv[argv.index("--model-steps") + 1] == "9", argv


def test_a_rerun_named_onto_the_earlier_run_is_refused(tmp_path: Path) -> None:
    """`--failed-from R/x/results.json --report-dir R --run-id x` would write over the file it
    re-runs (found by a hostile round): refused before anything runs, the file untouched."""
    earlier = tmp_path / "x" / "results.json"
    earlier.parent.mkdir()
    doc = {"run": {"run_id": "x", "target": "reference", "as_of": "2024-01-01", "flags": {}},
           "rules": [{"id": "storage.must.kept", "status": "FAIL"}]}  # fmt: skip
    earlier.write_text(json.dumps(doc), "utf-8")
    before = earlier.read_bytes()
    args = ["run", "--failed-from", str(earlier), "--report-dir", str(tmp_path), "--run-id", "x"]
    from conformance.cli import main

    assert main(args) == 2
    assert earlier.read_bytes() == before
