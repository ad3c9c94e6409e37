"""Worker side of recording: evidence and outcome details onto each test report.

Everything goes into `report.user_properties`, which xdist ships to the controller and
junitxml writes as properties; the controller (records.py) turns it into result records.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from conformance.plugin.applicability import EVIDENCE, NA_REASON
from conformance.plugin.collection import RULES_KEY

FAILURE_KIND = "failure_kind"  # "assertion" (the target broke a rule) or "error"


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
    return isinstance(excinfo.value, AssertionError | pytest.fail.Exception)


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
    exchanges = [exchange.as_dict() for exchange in _collector().reset()]
    if exchanges:
        report.user_properties.append((EVIDENCE, exchanges))
    if report.skipped and not hasattr(report, "wasxfail"):
        report.user_properties.append((NA_REASON, _skip_reason(report)))
    if report.failed and call.when == "call":
        kind = "assertion" if _is_assertion(call.excinfo) else "error"
        report.user_properties.append((FAILURE_KIND, kind))
    return report
