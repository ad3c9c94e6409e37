"""`-x` (or --maxfail) that stops on the LAST test skipped nothing: pytest still sets
`session.shouldfail`, and the plugin read that alone as "the tests after it did not run", a
run problem that refused the certificate of a run that checked everything (a SHOULD failure
in the last test then read NOT CERTIFIED, where the same run without -x reads CERTIFIED)."""

from __future__ import annotations

from typing import Any

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance import results
from conformance.cli_run import agree, run_exit_code

RULES = [{"id": "storage.must.kept"}, {"id": "storage.should.broken", "level": "SHOULD"}]

SHOULD_LAST = """
import pytest

@pytest.mark.rule("storage.must.kept")
def test_a_must():
    pass

@pytest.mark.rule("storage.should.broken")
def test_b_should():
    assert False, "SHOULD broken"
"""


def _run(pytester: pytest.Pytester, *args: str) -> dict[str, Any]:
    result, doc = run_with_results(
        pytester, *args, source=SHOULD_LAST, conftest=conftest_source(RULES)
    )
    rc = int(result.ret)
    code, reasons = run_exit_code(doc, rc)
    agree(doc, code, reasons, rc)
    doc["_exit"] = code
    return doc


# not under xdist: its -x ends the session as interrupted (exit 2), a run problem of its own
@pytest.mark.parametrize("stop", [["-x"], ["--maxfail", "1"]])
def test_a_stop_on_the_last_test_is_not_a_stopped_run(
    pytester: pytest.Pytester, stop: list[str]
) -> None:
    doc = _run(pytester, *stop, "-p", "no:randomly")
    assert not doc["run"].get("problems"), doc["run"].get("problems")
    assert results.verdict(doc) == results.CERTIFIED_VERDICT and doc["_exit"] == 1


STOPS_EARLY = (
    SHOULD_LAST
    + """
@pytest.mark.rule("storage.must.kept")
def test_c_never_runs():
    assert False, "MUST broken, but -x stopped the run before this test"
"""
)


def test_a_stop_before_the_last_test_is_still_a_stopped_run(pytester: pytest.Pytester) -> None:
    _, doc = run_with_results(
        pytester, "-x", "-p", "no:randomly", source=STOPS_EARLY, conftest=conftest_source(RULES)
    )
    assert [p["where"] for p in doc["run"]["problems"]] == ["pytest -x/--maxfail"]
