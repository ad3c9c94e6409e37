"""A defect found by a review of 9788910 (fixed): with --rerun, a MUST test that FAILs and is
then skipped on its rerun read N/A.

`_Pending.final` returned the last attempt's outcome whenever it is not PASS, so a failed attempt
followed by a skipped one (a runtime capability probe or pytest.skip that flakes) drops the FAIL:
the MUST rule reads N/A, which never blocks the certificate, and the run CERTIFIES although a
MUST check failed on the target in this run. A failed attempt then a pass reads FLAKY (refused).
"""

from __future__ import annotations

from typing import Any

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance import results

RULES = [{"id": "storage.must.kept"}, {"id": "storage.must.other"}]
FAILS_THEN_SKIPS = """
import pathlib
import pytest

def _attempt():
    path = pathlib.Path(__file__).with_name("count")
    n = int(path.read_text()) + 1 if path.exists() else 1
    path.write_text(str(n))
    return n

@pytest.mark.rule("storage.must.kept")
def test_must():
    if _attempt() == 1:
        assert False, "MUST broken on the first attempt"
    pytest.skip("the target does not offer this feature")

@pytest.mark.rule("storage.must.other")
def test_other():
    pass
"""


def _run(pytester: pytest.Pytester, *args: str) -> dict[str, Any]:
    _, doc = run_with_results(
        pytester, *args, source=FAILS_THEN_SKIPS, conftest=conftest_source(RULES)
    )
    results.validate(doc)
    return doc


def test_without_rerun_the_failure_refuses(pytester: pytest.Pytester) -> None:
    assert results.verdict(_run(pytester)) == results.NOT_CERTIFIED_VERDICT


def test_a_failed_attempt_is_not_forgotten_by_a_skipped_rerun(pytester: pytest.Pytester) -> None:
    doc = _run(pytester, "--rerun", "1")
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT, doc["rules"]
