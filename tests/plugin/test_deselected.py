"""A run that deselects a test of a MUST rule (-k, --deselect) must not certify that rule on
its other tests' word (MEDIUM: the failing test left out, the rule read PASS, CERTIFIED)."""

from __future__ import annotations

from typing import Any

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance import results

RULES = [{"id": "storage.must.kept"}]
TESTS = """
import pytest

@pytest.mark.rule("storage.must.kept")
def test_passes():
    pass

@pytest.mark.rule("storage.must.kept")
def test_breaks():
    assert False, "MUST broken"
"""


def _run(pytester: pytest.Pytester, *args: str) -> dict[str, Any]:
    _, doc = run_with_results(pytester, *args, source=TESTS, conftest=conftest_source(RULES))
    results.validate(doc)
    return doc


NODE = "test_a_deselected_test_leaves_its_rule_not_checked.py::test_breaks"  # pytester's file


@pytest.mark.parametrize("how", [("-k", "passes"), ("--deselect", NODE)])
def test_a_deselected_test_leaves_its_rule_not_checked(
    pytester: pytest.Pytester, how: tuple[str, str]
) -> None:
    doc = _run(pytester, *how)
    (rule,) = doc["rules"]
    assert rule["status"] == "NOT-CHECKED"
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT


def test_a_full_run_reads_fail(pytester: pytest.Pytester) -> None:
    assert _run(pytester)["rules"][0]["status"] == "FAIL"
