"""Nothing hides behind a CERTIFIED line: a module that does not import makes its rules ERROR
and the verdict NOT CERTIFIED, and `conformance run`'s exit status agrees with the verdict."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fake_catalog import conftest_source

from conformance import cli_run, results
from conformance.report.summary import summary_lines

RULES = [{"id": "storage.put.ok"}, {"id": "logs.create.ok", "area": "logs"}]

PASSING = """
import pytest

@pytest.mark.rule("storage.put.ok")
def test_put():
    pass
"""

NOT_IMPORTABLE = """
import pytest
import a_dependency_nobody_installed  # noqa: F401

@pytest.mark.rule("logs.create.ok")
def test_create():
    pass
"""


def _run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    pytester.makeconftest(conftest_source(RULES))
    pytester.makepyfile(test_passing=PASSING, test_broken=NOT_IMPORTABLE)
    out = pytester.path / "out" / "results.json"
    result = pytester.runpytest("--results", str(out), "--continue-on-collection-errors", *args)
    return result, json.loads(out.read_text())


def test_collection_error_is_an_error_of_its_rules(pytester: pytest.Pytester) -> None:
    result, doc = _run(pytester)
    rules = {r["id"]: r for r in doc["rules"]}
    assert rules["storage.put.ok"]["status"] == "PASS"
    assert rules["logs.create.ok"]["status"] == "ERROR"  # not UNTESTED
    assert "a_dependency_nobody_installed" in rules["logs.create.ok"]["reason"]
    (problem,) = doc["run"]["problems"]
    assert problem["kind"] == "collection"
    assert problem["where"].endswith("test_broken.py")
    assert problem["rules"] == ["logs.create.ok"]
    assert doc["summary"]["certified"] is False
    results.validate(doc)
    lines = summary_lines(doc)
    assert any(line.startswith("problem (collection) in") for line in lines)
    assert "NOT CERTIFIED" in lines[-1]
    assert result.ret != 0


@pytest.mark.slow
def test_collection_error_with_workers(pytester: pytest.Pytester) -> None:
    """Under xdist the controller learns of a worker's collection error all the same."""
    _, doc = _run(pytester, "-n", "2")
    assert [p["kind"] for p in doc["run"]["problems"]] == ["collection"]
    assert {r["id"]: r["status"] for r in doc["rules"]}["logs.create.ok"] == "ERROR"
    assert doc["summary"]["certified"] is False


def _certified_doc() -> dict[str, Any]:
    return {
        "run": {},
        "cases": [],
        "summary": {"certified": True, "areas": {"storage": {"MUST": {"pass": 3}}}},
    }


def test_exit_status_and_verdict_agree_when_pytest_fails_outside_cases() -> None:
    doc = _certified_doc()
    code, reasons = cli_run.run_exit_code(doc, 1)
    assert code == 1
    assert cli_run.agree(doc, code, reasons, 1) is True
    assert doc["summary"]["certified"] is False
    assert doc["run"]["problems"][0]["kind"] == "pytest"
    assert "NOT CERTIFIED" in summary_lines(doc)[-1]


def test_not_certified_without_failing_cases_exits_non_zero() -> None:
    doc = _certified_doc()
    doc["summary"] = {"certified": False, "areas": {"storage": {"MUST": {"untested": 2}}}}
    code, reasons = cli_run.run_exit_code(doc, 0)
    assert code == 1
    assert "2 UNTESTED" in reasons[0]


def test_known_failures_alone_keep_exit_zero() -> None:
    """XFAIL (a failure the user declared in expectations) does not certify, and is expected."""
    doc = _certified_doc()
    doc["summary"] = {"certified": False, "areas": {"storage": {"MUST": {"xfail": 1}}}}
    assert cli_run.run_exit_code(doc, 0) == (0, [])
