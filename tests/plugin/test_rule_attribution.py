"""A test serving several rules that fails with RuleFailure fails only the rule it names."""

from __future__ import annotations

import json
from typing import Any

import pytest

ATTRIBUTED = """
import pytest
from conformance.clients.evidence import Exchange, collector
from conformance.plugin.attribution import RuleFailure

@pytest.mark.rule("storage.put.ok", "gateway.chain.id", "logs.create.ok")
def test_one_rule_of_three_fails():
    collector.add(Exchange.build("PUT", "http://t/b/k", 200))
    raise RuleFailure("gateway.chain.id", "diverged here")

@pytest.mark.rule("storage.put.ok", "logs.create.ok")
def test_names_a_rule_it_does_not_serve():
    raise RuleFailure("gateway.chain.id", "not one of mine")

@pytest.mark.rule("storage.put.ok", "logs.create.ok")
def test_plain_assertion_fails_all():
    assert False, "no rule named"
"""


def _cases(doc: dict[str, Any], test: str) -> dict[str, dict[str, Any]]:
    return {c["rule_id"]: c for c in doc["cases"] if c["nodeid"].endswith(test)}


def test_only_the_named_rule_fails(suite: pytest.Pytester) -> None:
    """RuleFailure: its rule FAIL with message and evidence, the test's other rules PASS."""
    suite.makepyfile(ATTRIBUTED)
    out = suite.path / "results.json"
    suite.runpytest("--results", str(out))
    doc = json.loads(out.read_text())
    cases = _cases(doc, "test_one_rule_of_three_fails")
    assert {r: c["status"] for r, c in cases.items()} == {
        "storage.put.ok": "PASS", "gateway.chain.id": "FAIL", "logs.create.ok": "PASS",
    }  # fmt: skip
    failed = cases["gateway.chain.id"]
    assert "[gateway.chain.id] diverged here" in failed["message"]
    assert failed["evidence"] and failed["evidence"][0]["method"] == "PUT"
    assert "gateway.chain.id" in cases["storage.put.ok"]["message"]
    assert cases["storage.put.ok"]["evidence"] == []
    # a plain assertion names no rule: every rule of the test fails
    assert {c["status"] for c in _cases(doc, "test_plain_assertion_fails_all").values()} == {"FAIL"}
    # a rule the run does not record for the test (deselected): the others are undecided
    undecided = _cases(doc, "test_names_a_rule_it_does_not_serve")
    assert {c["status"] for c in undecided.values()} == {"ERROR"}
    assert all("gateway.chain.id" in c["message"] for c in undecided.values())


def test_deselected_failing_rule_leaves_the_selected_ones_undecided(
    suite: pytest.Pytester,
) -> None:
    """With --rule selecting one rule, a failure of another is ERROR for it, not FAIL."""
    suite.makepyfile(ATTRIBUTED)
    out = suite.path / "results.json"
    suite.runpytest("--results", str(out), "--rule", "storage.put.ok")
    cases = _cases(json.loads(out.read_text()), "test_one_rule_of_three_fails")
    assert {r: c["status"] for r, c in cases.items()} == {"storage.put.ok": "ERROR"}


UNCHECKED = """
import pytest
from conformance.plugin.attribution import RuleFailure, unchecked_rule

@pytest.mark.rule("storage.put.ok", "gateway.chain.id", "logs.create.ok")
def test_passes_without_reaching_one_rule(record_property):
    record_property(*unchecked_rule("gateway.chain.id", "its path was never walked"))

@pytest.mark.rule("storage.put.ok", "gateway.chain.id", "logs.create.ok")
def test_fails_one_rule_and_never_reached_another(record_property):
    try:
        raise RuleFailure("storage.put.ok", "diverged here")
    finally:
        record_property(*unchecked_rule("gateway.chain.id", "never walked"))
"""


def test_a_rule_the_test_did_not_reach_is_not_checked(suite: pytest.Pytester) -> None:
    """A pass says nothing of a rule the test reports it never checked: NOT-CHECKED, which
    does not certify; the others keep their outcome, a failure included."""
    suite.makepyfile(UNCHECKED)
    out = suite.path / "results.json"
    suite.runpytest("--results", str(out))
    doc = json.loads(out.read_text())
    cases = _cases(doc, "test_passes_without_reaching_one_rule")
    assert {r: c["status"] for r, c in cases.items()} == {
        "storage.put.ok": "PASS", "gateway.chain.id": "NOT-CHECKED", "logs.create.ok": "PASS",
    }  # fmt: skip
    assert "its path was never walked" in cases["gateway.chain.id"]["message"]
    failing = _cases(doc, "test_fails_one_rule_and_never_reached_another")
    assert {r: c["status"] for r, c in failing.items()} == {
        "storage.put.ok": "FAIL", "gateway.chain.id": "NOT-CHECKED", "logs.create.ok": "PASS",
    }  # fmt: skip


RERUN_UNCHECKED = """
import pytest
from conformance.plugin.attribution import RuleFailure, unchecked_rule

ATTEMPTS = []

@pytest.mark.rule("storage.put.ok", "gateway.chain.id", "logs.create.ok")
def test_stops_early_then_reaches_everything(record_property):
    ATTEMPTS.append(1)
    if len(ATTEMPTS) == 1:
        try:
            raise RuleFailure("storage.put.ok", "diverged on the first attempt")
        finally:
            record_property(*unchecked_rule("gateway.chain.id", "not reached before the stop"))
"""


def test_a_rerun_that_reaches_a_rule_checks_it(suite: pytest.Pytester) -> None:
    """Hostile review of 7970dd6: pytest keeps an item's user properties across --rerun
    attempts, so a rule the failed first attempt did not reach stayed NOT-CHECKED although the
    passing attempt reached it (the store model stopping early on a flaky divergence)."""
    suite.makepyfile(RERUN_UNCHECKED)
    out = suite.path / "results.json"
    suite.runpytest("--results", str(out), "--rerun", "1")
    cases = _cases(json.loads(out.read_text()), "test_stops_early_then_reaches_everything")
    assert {r: c["status"] for r, c in cases.items()} == {
        "storage.put.ok": "FLAKY", "gateway.chain.id": "PASS", "logs.create.ok": "PASS",
    }  # fmt: skip
