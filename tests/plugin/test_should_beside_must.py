"""A failing SHOULD check must not let MUST rules it stopped read as checked (break review of
8aa1fd2). A test that checks several rules stops at its first failing check, and the stateful
model stops at its first divergence: the MUST rules after it read PASS without having been
checked. Since c3c5eba a failing SHOULD case no longer refuses the certificate by itself, so
such a run read CERTIFIED; so did a run that -x stopped on a SHOULD failure."""

from __future__ import annotations

from typing import Any

import pytest
from fake_catalog import conftest_source
from helpers.results_run import run_with_results

from conformance import results
from conformance.cli_run import agree, run_exit_code
from conformance.report.merge import merge_run

RULES = [
    {"id": "storage.must.kept"},
    {"id": "storage.should.broken", "level": "SHOULD"},
]

SHARED = """
import pytest
from conformance.plugin.attribution import RuleFailure

@pytest.mark.rule("storage.must.kept", "storage.should.broken")
def test_shared():
    raise RuleFailure("storage.should.broken", "diverged on the SHOULD rule first")
"""

APART = """
import pytest

@pytest.mark.rule("storage.must.kept")
def test_must():
    pass

@pytest.mark.rule("storage.should.broken")
def test_should():
    assert False, "SHOULD broken"
"""

STOPS_EARLY = """
import pytest

@pytest.mark.rule("storage.must.kept")
def test_a_first():
    pass

@pytest.mark.rule("storage.should.broken")
def test_b_should():
    assert False, "SHOULD broken"

@pytest.mark.rule("storage.must.kept")
def test_c_never_runs():
    assert False, "MUST broken, but -x stopped the run before this test"
"""


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(conftest_source(RULES))
    return pytester


def _run(suite: pytest.Pytester, name: str, *args: str) -> dict[str, Any]:
    """What `conformance run` leaves: the plugin's results.json, then exit status and agree."""
    result, doc = run_with_results(suite, *args, name=name)
    rc = int(result.ret)
    code, reasons = run_exit_code(doc, rc)
    agree(doc, code, reasons, rc)
    doc["_exit"] = code
    return doc


def test_a_should_rule_failing_in_its_own_test_leaves_the_certificate(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(APART)
    doc = _run(suite, "apart")
    assert results.verdict(doc) == results.CERTIFIED_VERDICT and doc["_exit"] == 1


def test_a_should_check_that_stopped_a_must_rules_test_refuses_the_certificate(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(SHARED)
    doc = _run(suite, "shared")
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT and doc["_exit"] == 1
    assert "storage.must.kept" in doc["run"]["problems"][0]["message"]


def test_a_run_split_by_rule_merges_into_the_verdict_of_the_run_unsharded(
    suite: pytest.Pytester,
) -> None:
    suite.makepyfile(SHARED)
    unsharded = _run(suite, "whole")
    must = _run(suite, "must", "--rule", "storage.must")
    should = _run(suite, "should", "--rule", "storage.should")
    merged = merge_run([must, should], ["must", "should"])
    assert results.verdict(merged) == results.verdict(unsharded)


def test_a_run_that_x_stopped_is_not_certified(suite: pytest.Pytester) -> None:
    suite.makepyfile(STOPS_EARLY)
    doc = _run(suite, "stopped", "-x", "-p", "no:randomly")
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT, doc["cases"]
    assert any(p["where"] == "pytest -x/--maxfail" for p in doc["run"]["problems"])


def test_the_plugins_own_results_file_refuses_the_stopped_must_rule(
    suite: pytest.Pytester,
) -> None:
    """MEDIUM: only `conformance run`'s agree() recorded the stopped MUST rule, so the file a
    plain pytest run writes (read by `conformance report`) read CERTIFIED."""
    suite.makepyfile(SHARED)
    _, doc = run_with_results(suite, name="plain")
    assert results.verdict(doc) == results.NOT_CERTIFIED_VERDICT
    assert "storage.must.kept" in doc["run"]["problems"][0]["message"]
