"""Fixed defect (a review of 9788910), kept as a regression test:
`--failed-from` claims to re-run what failed "with its target, date, areas and
options", and `conformance run` prints it as "re-run exactly these"; but the run's `--rerun N`
and the pytest options given after `--` (README: `conformance run -- --model-steps 1000`) are
not in results.json `run.flags`, so the re-run drops them: a model divergence found at step 700
of 1000 is re-run with the default budget and reads "FAIL -> PASS" (fixed)."""

from __future__ import annotations

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
