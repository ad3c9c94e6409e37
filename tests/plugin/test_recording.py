"""results.json from real runs: one case per (rule, test), statuses, roll-up, evidence, JUnit."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from conformance import results

Run = tuple[pytest.RunResult, dict[str, Any], ET.Element]

OUTCOMES = """
import pytest
from conformance.clients.evidence import Exchange, collector

@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")

@pytest.mark.rule("storage.put.ok")
@pytest.mark.parametrize("n", [1, 2], ids=["one", "two"])
def test_pass(n):
    url = "http://t/b/k?X-Amz-Signature=s"
    collector.add(Exchange.build("put", url, 200, {"Authorization": "x"}))

@pytest.mark.rule("storage.put.ok")
def test_assertion_fails():
    assert 1 == 2, "target said no"

@pytest.mark.rule("logs.create.ok")
def test_timeout_is_error():
    raise TimeoutError("read timed out")

@pytest.mark.rule("logs.create.ok")
def test_setup_error(broken):
    pass

@pytest.mark.rule("gateway.chain.id")
@pytest.mark.xfail(reason="known bug", strict=False)
def test_xfail():
    assert False

@pytest.mark.rule("storage.delete.limit-new")
@pytest.mark.xfail(reason="thought broken", strict=True)
def test_xpass():
    pass

@pytest.mark.rule("storage.delete.limit-old")
def test_na():
    pass

def test_unrelated():
    pass
"""


@pytest.fixture
def run(suite: pytest.Pytester) -> Run:
    suite.makepyfile(OUTCOMES)
    out, junit = suite.path / "out" / "results.json", suite.path / "junit.xml"
    result = suite.runpytest("--results", str(out), "--junitxml", str(junit), "--run-id", "r1")
    return result, json.loads(out.read_text()), ET.parse(junit).getroot()


def _case_status(doc: dict[str, Any], name: str) -> set[str]:
    return {c["status"] for c in doc["cases"] if c["nodeid"].endswith(name)}


def test_case_statuses(run: Run) -> None:
    _, doc, _ = run
    assert _case_status(doc, "test_pass[one]") == {"PASS"}
    assert _case_status(doc, "test_assertion_fails") == {"FAIL"}
    assert _case_status(doc, "test_timeout_is_error") == {"ERROR"}
    assert _case_status(doc, "test_setup_error") == {"ERROR"}
    assert _case_status(doc, "test_xfail") == {"XFAIL"}
    assert _case_status(doc, "test_xpass") == {"XPASS"}
    assert _case_status(doc, "test_na") == {"N/A"}
    assert not _case_status(doc, "test_unrelated")
    fail = next(c for c in doc["cases"] if c["nodeid"].endswith("test_assertion_fails"))
    assert "target said no" in fail["message"]
    assert next(c for c in doc["cases"] if c["case"] == "two")["rule_id"] == "storage.put.ok"


def test_evidence_is_recorded_without_secrets(run: Run) -> None:
    _, doc, _ = run
    case = next(c for c in doc["cases"] if c["case"] == "one")
    (exchange,) = case["evidence"]
    assert exchange["method"] == "PUT"
    assert "X-Amz-Signature=REDACTED" in exchange["url"]
    assert "authorization" not in exchange["request_headers"]


def test_rule_roll_up_and_untested(run: Run) -> None:
    result, doc, _ = run
    rules = {r["id"]: r for r in doc["rules"]}
    assert rules["storage.put.ok"]["status"] == "FAIL"  # worst of PASS, PASS, FAIL
    assert rules["storage.put.ok"]["cases"] == 3
    assert rules["logs.create.ok"]["status"] == "ERROR"
    assert rules["gateway.chain.id"]["status"] == "XFAIL"
    assert rules["storage.delete.limit-new"]["status"] == "XPASS"
    assert rules["storage.delete.limit-old"]["status"] == "N/A"
    assert rules["logs.untested"]["status"] == "UNTESTED"
    assert rules["storage.never"] == rules["storage.never"] | {
        "status": "N/A", "reason": "not testable: needs 5 TiB"
    }  # fmt: skip
    assert rules["storage.ref.internal"]["status"] == "N/A"
    assert doc["summary"]["certified"] is False
    assert doc["summary"]["areas"]["logs"]["MUST"]["untested"] == 1
    assert doc["run"]["run_id"] == "r1"
    assert doc["run"]["catalog_hash"] == "fake-catalog"
    results.validate(doc)
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_rule_ids_are_junit_properties(run: Run) -> None:
    _, _, junit = run
    case = next(tc for tc in junit.iter("testcase") if tc.get("name") == "test_xfail")
    props = [(p.get("name"), p.get("value")) for p in case.iter("property")]
    assert ("rule_id", "gateway.chain.id") in props


def test_selection_limits_rules_and_untested(suite: pytest.Pytester) -> None:
    suite.makepyfile(OUTCOMES)
    out = suite.path / "r.json"
    suite.runpytest("--rule", "storage.put", "--results", str(out))
    doc = json.loads(out.read_text())
    assert [r["id"] for r in doc["rules"]] == ["storage.put.ok"]
    assert {c["rule_id"] for c in doc["cases"]} == {"storage.put.ok"}
    assert doc["run"]["flags"]["rule"] == ["storage.put"]
