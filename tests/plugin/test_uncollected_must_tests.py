"""A defect found by a review of 9788910 (fixed, plugin/uncollected.py): selections that left a
failing test of a MUST rule out without pytest_deselected.

deselected.py only saw tests pytest hands to `pytest_deselected` (-k, -m, --deselect). Naming
the passing test on the command line (the usual way to run one test) or `--ignore` of the file
holding the failing one never collects the failing test, so the rule read PASS on the one test
that ran and the run CERTIFIED, where the plain full run reads FAIL.
"""

from __future__ import annotations

from typing import Any

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance import results

RULES = [{"id": "storage.must.kept"}]
PASSING = """
import pytest

@pytest.mark.rule("storage.must.kept")
def test_passes():
    pass
"""
FAILING = """
import pytest

@pytest.mark.rule("storage.must.kept")
def test_breaks():
    assert False, "MUST broken"
"""


def _run(pytester: pytest.Pytester, *args: str) -> dict[str, Any]:
    _, doc = run_with_results(
        pytester,
        *args,
        conftest=conftest_source(RULES),
        modules={"test_good": PASSING, "test_bad": FAILING},
    )
    results.validate(doc)
    return doc


def test_full_run_is_not_certified(pytester: pytest.Pytester) -> None:
    doc = _run(pytester)
    assert doc["rules"][0]["status"] == "FAIL"
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT


@pytest.mark.parametrize(
    "how", [("test_good.py::test_passes",), ("test_good.py",), ("--ignore", "test_bad.py")]
)
def test_partial_collection_is_not_certified(
    pytester: pytest.Pytester, how: tuple[str, ...]
) -> None:
    doc = _run(pytester, *how)
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT, doc["rules"]
