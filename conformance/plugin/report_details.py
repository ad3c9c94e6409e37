"""Worker side of recording: evidence and outcome details onto each test report.

Rule ids and the case id travel as `report.user_properties` (plain strings, so that JUnit XML
shows them as proper properties); evidence, N/A reasons and the kind of failure travel in a
report attribute of their own (`edge_conformance`), which xdist serialises with the report
like any other attribute but junitxml never writes. The controller (case_records.py) reads both.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from conformance.plugin.collection import RULES_KEY

REPORT_ATTR = "edge_conformance"
# keys of the report attribute
EVIDENCE, NA_REASON, FAILURE_KIND = "evidence", "na_reason", "failure_kind"
# FAILURE_KIND: "assertion" (the target broke a rule) or "error" (the suite or target broke)
FAILED_RULE = "failed_rule"  # the one rule a RuleFailure names (attribution.py)
DOC = "doc"  # the test's docstring: what the report shows as "the test that decides"
DOC_LIMIT = 1500


def _collector() -> Any:
    from conformance.clients.evidence import collector

    return collector


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return text.removeprefix("Skipped: ")


def _is_assertion(excinfo: pytest.ExceptionInfo[BaseException] | None) -> bool:
    if excinfo is None:
        return False
    if "from pytest-timeout" in str(excinfo.value):  # pytest-timeout fails a test that hangs
        return False  # a hang is the target (or suite) breaking, not a rule verdict: ERROR
    return isinstance(excinfo.value, AssertionError | pytest.fail.Exception)


def _failed_rule(excinfo: pytest.ExceptionInfo[BaseException] | None) -> str | None:
    from conformance.plugin.attribution import RuleFailure

    if excinfo is None or not isinstance(excinfo.value, RuleFailure):
        return None
    return excinfo.value.rule_id


def test_doc(item: pytest.Item) -> str:
    """The test function's docstring, dedented and bounded ("" when it has none)."""
    import inspect

    function = getattr(item, "obj", None)
    text = (inspect.getdoc(function) or "") if function is not None else ""
    return text if len(text) <= DOC_LIMIT else text[:DOC_LIMIT] + "…"


def details(report: pytest.TestReport) -> dict[str, Any]:
    """The plugin's details of a report (empty for tests that name no rule)."""
    found = getattr(report, REPORT_ATTR, None)
    return found if isinstance(found, dict) else {}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None]:
    if item.stash.get(RULES_KEY, ()):
        _collector().reset()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if not item.stash.get(RULES_KEY, ()):
        return report
    found: dict[str, Any] = {}
    # for a failure, what made the buckets this test used, recorded before it began (a shared
    # fixture) first: a replay sends it first; each marked with the writes it does not hold
    exchanges = _collector().take(report.failed)
    if exchanges:
        found[EVIDENCE] = exchanges
    if call.when == "setup":
        doc = test_doc(item)
        if doc:
            found[DOC] = doc
    if report.skipped and not hasattr(report, "wasxfail"):
        found[NA_REASON] = _skip_reason(report)
    # an expected failure (xfail) keeps its kind too: an expectation says FAIL or ERROR
    expected_failure = hasattr(report, "wasxfail") and call.excinfo is not None
    if call.when == "call" and (report.failed or expected_failure):
        found[FAILURE_KIND] = "assertion" if _is_assertion(call.excinfo) else "error"
    # an expected failure (xfail) names its rule too: the test's other rules are not expected
    if call.when == "call" and (report.failed or hasattr(report, "wasxfail")):
        failed_rule = _failed_rule(call.excinfo)
        if failed_rule is not None:
            found[FAILED_RULE] = failed_rule
    setattr(report, REPORT_ATTR, found)
    return report
